import type { TaskRow, TaskStatus } from '@shared/schemas/task.js';
import { visibleCommand } from '@shared/domain/commands.js';
import { agentStatusOf } from '@shared/domain/task-status.js';

export interface TaskNotice {
  title: string;
  body: string;
}

const ENDINGS: Partial<Record<TaskStatus, string>> = {
  succeeded: 'Task finished',
  failed: 'Task failed',
  timed_out: 'Task timed out',
  stopped: 'Task stopped',
};

const ONE_LINE = 80;

/**
 * The notification for a task's change, or null when the change is not worth one: only a
 * task seen running or queued that now succeeded, failed, timed out or was stopped.
 * "Task failed: npm test" / "bg_3 in “Session title” · exit code 1".
 */
export function taskNotice(
  before: TaskStatus | undefined,
  task: TaskRow,
  sessionTitle: string | null,
): TaskNotice | null {
  if (before !== 'running' && before !== 'queued') return null;
  const ending = ENDINGS[task.status];
  if (!ending) return null;
  // A notification shows plain text: whitespace folds, anything else unusual (bidi included) is escaped.
  const command = visibleCommand(task.command.replace(/\s+/g, ' ').trim());
  const short = command.length > ONE_LINE ? `${command.slice(0, ONE_LINE - 1)}…` : command;
  const where = sessionTitle ? `${task.id} in “${sessionTitle}”` : task.id;
  // An agent ends in its own words (completed, failed, killed), without an exit code.
  if (task.kind === 'agent') return { title: `Agent ${agentStatusOf(task.status)}: ${short}`, body: where };
  const how = task.exitCode !== null ? `exit code ${task.exitCode}` : (task.signal ?? null);
  return { title: `${ending}: ${short}`, body: how ? `${where} · ${how}` : where };
}
