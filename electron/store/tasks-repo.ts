import type { Database, Statement } from 'better-sqlite3';
import { z } from 'zod';
import {
  ContainmentSchema,
  MonitorNotifySchema,
  ReadyCheckSchema,
  TaskIdSchema,
  TaskKindSchema,
} from '../../shared/schemas/task.js';
import type { TaskRecord } from '../pool/task-record.js';
import { AgentRowInfoSchema } from '../../shared/schemas/subagent.js';
import { SandboxRefusalSchema } from '../../shared/schemas/sandbox.js';
import { allRows, parseRow, readableRows, type UnreadableRowReport } from './rows.js';

const StoredStatusSchema = z.enum(['queued', 'running', 'succeeded', 'failed', 'timed_out', 'stopped', 'lost']);
const int = z.number().int();
const TaskRowSchema = z.object({
  // A damaged id is never used to name a log folder or a cgroup: the row is reported instead.
  id: TaskIdSchema,
  seq: int,
  session_id: z.string(),
  kind: TaskKindSchema,
  command: z.string(),
  cwd: z.string(),
  status: StoredStatusSchema,
  exit_code: int.nullable(),
  signal: z.string().nullable(),
  exit_note: z.string().nullable(),
  error: z.string().nullable(),
  pid: int.nullable(),
  pgid: int.nullable(),
  process_start: z.string().nullable(),
  boot_id: z.string().nullable(),
  run_id: z.string(),
  queued_at: int,
  started_at: int.nullable(),
  ended_at: int.nullable(),
  seen_at: int.nullable(),
  log_note: z.string().nullable(),
  expected_seconds: int.nullable(),
  timeout_seconds: int,
  notify: int,
  adopted: int,
  foreground: int,
  // Absent before migration 15 (pipes): every task had a terminal then.
  tty: int.default(1),
  // Absent before migration 16 (the sandbox): no task ran in one.
  sandboxed: int.default(0),
  sandbox_refusals: z.string().nullable().default(null),
  log_path: z.string(),
  mark: z.string().nullable(),
  containment: ContainmentSchema.nullable(),
  containment_note: z.string().nullable(),
  cgroup: z.string().nullable(),
  members: z.string().nullable(),
  // Read leniently: a damaged mode must not hide the whole task (its log, its leftovers); it reads as none.
  notify_mode: z.string().nullable(),
  check_after_seconds: int.nullable(),
  pinged_at: int.nullable(),
  event_offset: int.nonnegative(),
  ready_check: z.string().nullable(),
  ready_at: int.nullable(),
  notify_ready: int,
  work_list_id: z.string().nullable(),
  work_item_id: int.nullable(),
  owner_task_id: z.string().nullable(),
  // Read leniently: damaged agent facts read as none, the task itself stays.
  agent_info: z.string().nullable(),
});

const MembersSchema = z.array(z.object({ pid: int.positive(), created: z.string().regex(/^\d+$/) }));

