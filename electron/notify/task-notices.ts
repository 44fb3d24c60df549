import type { TaskRow, TaskStatus } from '../../shared/schemas/task.js';
import { agentStatusOf } from '../../shared/schemas/subagent.js';
import { formatDuration } from '../pool/adoption.js';

export interface Notice {
  title: string;
  body: string;
  sessionId: string;
  taskId: string;
}

export interface NoticeContext {
  enabled: boolean;
  windowFocused: boolean;
  sessionTitle: (sessionId: string) => string | null;
}

const OUTCOME: Partial<Record<TaskStatus, string>> = {
  succeeded: 'finished',
  failed: 'failed',
  timed_out: 'timed out',
  stopped: 'was stopped',
};

/**
 * Decides what the desktop shows of background work: a notification when a task ends while
 * the window is not focused, and the tray's running count and menu. Plain logic; the
 * Electron adapter only draws what this says.
 */
export class TaskNotices {
  readonly #running = new Map<string, TaskRow>();
  readonly #seen = new Map<string, TaskStatus>();

  /** Feed every task change. Returns the notification to show, if any. */
  update(row: TaskRow, context: NoticeContext): Notice | null {
    const before = this.#seen.get(row.id);
    this.#seen.set(row.id, row.status);
    if (row.status === 'running' || row.status === 'queued') {
      this.#running.set(row.id, row);
      return null;
    }
    this.#running.delete(row.id);
    const outcome = OUTCOME[row.status];
    // Only a task this run saw running, ending now; never one ended by shutdown.
    if (!outcome || (before !== 'running' && before !== 'queued')) return null;
    if (!context.enabled || context.windowFocused) return null;
    if (row.exitNote?.includes('shutting down')) return null;
    const session = context.sessionTitle(row.sessionId) ?? 'a session';
    const exit =
      row.exitCode !== null
        ? `exit code ${row.exitCode}${row.exitNote ? ` (${row.exitNote})` : ''}`
        : (row.exitNote ?? row.error ?? '');
    return {
      // An agent ends in its own words (completed, failed, killed), without an exit code.
      title:
        row.kind === 'agent'
          ? `Agent ${agentStatusOf(row.status)}: ${shorten(row.command, 60)}`
          : `Task ${outcome}: ${shorten(row.command, 60)}`,
      body: [`${row.id} in “${session}”`, exit, `ran ${formatDuration(row.elapsedSeconds)}`]
        .filter(Boolean)
        .join(' · '),
      sessionId: row.sessionId,
      taskId: row.id,
    };
  }

  /** What the tray shows: the running count, counts by kind, and one menu item per running task. */
  tray(): { count: number; tooltip: string; items: { label: string; sessionId: string; taskId: string }[] } {
    const rows = [...this.#running.values()].sort((a, b) => (b.queuedAt > a.queuedAt ? 1 : -1));
    const count = rows.length;
    return {
      count,
      tooltip: count === 0 ? 'Drover: no tasks running' : `Drover: ${byKind(rows)} running`,
      items: rows.map((row) => ({
        label: `${row.status === 'queued' ? 'Queued' : 'Running'}: ${shorten(row.command, 50)} (${row.id})`,
        sessionId: row.sessionId,
        taskId: row.id,
      })),
    };
  }
}

/** "3 shells, 2 monitors" */
export function byKind(rows: readonly TaskRow[]): string {
  const names: Record<TaskRow['kind'], [string, string]> = {
    command: ['shell', 'shells'],
    monitor: ['monitor', 'monitors'],
    agent: ['agent', 'agents'],
  };
  const counts = new Map<TaskRow['kind'], number>();
  for (const row of rows) counts.set(row.kind, (counts.get(row.kind) ?? 0) + 1);
  return [...counts.entries()].map(([kind, n]) => `${n} ${names[kind][n === 1 ? 0 : 1]}`).join(', ');
}

function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
