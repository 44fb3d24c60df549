import type { Live } from './live-task.js';
import type { PoolPolicy } from './policy.js';
import { inBackground } from './pool-types.js';

/** Background tasks running now: in one session, and across all of them. */
interface RunningCounts {
  session: number;
  total: number;
}

/**
 * Why one more background task of a session cannot run now, or null when it can. The cap is
 * per session (one session's five dev servers never queue another session's work), with a
 * ceiling across sessions on top so many sessions cannot exhaust the machine.
 */
function capacityProblem(counts: RunningCounts, policy: CapPolicy): string | null {
  if (counts.session >= policy.maxConcurrent) {
    return `this session is at its limit (${counts.session} of ${policy.maxConcurrent} background tasks running)`;
  }
  if (counts.total >= policy.maxConcurrentTotal) {
    return `Drover is at its limit across sessions (${counts.total} of ${policy.maxConcurrentTotal} background tasks running)`;
  }
  return null;
}

type CapPolicy = Pick<PoolPolicy, 'maxConcurrent' | 'maxConcurrentTotal' | 'maxAgents'>;

/** Agents hold no process: they have a cap of their own per session, apart from the shells'. */
function agentCapacityProblem(running: number, policy: CapPolicy): string | null {
  return running >= policy.maxAgents
    ? `this session is at its limit of background agents (${running} of ${policy.maxAgents} running)`
    : null;
}

/** The queue of background tasks waiting for room, and the counts the caps are checked against. */
export class Scheduler {
  readonly #queue: Live[] = [];
  readonly #lives: ReadonlyMap<string, Live>;
  readonly #policy: CapPolicy;

  constructor(lives: ReadonlyMap<string, Live>, policy: CapPolicy) {
    this.#lives = lives;
    this.#policy = policy;
  }

  /**
   * Background tasks of this run now running or starting, in one session or in all: processes
   * (shells and monitors), or with `agents` the background agents.
   */
  runningCount(sessionId?: string, agents = false): number {
    let count = 0;
    for (const live of this.#lives.values()) {
      if (sessionId !== undefined && live.record.sessionId !== sessionId) continue;
      if ((live.record.kind === 'agent') !== agents) continue;
      if ((live.launching || live.record.status === 'running') && inBackground(live.record)) count++;
    }
    return count;
  }

  capacityProblem(sessionId: string, kind: Live['record']['kind'] = 'command'): string | null {
    if (kind === 'agent') return agentCapacityProblem(this.runningCount(sessionId, true), this.#policy);
    return capacityProblem({ session: this.runningCount(sessionId), total: this.runningCount() }, this.#policy);
  }

  enqueue(live: Live): void {
    this.#queue.push(live);
  }

  /** Takes a task off the queue; false when it was not waiting there. */
  withdraw(live: Live): boolean {
    const at = this.#queue.indexOf(live);
    if (at < 0) return false;
    this.#queue.splice(at, 1);
    return true;
  }

  /**
   * The queued tasks that may start now, in start order, each marked as starting (so it counts).
   * What runs is counted once, then kept current as tasks are taken: one pass over the queue,
   * however long it is.
   */
  takeStartable(): Live[] {
    const running = new Map<string, { processes: number; agents: number }>();
    let total = 0;
    const countOf = (sessionId: string) => {
      let count = running.get(sessionId);
      if (!count) running.set(sessionId, (count = { processes: 0, agents: 0 }));
      return count;
    };
    for (const live of this.#lives.values()) {
      if (!((live.launching || live.record.status === 'running') && inBackground(live.record))) continue;
      if (live.record.kind === 'agent') countOf(live.record.sessionId).agents++;
      else {
        countOf(live.record.sessionId).processes++;
        total++;
      }
    }
    const taken: Live[] = [];
    for (let i = 0; i < this.#queue.length;) {
      const live = this.#queue[i]!;
      const count = countOf(live.record.sessionId);
      const agent = live.record.kind === 'agent';
      const room = agent
        ? count.agents < this.#policy.maxAgents
        : count.processes < this.#policy.maxConcurrent && total < this.#policy.maxConcurrentTotal;
      if (!room) {
        i++;
        continue;
      }
      this.#queue.splice(i, 1);
      live.launching = true;
      taken.push(live);
      if (agent) count.agents++;
      else {
        count.processes++;
        total++;
      }
    }
    return taken;
  }
}
