import type { Schedule } from '../../shared/schemas/schedule.js';
import type { TaskRow } from '../../shared/schemas/task.js';

/**
 * What is live in this Drover: work that closing the window must not silently end (issue #18).
 * Running or queued tasks, monitors and background agents stop when Drover quits, and so does a
 * reply the agent is writing in a conversation (the turn is cut off); schedules, loops and
 * durable jobs that would fire do not run while it is closed (they are kept, not stopped). The
 * desktop app keeps running in the tray while any of it is live, and asks before quitting.
 * Plain Node, read from memory: it runs inside the window's close handler.
 */
export const LIVE_KINDS = ['task', 'monitor', 'agent', 'reply', 'schedule'] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];
/** The kinds that quitting stops (a schedule is kept, and only does not fire while Drover is closed). */
const STOPPED_KINDS = ['task', 'monitor', 'agent', 'reply'] as const satisfies readonly LiveKind[];
const TASK_KINDS = ['task', 'monitor', 'agent'] as const satisfies readonly LiveKind[];

export interface LiveWork {
  total: number;
  counts: Record<LiveKind, number>;
  /** Of the tasks, monitors and agents counted, how many wait for room to start. */
  waiting: number;
  /** One line per item, for a person: `npm run dev (session “Fix login”)`. */
  items: string[];
}

/** The pool's unsettled tasks of this run, read from memory (never a session's whole history from the store). */
export type LivePool = { liveRows(): readonly TaskRow[] };

/** What live-work reads; the services satisfy it. */
export interface LiveWorkSources {
  sessions: { list(): readonly { id: string; title: string }[] };
  pool: LivePool;
  /** A turn of the agent is running in the session (the model is mid-reply). */
  agent: { isBusy(sessionId: string): boolean };
  scheduler: { list(sessionId: string | null): readonly Schedule[] } | null;
}

const KIND_OF_TASK: Record<TaskRow['kind'], LiveKind> = { command: 'task', monitor: 'monitor', agent: 'agent' };
const NAMES: Record<LiveKind, [string, string]> = {
  task: ['task', 'tasks'],
  monitor: ['monitor', 'monitors'],
  agent: ['agent', 'agents'],
  reply: ['reply in progress', 'replies in progress'],
  schedule: ['schedule', 'schedules'],
};
/** An item line shows this much of a command or prompt. */
const ITEM_TEXT_MAX = 80;

export function liveWork(sources: LiveWorkSources): LiveWork {
  const counts: Record<LiveKind, number> = { task: 0, monitor: 0, agent: 0, reply: 0, schedule: 0 };
  const lines: Record<LiveKind, string[]> = { task: [], monitor: [], agent: [], reply: [], schedule: [] };
  let waiting = 0;
  const sessions = sources.sessions.list();
  const titles = new Map(sessions.map((session) => [session.id, session.title]));
  const title = (sessionId: string) => titles.get(sessionId) ?? sessionId;
  for (const task of sources.pool.liveRows()) {
    if (task.status !== 'running' && task.status !== 'queued') continue;
    const kind = KIND_OF_TASK[task.kind];
    counts[kind] += 1;
    if (task.status === 'queued') waiting += 1;
    const where = `${task.status === 'queued' ? 'waiting, ' : ''}session “${title(task.sessionId)}”`;
    const prefix = kind === 'monitor' ? 'Monitor: ' : kind === 'agent' ? 'Agent: ' : '';
    lines[kind].push(`${prefix}${shorten(task.command)} (${where})`);
  }
  for (const session of sessions) {
    if (!sources.agent.isBusy(session.id)) continue;
    counts.reply += 1;
    lines.reply.push(`Reply in progress (session “${session.title}”)`);
  }
  if (sources.scheduler) {
    const owners: (string | null)[] = [...sessions.map((session) => session.id), null];
    for (const owner of owners) {
      for (const schedule of sources.scheduler.list(owner)) {
        if (!willFire(schedule)) continue;
        counts.schedule += 1;
        const what = schedule.prompt ? shorten(schedule.prompt) : 'the maintenance task';
        const where = owner === null ? 'on this machine' : `session “${title(owner)}”`;
        lines.schedule.push(`${schedule.label}: ${what} (${where})`);
      }
    }
  }
  const items = LIVE_KINDS.flatMap((kind) => lines[kind]);
  return { total: items.length, counts, waiting, items };
}

/**
 * A schedule fires by itself unless paused, held for the person's word after a restart, or a
 * missed durable one-off waiting to be confirmed. A self-paced loop between iterations has no
 * time yet but will choose one.
 */
function willFire(schedule: Schedule): boolean {
  if (schedule.paused || schedule.held || schedule.needsConfirmation) return false;
  return schedule.nextFireAt !== null || schedule.kind === 'self_paced';
}

/** "3 tasks, 1 monitor and 2 agents" for the kinds given (none counted: ""). */
export function countWords(counts: Record<LiveKind, number>, kinds: readonly LiveKind[] = LIVE_KINDS): string {
  const parts = kinds.filter((kind) => counts[kind] > 0).map((kind) => count(counts[kind], kind));
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/**
 * The quit dialog's question. "3 tasks are running: stop them and quit?"; with some queued,
 * "running or waiting"; a schedule is not stopped by quitting, so alone it asks "quit anyway?".
 */
export function quitQuestion(work: LiveWork): string {
  const running = sum(work, TASK_KINDS);
  const replies = work.counts.reply;
  const clauses: string[] = [];
  if (running > 0)
    clauses.push(
      `${countWords(work.counts, TASK_KINDS)} ${be(running)} running${work.waiting > 0 ? ' or waiting' : ''}`,
    );
  if (replies > 0) clauses.push(`${replies} ${replies === 1 ? 'reply is' : 'replies are'} in progress`);
  if (clauses.length > 0) return `${clauses.join(' and ')}: stop ${them(running + replies)} and quit?`;
  return `${count(work.counts.schedule, 'schedule')} ${be(work.counts.schedule)} set to run: quit anyway?`;
}

/** The confirming button of the quit dialog. */
export function quitButton(work: LiveWork): string {
  const stopped = sum(work, STOPPED_KINDS);
  return stopped > 0 ? `Stop ${them(stopped)} and quit` : 'Quit';
}

/** Said under the quit question's list when schedules would fire: they are kept, but do not run while closed. */
export function schedulesNote(work: LiveWork): string | null {
  if (work.counts.schedule === 0) return null;
  return work.counts.schedule === 1
    ? 'The schedule is kept, but does not run while Drover is closed.'
    : 'Schedules are kept, but do not run while Drover is closed.';
}

/** The once-per-run notice that closing the window did not quit. */
export function trayNotice(work: LiveWork, place: string): { title: string; body: string } {
  return {
    title: 'Drover is still running',
    body: `Drover is still running in the ${place}, with ${countWords(work.counts)}. To quit, choose Quit Drover there.`,
  };
}

function sum(work: LiveWork, kinds: readonly LiveKind[]): number {
  return kinds.reduce((total, kind) => total + work.counts[kind], 0);
}

function count(n: number, kind: LiveKind): string {
  return `${n} ${NAMES[kind][n === 1 ? 0 : 1]}`;
}

function be(n: number): string {
  return n === 1 ? 'is' : 'are';
}

function them(n: number): string {
  return n === 1 ? 'it' : 'them';
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > ITEM_TEXT_MAX ? `${line.slice(0, ITEM_TEXT_MAX - 1)}…` : line;
}
