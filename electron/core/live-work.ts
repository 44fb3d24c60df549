import type { Schedule } from '../../shared/schemas/schedule.js';
import type { TaskRow } from '../../shared/schemas/task.js';

/**
 * What is live in this Drover: work that closing the window must not silently end (issue #18).
 * Running or queued tasks, monitors and background agents stop when Drover quits; schedules,
 * loops and durable jobs that would fire do not run while it is closed. The desktop app keeps
 * running in the tray while any of it is live, and asks before quitting. Plain Node.
 */
export const LIVE_KINDS = ['task', 'monitor', 'agent', 'schedule'] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];

export interface LiveWork {
  total: number;
  counts: Record<LiveKind, number>;
  /** One line per item, for a person: `npm run dev (session “Fix login”)`. */
  items: string[];
}

/** What live-work reads; the services satisfy it. */
export interface LiveWorkSources {
  sessions: { list(): readonly { id: string; title: string }[] };
  pool: { list(sessionId: string): readonly TaskRow[] };
  scheduler: { list(sessionId: string | null): readonly Schedule[] } | null;
}

const KIND_OF_TASK: Record<TaskRow['kind'], LiveKind> = { command: 'task', monitor: 'monitor', agent: 'agent' };
const NAMES: Record<LiveKind, [string, string]> = {
  task: ['task', 'tasks'],
  monitor: ['monitor', 'monitors'],
  agent: ['agent', 'agents'],
  schedule: ['schedule', 'schedules'],
};
/** An item line shows this much of a command or prompt. */
const ITEM_TEXT_MAX = 80;

export function liveWork(sources: LiveWorkSources): LiveWork {
  const counts: Record<LiveKind, number> = { task: 0, monitor: 0, agent: 0, schedule: 0 };
  const lines: Record<LiveKind, string[]> = { task: [], monitor: [], agent: [], schedule: [] };
  const sessions = sources.sessions.list();
  for (const session of sessions) {
    for (const task of sources.pool.list(session.id)) {
      if (task.status !== 'running' && task.status !== 'queued') continue;
      const kind = KIND_OF_TASK[task.kind];
      counts[kind] += 1;
      const where = `${task.status === 'queued' ? 'queued, ' : ''}session “${session.title}”`;
      const prefix = kind === 'monitor' ? 'Monitor: ' : kind === 'agent' ? 'Agent: ' : '';
      lines[kind].push(`${prefix}${shorten(task.command)} (${where})`);
    }
  }
  if (sources.scheduler) {
    const owners: (string | null)[] = [...sessions.map((session) => session.id), null];
    const titles = new Map(sessions.map((session) => [session.id, session.title]));
    for (const owner of owners) {
      for (const schedule of sources.scheduler.list(owner)) {
        if (!willFire(schedule)) continue;
        counts.schedule += 1;
        const what = schedule.prompt ? shorten(schedule.prompt) : 'the maintenance task';
        const where = owner === null ? 'on this machine' : `session “${titles.get(owner) ?? owner}”`;
        lines.schedule.push(`${schedule.label}: ${what} (${where})`);
      }
    }
  }
  const items = LIVE_KINDS.flatMap((kind) => lines[kind]);
  return { total: items.length, counts, items };
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

/** The quit dialog's question: "3 tasks are running: stop them and quit?" */
export function quitQuestion(work: LiveWork): string {
  const running = work.counts.task + work.counts.monitor + work.counts.agent;
  const clauses: string[] = [];
  if (running > 0) clauses.push(`${countWords(work.counts, ['task', 'monitor', 'agent'])} ${be(running)} running`);
  if (work.counts.schedule > 0)
    clauses.push(`${count(work.counts.schedule, 'schedule')} ${be(work.counts.schedule)} set to run`);
  return `${clauses.join(' and ')}: stop ${them(work.total)} and quit?`;
}

/** The confirming button of the quit dialog. */
export function quitButton(work: LiveWork): string {
  return `Stop ${them(work.total)} and quit`;
}

/** The once-per-run notice that closing the window did not quit. */
export function trayNotice(work: LiveWork, place: string): { title: string; body: string } {
  return {
    title: 'Drover is still running',
    body: `Drover keeps running ${countWords(work.counts)} in the ${place}. Choose Quit Drover there to stop ${them(work.total)}.`,
  };
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
