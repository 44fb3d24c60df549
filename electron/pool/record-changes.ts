/** What happens to a task record as its task starts, ends, or is found and ended later. */
import { describeExit } from './exit-codes.js';
import { endReasonText, plural, type EndReason } from './pool-types.js';
import type { RunnerExit, RunnerHandle, StuckError } from './runner.js';
import type { TaskRecord } from './task-record.js';

/** Records a task that started: its process identity (private) and how it is held together. */
export function recordStart(record: TaskRecord, handle: RunnerHandle, now: number, bootId: string | null): void {
  record.status = 'running';
  record.startedAt = now;
  record.pid = handle.pid || null;
  record.pgid = handle.pid || null;
  record.processStart = handle.processStartedAt;
  record.bootId = handle.pid ? bootId : null;
  record.seenAt = now;
  record.containment = handle.containment;
  record.containmentNote = handle.containmentNote;
  record.cgroup = handle.cgroup;
}

/** A foreground run handed to the background: no estimate stands behind it, and the limit it just outlived must not be reused, so it gets the maximum. */
export function recordAdopted(record: TaskRecord, maxTimeoutSeconds: number): void {
  record.adopted = true;
  record.notify = false;
  record.timeoutSeconds = maxTimeoutSeconds;
}

export interface TaskEnd {
  exit: RunnerExit;
  /** The task could not start. */
  forced?: 'failed' | undefined;
  /** Why Drover ended it, when it did. */
  reason: EndReason | null;
  detail: string | null;
  logError: Error | null;
  /** Its working directory no longer exists. */
  cwdGone: boolean;
  now: number;
}

/** Records how a task ended: exit code and signal the way a shell reports them, its status, and the note that explains it. */
export function recordEnd(record: TaskRecord, end: TaskEnd): void {
  // An agent is no program: its "command" is its description, and its end says itself why it failed.
  const report =
    record.kind === 'agent'
      ? { exitCode: end.exit.exitCode, signal: null, note: null }
      : describeExit(record.command, end.exit.exitCode, end.exit.signal);
  if (end.exit.error) record.error = end.exit.error;
  record.exitCode = report.exitCode;
  record.signal = report.signal;
  record.exitNote = report.note;
  // A clock set back while it ran must not end it before it began.
  record.endedAt = Math.max(end.now, record.startedAt ?? end.now);
  const signal = report.signal ? ` (${report.signal})` : '';
  if (end.forced) record.status = end.forced;
  else if (end.reason === 'timed_out') {
    record.status = 'timed_out';
    record.exitNote = `timed out after ${record.timeoutSeconds} s${signal}`;
  } else if (end.reason) {
    record.status = 'stopped';
    record.exitNote = `${endReasonText(end.reason, end.detail)}${signal}`;
  } else record.status = report.exitCode === 0 && !report.signal ? 'succeeded' : 'failed';
  if (end.logError && !record.error) record.error = `the output log could not be written: ${end.logError.message}`;
  if (end.cwdGone && record.startedAt !== null && record.pid !== null)
    addNote(record, `its working directory ${record.cwd} was removed while it ran`);
}

/** The row's error when processes outlived SIGKILL: the task stays watched and settles when they end. */
export function stuckText(error: StuckError): string {
  return `It did not end: ${error.message}. Drover keeps watching it and records its end when it comes.`;
}

/** Names the processes found outside the task's container by its mark and ended with it. */
export function noteOutside(record: TaskRecord, pids: readonly number[]): void {
  const where = record.containment === 'cgroup' ? 'cgroup' : 'group';
  addNote(
    record,
    `also ended ${plural(pids.length, 'process', 'processes')} that had left its ${where}: ${pids.join(', ')}`,
  );
}

/** A leftover of an earlier run that this run ended: the record stops claiming to run. */
export function recordReaped(record: TaskRecord, ended: readonly number[], now: number): void {
  record.status = 'stopped';
  record.endedAt = Math.max(now, record.startedAt ?? now);
  record.exitNote = `ended as a leftover of an earlier run (${plural(ended.length, 'process', 'processes')}: ${ended.join(', ')})`;
}

/** The words a lost task carries: an earlier Drover died while it ran (or before it started), and it runs no more. */
export const LOST_RUNNING_NOTE = 'Drover stopped while this task ran; it is no longer running';
export const LOST_QUEUED_NOTE = 'Drover stopped before this task started; it never ran';

/**
 * An orphan whose processes are proven gone: settled once, ended at the last moment a Drover saw
 * it alive (the heartbeat, else its start), so its elapsed time stops growing.
 */
export function recordLost(record: TaskRecord, lastSeenAlive: number | null): void {
  const started = record.startedAt !== null && record.pid !== null;
  record.status = 'lost';
  record.endedAt = started
    ? Math.max(record.startedAt!, lastSeenAlive ?? record.seenAt ?? record.startedAt!)
    : record.queuedAt;
  record.exitNote = started ? LOST_RUNNING_NOTE : LOST_QUEUED_NOTE;
}

/**
 * Why a log stopped growing, or what it misses: the task keeps running while the disk is full (its
 * output still reaches the live view), and the log says how much of it was not kept.
 */
export function noteLogGap(
  record: TaskRecord,
  folder: string,
  log: { waitingSince: number | null; missedBytes: number },
  ended = false,
): void {
  const missed = log.missedBytes > 0 ? `${bytesText(log.missedBytes)} of its output was not saved` : '';
  if (log.waitingSince !== null && ended) {
    record.logNote = `The disk holding ${folder} was full: its log stopped at ${bytesText(log.waitingSince)}${missed ? ` and the remaining ${missed}` : ''}.`;
  } else if (log.waitingSince !== null) {
    record.logNote = `The disk holding ${folder} is full: its log stopped at ${bytesText(log.waitingSince)} and its output is not being saved${missed ? ` (${missed} so far)` : ''}.`;
  } else if (missed) {
    record.logNote = `The disk holding ${folder} was full: ${missed}; its log misses that part.`;
  }
}

/** The log file was removed or cut short under the task (someone else did it): what it holds is not all it printed. */
export function noteLogDamage(record: TaskRecord, damage: 'removed' | 'shortened' | null): void {
  if (damage === 'removed') record.logNote = 'Its log file was removed while it ran, so its output was not kept.';
  else if (damage === 'shortened')
    record.logNote = 'Its log file was cut short while it ran, so it holds only part of its output.';
}

/** 1536 -> "1.5 KiB"; exact below a kibibyte. */
export function bytesText(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

function addNote(record: TaskRecord, note: string): void {
  record.exitNote = record.exitNote ? `${record.exitNote}; ${note}` : note;
}
