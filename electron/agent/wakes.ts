import type { TaskRow } from '../../shared/schemas/task.js';
import { isSettled } from '../../shared/schemas/task.js';
import { agentStatusOf } from '../../shared/schemas/subagent.js';
import { formatDuration } from '../pool/adoption.js';
import { wakeMessage, type WakeNotices } from './prompt.js';
import { didNotSucceed, exitWords } from './task-words.js';
import { blockedReasonFor } from '../work/work-links.js';

/** Tasks ending within this window of each other cost one turn. */
export const WAKE_SETTLE_MS = 750;

export interface WakeDeps {
  /** Starts an automated turn; it waits for any turn in flight. `notices` go back (putBack) if it is refused. */
  wake(sessionId: string, text: string, notices: WakeNotices): void;
  /** True while Drover shuts down: a stop during drain is terminal and wakes nothing. */
  shuttingDown(): boolean;
  /**
   * The session's budget for unattended turns has room. When it is spent, what would wake the
   * session waits, gathered, and is told in one turn once the budget opens again (`release`).
   */
  allowed: (sessionId: string) => boolean;
  log: (message: string) => void;
}

/**
 * Starts a turn when something the agent asked to hear about happens: a task that asked for it
 * (notify_on_finish, or a monitor) reaches a terminal state, a monitor's check is due, a task
 * that declared readiness is ready or died first. Plain statements, never output. A burst costs
 * one turn; each turn draws from the session's budget for unattended turns, which stops a loop of
 * self-renewing wakes.
 */
export class WakeScheduler {
  readonly #deps: WakeDeps;
  readonly #pending = new Map<string, { notices: WakeNotices; timer: NodeJS.Timeout }>();
  /** `ended:bg_1`, `ready:bg_1`, `ping:mon_2`: each is told once. */
  readonly #announced = new Set<string>();
  /** What came while the session's budget was spent, gathered for one turn when it opens. */
  readonly #waiting = new Map<string, WakeNotices>();
  /** Tasks that ended before this run began were told of by the run they ended in (a row saved again, say for its read offset, is not news). */
  readonly #since = Date.now();

  constructor(deps: WakeDeps) {
    this.#deps = deps;
  }

