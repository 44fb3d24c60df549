import type { ReadyCheck, TaskRow } from '@shared/schemas/task.js';
import { bytesLabel, durationLabel, elapsedLabel, messageTime } from './format.js';

/**
 * How and when a monitor wakes the agent, in a person's words: "next check in 32 s" (a countdown
 * by the local clock), "checked 14:02" once the ping went, "wakes the agent at exit", "never
 * wakes the agent", "ended before its check was due". Null for other tasks.
 */
export function monitorScheduleText(
  task: Pick<TaskRow, 'kind' | 'status' | 'notifyMode' | 'checkAfterSeconds' | 'pingDueAt' | 'pingedAt'>,
  now: number,
): string | null {
  if (task.kind !== 'monitor') return null;
  const live = task.status === 'running' || task.status === 'queued';
  // An earlier run's monitor (orphaned) is watched by nobody now: no schedule to show.
  if (task.status === 'orphaned') return null;
  if (task.notifyMode === 'exit') return live ? 'wakes the agent at exit' : null;
  if (task.notifyMode === 'none') return live ? 'never wakes the agent' : null;
  if (task.pingedAt) return `checked ${messageTime(task.pingedAt, now)}`;
  if (task.status === 'queued')
    return task.checkAfterSeconds ? `checks ${durationLabel(task.checkAfterSeconds)} after it starts` : null;
  if (task.status !== 'running') return 'ended before its check was due';
  if (!task.pingDueAt) return null;
  const left = (Date.parse(task.pingDueAt) - now) / 1000;
  if (Number.isNaN(left)) return null;
  // Rounded up, so the countdown reads "1 s" in its last second and "due now" only once it is.
  return left > 0 ? `next check in ${elapsedLabel(Math.ceil(left))}` : 'check due now';
}

/** One condition of a readiness check: fixed words around a value the model or a child chose (shown as text only). */
export interface ReadyCheckPart {
  before: string;
  value: string;
  after: string;
}

/** What counts as ready, in words: "port 3000 listens", "http://127.0.0.1:3000/ answers", "output matches Local:.*http". */
export function readyCheckParts(check: ReadyCheck | null): ReadyCheckPart[] {
  if (!check) return [];
  const parts: ReadyCheckPart[] = [];
  if (check.port !== undefined) parts.push({ before: 'port ', value: String(check.port), after: ' listens' });
  if (check.http !== undefined) parts.push({ before: '', value: check.http, after: ' answers' });
  if (check.pattern !== undefined) parts.push({ before: 'output matches ', value: check.pattern, after: '' });
  return parts;
}

export type ReadinessState = 'waiting' | 'ready' | 'unready';

export interface Readiness {
  state: ReadinessState;
  /** "waiting until ready", "ready in 4 s", "ready", "ended before it was ready". */
  text: string;
}

/** A task's readiness, in words; null when it declared no check. */
export function readiness(task: Pick<TaskRow, 'status' | 'ready' | 'readyAt' | 'startedAt'>): Readiness | null {
  if (task.ready === null) return null;
  if (task.ready) {
    const from = task.startedAt ? Date.parse(task.startedAt) : Number.NaN;
    const to = task.readyAt ? Date.parse(task.readyAt) : Number.NaN;
    const text = Number.isNaN(from) || Number.isNaN(to) ? 'ready' : `ready in ${elapsedLabel((to - from) / 1000)}`;
    return { state: 'ready', text };
  }
  if (task.status === 'running' || task.status === 'queued') return { state: 'waiting', text: 'waiting until ready' };
  return { state: 'unready', text: 'ended before it was ready' };
}

/** A listening port's chip and its tooltip. */
export function portLabel(port: number): { label: string; title: string } {
  return { label: `:${port}`, title: `Listening on TCP port ${port}` };
}

/** What the model's monitor_events read came to, in the person's words. */
export function eventsReadWords(bytes: number, more: boolean): string {
  if (bytes === 0) return more ? 'No new output read; more is waiting.' : 'No new output.';
  return `Read ${bytesLabel(bytes)} of new output${more ? '; more is waiting' : ''}.`;
}
