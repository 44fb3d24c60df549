import type { Database, Statement } from 'better-sqlite3';
import { z } from 'zod';
import type { Schedule, ScheduleKind } from '../../shared/schemas/schedule.js';
import { openSharedDatabase } from '../store/shared-db.js';
import { parseRow, readableRows, reportToConsole, type UnreadableRowReport } from '../store/rows.js';
import { scheduleMigrations } from './schedule-migrations.js';

export const SCHEDULER_DATABASE_FILE = 'scheduler.sqlite';

const Flag = z.union([z.literal(0), z.literal(1)]);
const Time = z.number().int();
const RowSchema = z.object({
  id: z.string(),
  session_id: z.string().nullable(),
  kind: z.enum(['cron', 'loop', 'self_paced']),
  cron: z.string().nullable(),
  prompt: z.string(),
  label: z.string(),
  recurring: Flag,
  durable: Flag,
  created_at: Time,
  expires_at: Time.nullable(),
  next_fire_at: Time.nullable(),
  jitter_ms: z.number().int(),
  final_fire: Flag,
  last_fired_at: Time.nullable(),
  last_result: z.string().nullable(),
  fire_count: z.number().int().nonnegative(),
  paused: Flag,
  safety_check: Flag,
  next_reason: z.string().nullable(),
  run_session_id: z.string().nullable(),
  lease_holder: z.string().nullable(),
  lease_until: Time.nullable(),
  needs_confirmation: Flag,
});

/** A schedule as stored: the client's view plus what only the scheduler reads. */
export interface StoredSchedule {
  id: string;
  sessionId: string | null;
  kind: ScheduleKind;
  cron: string | null;
  prompt: string;
  label: string;
  recurring: boolean;
  durable: boolean;
  createdAt: number;
  expiresAt: number | null;
  nextFireAt: number | null;
  jitterMs: number;
  finalFire: boolean;
  lastFiredAt: number | null;
  lastResult: string | null;
  fireCount: number;
  paused: boolean;
  safetyCheck: boolean;
  nextReason: string | null;
  runSessionId: string | null;
  leaseHolder: string | null;
  leaseUntil: number | null;
  needsConfirmation: boolean;
}

/** The columns a change may set (never the id, the owner or the kind). */
export type SchedulePatch = Partial<
  Pick<
    StoredSchedule,
    | 'nextFireAt'
    | 'finalFire'
    | 'lastFiredAt'
    | 'lastResult'
    | 'fireCount'
    | 'paused'
    | 'safetyCheck'
    | 'nextReason'
    | 'runSessionId'
    | 'needsConfirmation'
    | 'expiresAt'
  >
>;

const COLUMNS: Record<keyof SchedulePatch, string> = {
  nextFireAt: 'next_fire_at',
  finalFire: 'final_fire',
  lastFiredAt: 'last_fired_at',
  lastResult: 'last_result',
  fireCount: 'fire_count',
  paused: 'paused',
  safetyCheck: 'safety_check',
  nextReason: 'next_reason',
  runSessionId: 'run_session_id',
  needsConfirmation: 'needs_confirmation',
  expiresAt: 'expires_at',
};

