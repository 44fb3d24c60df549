import type { z } from 'zod';
import {
  TaskCreateInput,
  TaskGetInput,
  TaskListInput,
  TaskUpdateInput,
  type WorkChangeResult,
  type WorkItem,
} from '../../shared/schemas/work.js';
import type { WorkLedger } from '../work/work-ledger.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import type { AgentTool, ToolOutcome } from './tools.js';

/** The environment variable that names a shared list (the spec's list-id variable, under Drover's name). */
export const WORK_LIST_VARIABLE = 'DROVER_WORK_LIST_ID';

const WORKFLOW =
  'Mark an item in_progress before you start it and completed right after you finish it; keep one item in progress ' +
  'at a time; never mark one completed while tests fail or the work is partial.';

function changeText(verb: string, result: WorkChangeResult): string {
  const item = result.item;
  const lines = [`${verb} work item ${item.id}: ${item.subject} (${item.status}).`];
  if (item.blockedBy.length > 0) lines.push(`Blocked by: ${item.blockedBy.join(', ')}.`);
  if (result.unblocked.length > 0)
    lines.push(
      `This unblocked: ${result.unblocked.map((other) => `${other.id} (${other.subject})`).join(', ')}. Pick the next one up now.`,
    );
  for (const warning of result.warnings) lines.push(`Warning: ${warning}`);
  return lines.join('\n');
}

function detailText(item: WorkItem): string {
  return [
    `Work item ${item.id} in list ${item.listId}: ${item.subject}`,
    `status: ${item.status}`,
    `owner: ${item.owner ?? 'none'}`,
    `blocked_by: ${item.blockedBy.length ? item.blockedBy.join(', ') : 'none'}`,
    `blocks: ${item.blocks.length ? item.blocks.join(', ') : 'none'}`,
    ...(item.activeForm ? [`active_form: ${item.activeForm}`] : []),
    ...(item.blockedReason ? [`blocked_reason: ${item.blockedReason}`] : []),
    `metadata: ${JSON.stringify(item.metadata)}`,
    `created ${item.createdAt}, updated ${item.updatedAt}`,
    item.description ? `description:\n${item.description}` : 'description: (none)',
  ].join('\n');
}

/** What the person reads for a change: Drover's words, the item's own subject as text. */
function shown(text: string): ToolOutcome {
  return { display: { kind: 'text', text }, text };
}

/**
 * The work ledger's tools (task_create, task_update, task_list, task_get, as the spec names them).
 * They change the ledger only, never the workspace (the ledger is opened on first use). `listId` names the session's list: its id, or
 * DROVER_WORK_LIST_ID where several processes share one board.
 */
export function workTools(
  ledgerOf: () => WorkLedger,
  listId: (sessionId: string) => string,
  changed: (listId: string) => void = () => {},
  serving: (sessionId: string, item: WorkItem) => TaskRow[] = () => [],
): AgentTool[] {
  const create: AgentTool = {
    name: 'task_create',
    aliases: ['TaskCreate'],
    description:
      'Add a work item to the durable, dependency-aware work ledger (it outlives the session and can be shared with ' +
      'other agents and processes). Use it for ordered, multi-agent or long-lived work; for an ordinary in-session ' +
      `checklist use todo_write. ${WORKFLOW}`,
    input: TaskCreateInput,
    async execute(args: z.output<typeof TaskCreateInput>, context) {
      const list = listId(context.sessionId);
      const result = ledgerOf().create(list, args);
      changed(list);
      return shown(changeText('Created', result));
    },
  };
  const update: AgentTool = {
    name: 'task_update',
    aliases: ['TaskUpdate'],
    description:
      'Change a work item: status, subject, description, owner (claim with your name, null releases), dependency ' +
      `edges, metadata (merged; a key set to null is deleted). Completing an item names the items it unblocked. ${WORKFLOW}`,
    input: TaskUpdateInput,
    async execute(args: z.output<typeof TaskUpdateInput>, context) {
      const list = listId(context.sessionId);
      const result = ledgerOf().update(list, args);
      changed(list);
      return shown(changeText(args.status === 'deleted' ? 'Deleted' : 'Updated', result));
    },
  };
  const list: AgentTool = {
    name: 'task_list',
    aliases: ['TaskList'],
    description:
      'The work ledger: each item with id, status, subject, owner and unresolved blockers (completed ones left out), and a tally.',
    input: TaskListInput,
    async execute(args: z.output<typeof TaskListInput>, context) {
      const board = ledgerOf().list(listId(context.sessionId), { include_completed: args.include_completed });
      const lines = board.items.map((item) =>
        [
          `${item.id} [${item.status}] ${item.subject}`,
          item.owner ? `owner ${item.owner}` : '',
          item.blockedBy.length ? `blocked by ${item.blockedBy.join(', ')}` : '',
          item.blockedReason ? `blocked: ${item.blockedReason}` : '',
        ]
          .filter(Boolean)
          .join(' | '),
      );
      const { pending, inProgress, completed, total } = board.tally;
      const tally = `${completed} of ${total} completed, ${inProgress} in progress, ${pending} pending (list ${board.listId}).`;
      const unreadable = board.unreadable.length
        ? [`Items ${board.unreadable.join(', ')} could not be read and are left out.`]
        : [];
      const text = [...(lines.length ? lines : ['No work items.']), tally, ...unreadable].join('\n');
      return { display: { kind: 'text', text: `Listed the work items: ${tally}` }, text };
    },
  };
  const get: AgentTool = {
    name: 'task_get',
    aliases: ['TaskGet'],
    description: "A work item's full detail, both dependency directions included. Read it before you start the item.",
    input: TaskGetInput,
    async execute(args: z.output<typeof TaskGetInput>, context) {
      const item = ledgerOf().get(listId(context.sessionId), args.task_id);
      const tasks = serving(context.sessionId, item).map((row) => `${row.id} (${row.status}): ${row.command}`);
      const text = `${detailText(item)}\ntasks serving it: ${tasks.length ? `\n${tasks.join('\n')}` : 'none'}`;
      return { display: { kind: 'text', text: `Read work item ${item.id}: ${item.subject}.` }, text };
    },
  };
  return [create, update, list, get];
}