  /** Feed every task change: settled notifying tasks and readiness matter. */
  onTaskChanged(row: TaskRow): void {
    if (row.status === 'orphaned' || row.status === 'lost') return;
    const settled = isSettled(row.status);
    if (settled && row.endedAt !== null && Date.parse(row.endedAt) < this.#since) return;
    if (row.notifyOnReady && (row.ready === true || settled)) {
      // Dying before it was ready is told with the end when the end is told anyway.
      if (row.ready === true) this.#add(row.sessionId, `ready:${row.id}`, 'ready', readyLine(row));
      else if (!row.notifyOnFinish) this.#add(row.sessionId, `ready:${row.id}`, 'ready', describe(row));
    }
    if (row.notifyOnFinish && settled) this.#add(row.sessionId, `ended:${row.id}`, 'ended', describe(row));
  }

  /** A monitor's check is due: the hidden ping, naming it, its pid and its log, never its output. */
  ping(row: TaskRow): void {
    this.#add(row.sessionId, `ping:${row.id}`, 'pings', pingLine(row));
  }

  /** The session's budget opened again: what waited is told in one turn. */
  release(sessionId: string): void {
    const notices = this.#waiting.get(sessionId);
    if (!notices || this.#deps.shuttingDown() || !this.#deps.allowed(sessionId)) return;
    this.#waiting.delete(sessionId);
    this.#deps.wake(sessionId, wakeMessage(notices), notices);
  }

  /**
   * A wake-up's turn was refused when it came to run (the budget ran out while it waited behind
   * another turn): what it told waits again, for the next time the budget opens.
   */
  putBack(sessionId: string, notices: WakeNotices): void {
    this.#hold(sessionId, notices);
  }

  /** Whether wake-ups wait in the session for its budget. */
  waiting(sessionId: string): boolean {
    return this.#waiting.has(sessionId);
  }

  dispose(): void {
    for (const batch of this.#pending.values()) clearTimeout(batch.timer);
    this.#pending.clear();
  }

  #add(sessionId: string, key: string, kind: keyof WakeNotices, line: string): void {
    if (this.#announced.has(key) || this.#deps.shuttingDown()) return;
    this.#announced.add(key);
    const batch = this.#pending.get(sessionId);
    if (batch) {
      batch.notices[kind].push(line);
      return;
    }
    const notices: WakeNotices = { ended: [], pings: [], ready: [] };
    notices[kind].push(line);
    const timer = setTimeout(() => this.#fire(sessionId), WAKE_SETTLE_MS);
    this.#pending.set(sessionId, { notices, timer });
  }

  #fire(sessionId: string): void {
    const batch = this.#pending.get(sessionId);
    this.#pending.delete(sessionId);
    if (!batch || this.#deps.shuttingDown()) return;
    if (!this.#deps.allowed(sessionId)) {
      this.#hold(sessionId, batch.notices);
      return;
    }
    this.#deps.wake(sessionId, wakeMessage(batch.notices), batch.notices);
  }

  #hold(sessionId: string, notices: WakeNotices): void {
    const waiting = this.#waiting.get(sessionId);
    if (waiting) {
      for (const kind of KINDS) waiting[kind].push(...notices[kind]);
      return;
    }
    this.#waiting.set(sessionId, { ended: [...notices.ended], pings: [...notices.pings], ready: [...notices.ready] });
    this.#deps.log(
      `background_wake_capped: session ${sessionId} has spent its budget for unattended turns; wake-ups wait for it`,
    );
  }
}

const KINDS = ['ended', 'pings', 'ready'] as const satisfies readonly (keyof WakeNotices)[];

function shortCommand(row: TaskRow): string {
  return row.command.length > 80 ? `${row.command.slice(0, 77)}…` : row.command;
}

export function describe(row: TaskRow): string {
  if (row.kind === 'agent') return describeAgent(row);
  const parts = [`${row.id} (${shortCommand(row)}): ${row.status}`];
  const exit = exitWords(row);
  if (exit) parts.push(exit);
  if (row.signal && !exit?.includes(row.signal)) parts.push(`signal ${row.signal}`);
  parts.push(`runtime ${formatDuration(row.elapsedSeconds)}`);
  if (row.error) parts.push(`error: ${row.error}`);
  if (row.ready === false) parts.push('it ended before it was ready');
  const blocked = row.workItem && blockedReasonFor(row);
  if (blocked) parts.push(`its work item ${row.workItem!.itemId} is now marked blocked`);
  // A conventional exit (grep's 1: "no matches found") is an answer, told without "did NOT succeed".
  if (row.status !== 'succeeded' && !(row.status === 'failed' && !didNotSucceed(row))) parts.push('did NOT succeed');
  return parts.join(', ');
}

/** An agent's end, never its result: the model collects that with agent_output when it needs it. */
function describeAgent(row: TaskRow): string {
  const status = agentStatusOf(row.status);
  const name = row.agent ? `agent ${row.agent.name}: ` : '';
  const error = row.error ? `, ${row.error}` : '';
  return `${row.id} (${name}${shortCommand(row)}): ${status}${error}, runtime ${formatDuration(row.elapsedSeconds)}; read its result with agent_output`;
}

function readyLine(row: TaskRow): string {
  const took =
    row.readyAt && row.startedAt
      ? ` after ${formatDuration((Date.parse(row.readyAt) - Date.parse(row.startedAt)) / 1000)}`
      : '';
  const ports = row.ports.length > 0 ? `, listening on port ${row.ports.join(', ')}` : '';
  return `${row.id} (${shortCommand(row)}) is ready${took}${ports}; it keeps running.`;
}

function pingLine(row: TaskRow): string {
  const after = row.checkAfterSeconds === null ? '' : ` (${formatDuration(row.checkAfterSeconds)} after its start)`;
  return `${row.id} (${shortCommand(row)}): its check is due${after}; pid ${row.pid ?? 'unknown'}, log ${row.logPath}.`;
}
