import type { TaskKind, TaskRow } from '@shared/schemas/task.js';
import { exitLabel, taskStatusLabel } from './format.js';

/** Queued or running: what the Running section shows. */
export function isActive(task: TaskRow): boolean {
  return task.status === 'running' || task.status === 'queued';
}

/** When a task began, for ordering: its start, or its queueing while it waits. */
function beganAt(task: TaskRow): number {
  return Date.parse(task.startedAt ?? task.queuedAt);
}

function taskNumber(id: string): number {
  return Number(id.slice(id.indexOf('_') + 1));
}

/**
 * Running and queued tasks, newest first by start (or queue) time. The order depends only
 * on when each began, never on its status or output, so nothing floats.
 */
export function runningNewestFirst(tasks: readonly TaskRow[]): TaskRow[] {
  return tasks.filter(isActive).sort((a, b) => beganAt(b) - beganAt(a) || taskNumber(b.id) - taskNumber(a.id));
}

/** Settled tasks that are not leftovers, newest first by end time. */
export function finishedNewestFirst(tasks: readonly TaskRow[]): TaskRow[] {
  const end = (task: TaskRow) => Date.parse(task.endedAt ?? task.startedAt ?? task.queuedAt);
  return tasks
    .filter((task) => !isActive(task) && !task.leftover)
    .sort((a, b) => end(b) - end(a) || taskNumber(b.id) - taskNumber(a.id));
}

/** Seconds a task has run, by the local clock while it runs. */
export function elapsedSeconds(task: TaskRow, now: number): number {
  if (task.status === 'running' && task.startedAt)
    return Math.max(0, Math.floor((now - Date.parse(task.startedAt)) / 1000));
  if (task.status === 'queued') return 0;
  return Math.floor(task.elapsedSeconds);
}

/** A clock reading: "0:07", "1:05", "1:02:09". */
export function clockLabel(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** "1:05 / ~2:00" against the estimate, "1:05" without one, "queued" while it waits. */
export function elapsedAgainstEstimate(task: TaskRow, now: number): string {
  if (task.status === 'queued') return 'queued';
  const elapsed = clockLabel(elapsedSeconds(task, now));
  return task.expectedSeconds ? `${elapsed} / ~${clockLabel(task.expectedSeconds)}` : elapsed;
}

export interface Progress {
  /** 0 to 100, never more. */
  percent: number;
  overdue: boolean;
}

/** How far along a task is against its estimate; null when it has none. */
export function taskProgress(task: TaskRow, now: number): Progress | null {
  if (!task.expectedSeconds) return null;
  const elapsed = elapsedSeconds(task, now);
  const percent = Math.max(0, Math.min(100, Math.round((elapsed / task.expectedSeconds) * 100)));
  return { percent, overdue: task.overdue };
}

/** How a settled task ended, short: "exit 1", "stopped", "timed out". */
export function outcomeLabel(task: TaskRow): string {
  if (task.status === 'succeeded')
    return task.exitCode === null || task.exitCode === 0 ? 'exit 0' : `exit ${task.exitCode}`;
  if (task.status === 'failed') return exitLabel(task) ?? (task.error ? 'failed to start' : 'failed');
  return taskStatusLabel(task.status);
}

/** When a settled task ended and how long it took: "12:03 · 4 s". */
export function finishedClock(task: TaskRow): string {
  const at = task.endedAt ?? task.startedAt ?? task.queuedAt;
  const time = new Date(Date.parse(at)).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return `${time} · ${durationShort(task.elapsedSeconds)}`;
}

function durationShort(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** The transcript's chip: "2 running tasks", "3 background tasks", or null when the chat never ran one. */
export function chipLabel(tasks: readonly TaskRow[]): string | null {
  if (tasks.length === 0) return null;
  const running = tasks.filter(isActive).length;
  if (running > 0) return running === 1 ? '1 running task' : `${running} running tasks`;
  return tasks.length === 1 ? '1 background task' : `${tasks.length} background tasks`;
}

const KIND_WORDS: Record<TaskKind, [string, string]> = {
  command: ['shell', 'shells'],
  monitor: ['monitor', 'monitors'],
  agent: ['agent', 'agents'],
};

/** Running tasks by kind: "3 shells, 2 monitors"; null when none runs. */
export function runningByKindLabel(tasks: readonly TaskRow[]): string | null {
  const parts: string[] = [];
  for (const kind of Object.keys(KIND_WORDS) as TaskKind[]) {
    const count = tasks.filter((task) => task.kind === kind && isActive(task)).length;
    if (count > 0) parts.push(`${count} ${KIND_WORDS[kind][count === 1 ? 0 : 1]}`);
  }
  return parts.length > 0 ? parts.join(', ') : null;
}