function toStored(row: unknown): StoredSchedule {
  const r = parseRow(RowSchema, 'schedule', row);
  return {
    id: r.id,
    sessionId: r.session_id,
    kind: r.kind,
    cron: r.cron,
    prompt: r.prompt,
    label: r.label,
    recurring: r.recurring === 1,
    durable: r.durable === 1,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    nextFireAt: r.next_fire_at,
    jitterMs: r.jitter_ms,
    finalFire: r.final_fire === 1,
    lastFiredAt: r.last_fired_at,
    lastResult: r.last_result,
    fireCount: r.fire_count,
    paused: r.paused === 1,
    safetyCheck: r.safety_check === 1,
    nextReason: r.next_reason,
    runSessionId: r.run_session_id,
    leaseHolder: r.lease_holder,
    leaseUntil: r.lease_until,
    needsConfirmation: r.needs_confirmation === 1,
  };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What clients see of a stored schedule. */
export function publicSchedule(schedule: StoredSchedule, held = false): Schedule {
  return {
    id: schedule.id,
    sessionId: schedule.sessionId,
    kind: schedule.kind,
    cron: schedule.cron,
    prompt: schedule.prompt,
    label: schedule.label,
    recurring: schedule.recurring,
    durable: schedule.durable,
    createdAt: new Date(schedule.createdAt).toISOString(),
    expiresAt: iso(schedule.expiresAt),
    nextFireAt: iso(schedule.nextFireAt),
    finalFire: schedule.finalFire,
    lastFiredAt: iso(schedule.lastFiredAt),
    lastResult: schedule.lastResult,
    fireCount: schedule.fireCount,
    paused: schedule.paused,
    held,
    nextReason: schedule.nextReason,
    needsConfirmation: schedule.needsConfirmation,
  };
}

export type NewSchedule = Omit<
  StoredSchedule,
  | 'lastFiredAt'
  | 'lastResult'
  | 'fireCount'
  | 'paused'
  | 'safetyCheck'
  | 'nextReason'
  | 'runSessionId'
  | 'leaseHolder'
  | 'leaseUntil'
  | 'needsConfirmation'
> &
  Partial<Pick<StoredSchedule, 'needsConfirmation' | 'paused' | 'runSessionId'>>;

/**
 * scheduler.sqlite: every schedule, the conversation's and the machine's. Several processes may
 * open it; the one change that must never happen twice (a durable job's run) is claimed under
 * BEGIN IMMEDIATE with a lease.
 */
export class ScheduleStore {
  readonly #db: Database;
  readonly #report: UnreadableRowReport;
  readonly #get: Statement;
  readonly #bySession: Statement;
  readonly #durable: Statement;
  readonly #due: Statement;
  readonly #count: Statement;
  readonly #insert: Statement;
  readonly #delete: Statement;
  readonly #deleteSession: Statement;
  readonly #claim: Statement;
  readonly #renew: Statement;
  readonly #release: Statement;
  readonly #all: Statement;

  constructor(db: Database, report: UnreadableRowReport = reportToConsole) {
    this.#db = db;
    this.#report = report;
    this.#get = db.prepare('SELECT * FROM schedules WHERE id = ?');
    this.#bySession = db.prepare('SELECT * FROM schedules WHERE session_id = ? ORDER BY created_at, id');
    this.#durable = db.prepare('SELECT * FROM schedules WHERE durable = 1 ORDER BY created_at, id');
    this.#all = db.prepare('SELECT * FROM schedules ORDER BY created_at, id');
    this.#due = db.prepare(
      'SELECT * FROM schedules WHERE next_fire_at IS NOT NULL AND next_fire_at <= ? AND paused = 0 AND needs_confirmation = 0 ORDER BY next_fire_at, id',
    );
    // A durable job counts against the conversation that made it.
    this.#count = db.prepare(
      'SELECT count(*) AS n FROM schedules WHERE session_id = @s OR (durable = 1 AND run_session_id = @s)',
    );
    this.#insert = db.prepare(`INSERT INTO schedules
      (id, session_id, kind, cron, prompt, label, recurring, durable, created_at, expires_at, next_fire_at, jitter_ms, final_fire, needs_confirmation, paused, run_session_id)
      VALUES (@id, @session_id, @kind, @cron, @prompt, @label, @recurring, @durable, @created_at, @expires_at, @next_fire_at, @jitter_ms, @final_fire, @needs_confirmation, @paused, @run_session_id)`);
    this.#delete = db.prepare('DELETE FROM schedules WHERE id = ?');
    this.#deleteSession = db.prepare('DELETE FROM schedules WHERE session_id = ?');
    // A run is claimed once: only while it is still due at the time this process saw, and nobody else holds it.
    this.#claim = db.prepare(`UPDATE schedules SET lease_holder = @holder, lease_until = @until
      WHERE id = @id AND next_fire_at = @seen AND (lease_holder IS NULL OR lease_until < @now OR lease_holder = @holder)`);
    this.#renew = db.prepare('UPDATE schedules SET lease_until = ? WHERE id = ? AND lease_holder = ?');
    this.#release = db.prepare(
      'UPDATE schedules SET lease_holder = NULL, lease_until = NULL WHERE id = ? AND lease_holder = ?',
    );
  }

  static open(dataDir: string, options: { nativeBinding?: string; report?: UnreadableRowReport } = {}): ScheduleStore {
    const db = openSharedDatabase(dataDir, SCHEDULER_DATABASE_FILE, scheduleMigrations, options);
    return options.report ? new ScheduleStore(db, options.report) : new ScheduleStore(db);
  }

  get(id: string): StoredSchedule | undefined {
    const row = this.#get.get(id);
    return row === undefined ? undefined : toStored(row);
  }

  forSession(sessionId: string): StoredSchedule[] {
    return readableRows(this.#bySession.all(sessionId), toStored, this.#report);
  }

  durable(): StoredSchedule[] {
    return readableRows(this.#durable.all(), toStored, this.#report);
  }

  all(): StoredSchedule[] {
    return readableRows(this.#all.all(), toStored, this.#report);
  }

  due(now: number): StoredSchedule[] {
    return readableRows(this.#due.all(now), toStored, this.#report);
  }

  count(sessionId: string): number {
    return (this.#count.get({ s: sessionId }) as { n: number }).n;
  }

  /** Adds a schedule if the conversation that makes it has room (counted in the same transaction). */
  insert(schedule: NewSchedule, limit: number): boolean {
    const owner = schedule.sessionId ?? schedule.runSessionId ?? null;
    return this.#db
      .transaction(() => {
        if (owner !== null && this.count(owner) >= limit) return false;
        this.#insert.run({
          id: schedule.id,
          session_id: schedule.sessionId,
          kind: schedule.kind,
          cron: schedule.cron,
          prompt: schedule.prompt,
          label: schedule.label,
          recurring: schedule.recurring ? 1 : 0,
          durable: schedule.durable ? 1 : 0,
          created_at: schedule.createdAt,
          expires_at: schedule.expiresAt,
          next_fire_at: schedule.nextFireAt,
          jitter_ms: schedule.jitterMs,
          final_fire: schedule.finalFire ? 1 : 0,
          needs_confirmation: schedule.needsConfirmation ? 1 : 0,
          paused: schedule.paused ? 1 : 0,
          run_session_id: schedule.runSessionId ?? null,
        });
        return true;
      })
      .immediate();
  }

  update(id: string, patch: SchedulePatch): StoredSchedule | undefined {
    const keys = Object.keys(patch) as (keyof SchedulePatch)[];
    if (keys.length > 0) {
      const values: Record<string, unknown> = { id };
      for (const key of keys) {
        const value = patch[key];
        values[key] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
      }
      this.#db
        .prepare(`UPDATE schedules SET ${keys.map((key) => `${COLUMNS[key]} = @${key}`).join(', ')} WHERE id = @id`)
        .run(values);
    }
    return this.get(id);
  }

  delete(id: string): boolean {
    return this.#delete.run(id).changes > 0;
  }

  deleteSession(sessionId: string): number {
    return this.#deleteSession.run(sessionId).changes;
  }

  /**
   * Takes a due run for `holder`, then applies `after` (the schedule's next state) in the same
   * immediate transaction: of two processes that saw the same run due, exactly one gets it.
   * Answers the schedule as it was claimed, or null when another process had it first.
   */
  claim(
    schedule: StoredSchedule,
    holder: string,
    now: number,
    leaseMs: number,
    after: (claimed: StoredSchedule) => SchedulePatch | 'delete',
  ): StoredSchedule | null {
    return this.#db
      .transaction(() => {
        const taken = this.#claim.run({
          id: schedule.id,
          seen: schedule.nextFireAt,
          holder,
          now,
          until: now + leaseMs,
        }).changes;
        if (taken === 0) return null;
        const claimed = this.get(schedule.id)!;
        const next = after(claimed);
        if (next === 'delete') this.#delete.run(schedule.id);
        else this.update(schedule.id, next);
        return claimed;
      })
      .immediate();
  }

  renewLease(id: string, holder: string, until: number): boolean {
    return this.#renew.run(until, id, holder).changes > 0;
  }

  releaseLease(id: string, holder: string): void {
    this.#release.run(id, holder);
  }

  close(): void {
    this.#db.close();
  }
}
