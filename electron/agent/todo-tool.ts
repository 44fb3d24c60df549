import type { z } from 'zod';
import { TodoWriteInput } from '../../shared/schemas/todos.js';
import type { Checklists } from '../checklist/checklist.js';
import type { AgentTool } from './tools.js';

/**
 * todo_write: the session checklist, the complete list every call (it replaces, never appends).
 * The person's edits stick; the answer carries the pushback and what the person did.
 */
export function todoTool(checklists: Checklists): AgentTool {
  return {
    name: 'todo_write',
    aliases: ['TodoWrite'],
    description:
      'The session checklist the person sees above the composer: send the complete list every time (content: ' +
      'imperative, like "Run tests"; activeForm: present continuous, like "Running tests"; status). Mark an item ' +
      'in_progress before you start it and completed right after; keep one in progress; include a step that verifies ' +
      'the work. Items the person removed or completed stay so. An empty list, or every item completed, clears it.',
    input: TodoWriteInput,
    async execute(args: z.output<typeof TodoWriteInput>, context) {
      const result = checklists.write(context.sessionId, args.todos, 'model');
      const items = result.checklist.items;
      const done = items.filter((item) => item.status === 'completed').length;
      const current = items.find((item) => item.status === 'in_progress');
      const summary = result.cleared
        ? 'The checklist is clear.'
        : `Checklist: ${done} of ${items.length} completed${current ? `; in progress: ${current.activeForm}` : ''}.`;
      const text = [summary, ...result.notes.map((note) => `Note: ${note}`)].join('\n');
      return { display: { kind: 'text', text: summary }, text };
    },
  };
}
