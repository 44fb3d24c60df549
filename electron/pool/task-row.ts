import type { TaskRow, TaskStatus } from '../../shared/schemas/task.js';
import type { TaskRecord } from './task-record.js';
import { isoTime } from '../core/iso-time.js';

export interface RowContext {
  now: number;
  /** The current app run: a record of another run still claiming to run is orphaned. */
  runId: string;
  lastOutputAt: number | null;
  silentAfterMs: number;
  /** An orphaned record whose processes are provably still running. */
  leftover?: boolean;
  /** For an orphaned record: what became of its processes, in words. */
  orphanNote?: string | null;
  /** Running, with its shell gone and other processes of it still running. */
  leaderExited?: boolean;
  /** The TCP ports its processes listen on now (the port index). */
  ports?: number[];
}

/** What clients see of a record: status derived, clock arithmetic done here, private identity left out. */
export function toTaskRow(record: TaskRecord, context: RowContext): TaskRow {
  const status = derivedStatus(record, context.runId);
  const running = status === 'running';
  const startedAt = record.startedAt;
  const end = running || status === 'orphaned' || record.endedAt === null ? context.now : record.endedAt;
  const elapsedSeconds = startedAt === null ? 0 : Math.max(0, Math.round((end - startedAt) / 100) / 10);
  let silentForSeconds: number | null = null;
  if (running && startedAt !== null) {
    const quietMs = context.now - (context.lastOutputAt ?? startedAt);
    if (quietMs >= context.silentAfterMs) silentForSeconds = Math.floor(quietMs / 1000);
  }
  return {
    id: record.id,
    sessionId: record.sessionId,
    kind: record.kind,
    status,
    command: record.command,
    cwd: record.cwd,
    exitCode: record.exitCode,
    signal: record.signal,
    exitNote: status === 'orphaned' ? (context.orphanNote ?? record.exitNote) : record.exitNote,
    error: record.error,
    pid: record.pid,
    queuedAt: isoTime(record.queuedAt),
    startedAt: startedAt === null ? null : isoTime(startedAt),
    endedAt: record.endedAt === null ? null : isoTime(record.endedAt),
    elapsedSeconds,
    expectedSeconds: record.expectedSeconds,
    timeoutSeconds: record.timeoutSeconds,
    overdue: running && record.expectedSeconds !== null && elapsedSeconds > record.expectedSeconds,
    running,
    silentForSeconds,
    // The first output can arrive before the start is recorded; it never reads as earlier than the start.
    lastOutputAt:
      running && context.lastOutputAt !== null
        ? isoTime(Math.max(context.lastOutputAt, startedAt ?? context.lastOutputAt))
        : null,
    notifyOnFinish: record.notify,
    adopted: record.adopted,
    foreground: record.foreground,
    tty: record.tty,
    sandboxed: record.sandboxed,
    sandboxRefusals: record.sandboxRefusals,
    leftover: status === 'orphaned' && (context.leftover ?? false),
    containment: record.containment,
    containmentNote: record.containmentNote,
    leaderExited: running && (context.leaderExited ?? false),
    logPath: record.logPath,
    logNote: record.logNote,
    notifyMode: record.notifyMode,
    checkAfterSeconds: record.checkAfterSeconds,
    pingDueAt: running ? pingDue(record) : null,
    pingedAt: record.pingedAt === null ? null : isoTime(record.pingedAt),
    eventOffset: record.eventOffset,
    ports: running ? (context.ports ?? []) : [],
    ready: record.readyCheck === null ? null : record.readyAt !== null,
    readyAt: record.readyAt === null ? null : isoTime(record.readyAt),
    readyCheck: record.readyCheck,
    notifyOnReady: record.notifyReady,
    workItem: record.workItem,
    ownerTaskId: record.ownerTaskId,
    agent: record.agentInfo,
  };
}

/** When a running monitor's scheduled ping is due; null when it was sent or none is scheduled. */
function pingDue(record: TaskRecord): string | null {
  if (record.notifyMode !== 'scheduled' || record.pingedAt !== null || record.startedAt === null) return null;
  if (record.checkAfterSeconds === null) return null;
  return isoTime(record.startedAt + record.checkAfterSeconds * 1000);
}

/** Derived on every read and never written back: the earlier run may be gone, its record stays as it was. */
export function derivedStatus(record: TaskRecord, runId: string): TaskStatus {
  if ((record.status === 'running' || record.status === 'queued') && record.runId !== runId) return 'orphaned';
  return record.status;
}