/** The declared readiness check; a damaged one reads as none (the task is then never waited on). */
function parseReadyCheck(text: string | null): TaskRecord['readyCheck'] {
  if (!text) return null;
  try {
    const parsed = ReadyCheckSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The recorded Windows members; a damaged list proves nothing, so it reads as none. */
function parseMembers(text: string | null): TaskRecord['members'] {
  if (!text) return [];
  try {
    const parsed = MembersSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/** The refusals the sandbox recorded; a damaged list reads as none (the task itself stays). */
function parseRefusals(text: string | null): TaskRecord['sandboxRefusals'] {
  if (!text) return [];
  try {
    const parsed = z.array(SandboxRefusalSchema).safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

const COLUMNS = Object.keys(TaskRowSchema.shape);

function toRecord(row: unknown): TaskRecord {
  const r = parseRow(TaskRowSchema, 'task', row);
  return {
    id: r.id,
    seq: r.seq,
    sessionId: r.session_id,
    kind: r.kind,
    command: r.command,
    cwd: r.cwd,
    status: r.status,
    exitCode: r.exit_code,
    signal: r.signal,
    exitNote: r.exit_note,
    error: r.error,
    pid: r.pid,
    pgid: r.pgid,
    processStart: r.process_start,
    bootId: r.boot_id,
    runId: r.run_id,
    queuedAt: r.queued_at,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    seenAt: r.seen_at,
    logNote: r.log_note,
    expectedSeconds: r.expected_seconds,
    timeoutSeconds: r.timeout_seconds,
    notify: r.notify === 1,
    adopted: r.adopted === 1,
    foreground: r.foreground === 1,
    tty: r.tty === 1,
    sandboxed: r.sandboxed === 1,
    sandboxRefusals: parseRefusals(r.sandbox_refusals),
    logPath: r.log_path,
    mark: r.mark,
    containment: r.containment,
    containmentNote: r.containment_note,
    cgroup: r.cgroup,
    members: parseMembers(r.members),
    notifyMode: MonitorNotifySchema.safeParse(r.notify_mode).data ?? null,
    checkAfterSeconds: r.check_after_seconds,
    pingedAt: r.pinged_at,
    eventOffset: r.event_offset,
    readyCheck: parseReadyCheck(r.ready_check),
    readyAt: r.ready_at,
    notifyReady: r.notify_ready === 1,
    workItem:
      r.work_list_id !== null && r.work_item_id !== null ? { listId: r.work_list_id, itemId: r.work_item_id } : null,
    ownerTaskId: TaskIdSchema.safeParse(r.owner_task_id).data ?? null,
    agentInfo: parseAgentInfo(r.agent_info),
  };
}

function parseAgentInfo(text: string | null): TaskRecord['agentInfo'] {
  if (!text) return null;
  try {
    return AgentRowInfoSchema.safeParse(JSON.parse(text)).data ?? null;
  } catch {
    return null;
  }
}

function toParams(record: TaskRecord): Record<string, unknown> {
  return {
    id: record.id,
    seq: record.seq,
    session_id: record.sessionId,
    kind: record.kind,
    command: record.command,
    cwd: record.cwd,
    status: record.status,
    exit_code: record.exitCode,
    signal: record.signal,
    exit_note: record.exitNote,
    error: record.error,
    pid: record.pid,
    pgid: record.pgid,
    process_start: record.processStart,
    boot_id: record.bootId,
    run_id: record.runId,
    queued_at: record.queuedAt,
    started_at: record.startedAt,
    ended_at: record.endedAt,
    seen_at: record.seenAt,
    log_note: record.logNote,
    expected_seconds: record.expectedSeconds,
    timeout_seconds: record.timeoutSeconds,
    notify: record.notify ? 1 : 0,
    adopted: record.adopted ? 1 : 0,
    foreground: record.foreground ? 1 : 0,
    tty: record.tty ? 1 : 0,
    sandboxed: record.sandboxed ? 1 : 0,
    sandbox_refusals: record.sandboxRefusals.length > 0 ? JSON.stringify(record.sandboxRefusals) : null,
    log_path: record.logPath,
    mark: record.mark,
    containment: record.containment,
    containment_note: record.containmentNote,
    cgroup: record.cgroup,
    members: record.members.length > 0 ? JSON.stringify(record.members) : null,
    notify_mode: record.notifyMode,
    check_after_seconds: record.checkAfterSeconds,
    pinged_at: record.pingedAt,
    event_offset: record.eventOffset,
    ready_check: record.readyCheck ? JSON.stringify(record.readyCheck) : null,
    ready_at: record.readyAt,
    notify_ready: record.notifyReady ? 1 : 0,
    work_list_id: record.workItem?.listId ?? null,
    work_item_id: record.workItem?.itemId ?? null,
    owner_task_id: record.ownerTaskId,
    agent_info: record.agentInfo ? JSON.stringify(record.agentInfo) : null,
  };
}

const TASK_COUNTER = 'task_seq';

/** Task rows. The pool is their only writer. */
export class TasksRepo {
  readonly #db: Database;
  readonly #insert: Statement;
  readonly #update: Statement;
  readonly #bySession: Statement;
  readonly #get: Statement;
  readonly #delete: Statement;
  readonly #counter: Statement;
  readonly #setCounter: Statement;
  readonly #maxSeq: Statement;
  readonly #seen: Statement;
  readonly #unsettledElsewhere: Statement;

  constructor(db: Database) {
    this.#db = db;
    this.#insert = db.prepare(
      `INSERT INTO tasks (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
    );
    this.#update = db.prepare(
      `UPDATE tasks SET ${COLUMNS.filter((c) => c !== 'id')
        .map((c) => `${c} = @${c}`)
        .join(', ')} WHERE id = @id`,
    );
    this.#bySession = db.prepare(`SELECT ${COLUMNS.join(', ')} FROM tasks WHERE session_id = ? ORDER BY seq`);
    this.#get = db.prepare(`SELECT ${COLUMNS.join(', ')} FROM tasks WHERE id = ?`);
    this.#delete = db.prepare('DELETE FROM tasks WHERE id = ?');
    this.#counter = db.prepare('SELECT value FROM counters WHERE name = ?');
    this.#setCounter = db.prepare(
      'INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
    this.#maxSeq = db.prepare('SELECT coalesce(max(seq), 0) AS value FROM tasks');
    this.#seen = db.prepare('UPDATE tasks SET seen_at = ? WHERE id = ?');
    this.#unsettledElsewhere = db.prepare(
      `SELECT ${COLUMNS.join(', ')} FROM tasks WHERE status IN ('running', 'queued') AND run_id <> ? ORDER BY seq`,
    );
  }

  /** The next sequence number: past every id ever stored, cleared ones included. */
  nextSeq(): number {
    const counted = (this.#counter.get(TASK_COUNTER) as { value: number } | undefined)?.value ?? 0;
    const stored = (this.#maxSeq.get() as { value: number }).value;
    const next = Math.max(counted, stored) + 1;
    this.#setCounter.run(TASK_COUNTER, next);
    return next;
  }

  insert(record: TaskRecord): void {
    this.#insert.run(toParams(record));
  }

  /** Takes the next sequence number and stores the record built from it, in one transaction. */
  create(build: (seq: number) => TaskRecord): TaskRecord {
    return this.#db.transaction(() => {
      const record = build(this.nextSeq());
      this.insert(record);
      return record;
    })();
  }

  update(record: TaskRecord): void {
    this.#update.run(toParams(record));
  }

  /**
   * Every readable task of a session. A damaged row is reported through `onUnreadable`
   * and left in place; the others still load.
   */
  listBySession(sessionId: string, onUnreadable: UnreadableRowReport): TaskRecord[] {
    return readableRows(allRows(this.#bySession, sessionId), toRecord, onUnreadable);
  }

  get(id: string): TaskRecord | undefined {
    const row = this.#get.get(id);
    return row === undefined ? undefined : toRecord(row);
  }

  /** The heartbeat: these tasks were seen alive at `at`; one transaction for all of them. */
  seen(ids: readonly string[], at: number): void {
    this.#db.transaction(() => {
      for (const id of ids) this.#seen.run(at, id);
    })();
  }

  /** Records of other runs still claiming to run or wait, in every session; damaged rows are reported, not returned. */
  unsettledOfOtherRuns(runId: string, onUnreadable: UnreadableRowReport): TaskRecord[] {
    return readableRows(this.#unsettledElsewhere.all(runId), toRecord, onUnreadable);
  }

  deleteMany(ids: readonly string[]): void {
    this.#db.transaction(() => {
      for (const id of ids) this.#delete.run(id);
    })();
  }
}
