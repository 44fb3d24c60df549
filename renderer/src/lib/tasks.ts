import type { TaskKind, TaskRow } from '@shared/schemas/task.js';
import { agentStatusOf } from '@shared/domain/task-status.js';
import { clockTime, countLabel, elapsedLabel, exitLabel, taskStatusLabel } from './format.js';

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

/**
 * Settled tasks that are not leftovers, newest first by start time (the spec: one ordering in
 * both sections, by when a task began, so a list never reshuffles as tasks end).
 */
export function finishedNewestFirst(tasks: readonly TaskRow[]): TaskRow[] {
  return tasks
    .filter((task) => !isActive(task) && !task.leftover)
    .sort((a, b) => beganAt(b) - beganAt(a) || taskNumber(b.id) - taskNumber(a.id));
}

/** The Finished filter: every settled task, or one kind of outcome. */
export type FinishedFilter = 'all' | 'succeeded' | 'failed' | 'stopped' | 'timed_out';

export const FINISHED_FILTERS: readonly { value: FinishedFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
  { value: 'stopped', label: 'Stopped' },
  { value: 'timed_out', label: 'Timed out' },
];

/** Which filter a settled task falls under: a lost or orphaned task failed as far as the person is concerned. */
export function finishedKind(task: TaskRow): Exclude<FinishedFilter, 'all'> {
  if (task.status === 'succeeded' || task.status === 'stopped' || task.status === 'timed_out') return task.status;
  return 'failed';
}

/** How many settled tasks each filter shows. */
export function finishedCounts(finished: readonly TaskRow[]): Record<FinishedFilter, number> {
  const counts: Record<FinishedFilter, number> = { all: 0, succeeded: 0, failed: 0, stopped: 0, timed_out: 0 };
  for (const task of finished) {
    counts.all++;
    counts[finishedKind(task)]++;
  }
  return counts;
}

export function filterFinished(finished: readonly TaskRow[], filter: FinishedFilter): TaskRow[] {
  return filter === 'all' ? [...finished] : finished.filter((task) => finishedKind(task) === filter);
}

/** Runs (or ran) in the background: started there, or a foreground run handed over. A plain `!cmd` is not one. */
export function isBackground(task: TaskRow): boolean {
  return !task.foreground || task.adopted;
}

/** Seconds a task has run, by the local clock while it runs. */
export function elapsedSeconds(task: TaskRow, now: number): number {
  if (task.status === 'running' && task.startedAt)
    return Math.max(0, Math.floor((now - Date.parse(task.startedAt)) / 1000));
  if (task.status === 'queued') return 0;
  return Math.floor(task.elapsedSeconds);
}

/** "1 min 05 s / ~2 min 00 s" against the estimate, "1 min 05 s" without one, "queued" while it waits. */
export function elapsedAgainstEstimate(task: TaskRow, now: number): string {
  if (task.status === 'queued') return 'queued';
  const elapsed = elapsedLabel(elapsedSeconds(task, now));
  return task.expectedSeconds ? `${elapsed} / ~${elapsedLabel(task.expectedSeconds)}` : elapsed;
}

/** Seconds before a running task's timeout ends it; null unless it runs. */
export function timeoutLeft(task: TaskRow, now: number): number | null {
  if (task.status !== 'running' || !task.startedAt) return null;
  return Math.max(0, task.timeoutSeconds - (now - Date.parse(task.startedAt)) / 1000);
}

/** "times out in 9 min 58 s (10 min 00 s)" while it runs; "timeout 10 min 00 s" otherwise. */
export function timeoutText(task: TaskRow, now: number): string {
  const limit = elapsedLabel(task.timeoutSeconds);
  const left = timeoutLeft(task, now);
  return left === null ? `timeout ${limit}` : `times out in ${elapsedLabel(left)} (of ${limit})`;
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

/** How a settled task ended, short: "exit 1", "stopped", "timed out"; an agent in its own words ("completed", "killed"). */
export function outcomeLabel(task: TaskRow): string {
  if (task.kind === 'agent') return agentStatusOf(task.status);
  if (task.status === 'succeeded')
    return task.exitCode === null || task.exitCode === 0 ? 'exit 0' : `exit ${task.exitCode}`;
  if (task.status === 'failed') return exitLabel(task) ?? (task.error ? 'failed to start' : 'failed');
  return taskStatusLabel(task.status);
}

/** When a settled task started (the list's order) and how long it ran: "12:03 · 4 s". */
export function finishedClock(task: TaskRow): string {
  const at = task.startedAt ?? task.queuedAt;
  const time = clockTime(new Date(Date.parse(at)));
  const elapsed = elapsedLabel(task.elapsedSeconds);
  return time === '' ? elapsed : `${time} · ${elapsed}`;
}

/**
 * The transcript's chip: "2 running tasks", "3 background tasks", or null when the chat never ran
 * one. Only background tasks count: a foreground `!cmd` that ended in its wait is not one. Once
 * anything but shells runs, it counts by kind as the nav rail does ("1 shell, 2 monitors").
 */
export function chipLabel(tasks: readonly TaskRow[], settledBackground = 0): string | null {
  const background = tasks.filter(isBackground);
  const running = background.filter(isActive);
  if (running.some((task) => task.kind !== 'command')) return runningByKindLabel(running);
  if (running.length > 0) return countLabel(running.length, 'running task', 'running tasks');
  // Finished rows load page by page: how many ran in the background is counted, not listed.
  const total = settledBackground + background.filter((task) => !isActive(task)).length;
  if (total === 0) return null;
  return countLabel(total, 'background task', 'background tasks');
}

/** The kinds in the order they are counted and grouped, with their nouns. */
const KINDS: readonly { kind: TaskKind; one: string; many: string; title: string }[] = [
  { kind: 'command', one: 'shell', many: 'shells', title: 'Shells' },
  { kind: 'monitor', one: 'monitor', many: 'monitors', title: 'Monitors' },
  { kind: 'agent', one: 'agent', many: 'agents', title: 'Agents' },
];

/** Background tasks running, by kind: "3 shells, 2 monitors", "1 shell"; null when none runs. */
export function runningByKindLabel(tasks: readonly TaskRow[]): string | null {
  const parts: string[] = [];
  for (const { kind, one, many } of KINDS) {
    const count = tasks.filter((task) => task.kind === kind && isActive(task) && isBackground(task)).length;
    if (count > 0) parts.push(countLabel(count, one, many));
  }
  return parts.length > 0 ? parts.join(', ') : null;
}

/** A heading of the Running section and the tasks under it, in the order given. */
export interface TaskGroup {
  kind: TaskKind;
  /** "Shells", "Monitors". */
  title: string;
  tasks: TaskRow[];
}

/**
 * The running list split by kind (shells, then monitors, then agents), each keeping the order it
 * was given; null when it holds only one kind, which then shows without headings.
 */
export function groupByKind(tasks: readonly TaskRow[]): TaskGroup[] | null {
  const groups = KINDS.map(({ kind, title }) => ({ kind, title, tasks: tasks.filter((task) => task.kind === kind) }));
  const present = groups.filter((group) => group.tasks.length > 0);
  return present.length > 1 ? present : null;
}

/** The pool names agent tasks agt_N (electron/pool/task-record.ts): known before the list has loaded. */
const AGENT_TASK_ID = /^agt_\d+$/;

/** The task is an agent's: by its row, or while the list loads, by its id. */
export function isAgentTask(task: TaskRow | undefined, taskId: string): boolean {
  return task ? task.kind === 'agent' : AGENT_TASK_ID.test(taskId);
}
