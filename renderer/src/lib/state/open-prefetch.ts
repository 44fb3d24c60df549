import type { Message, Session, TaskRow } from '@shared/contract.js';
import { FINISHED_PAGE_DEFAULT, MESSAGE_FIRST_PAGE } from '@shared/domain/page-sizes.js';
import type { FinishedFilter } from '@shared/schemas/task-page.js';
import type { DroverApi } from '../api.js';

/** A prefetch nobody took by then (the session did not exist, the person went elsewhere) is dropped. */
const PREFETCH_KEEP_MS = 10_000;

type OpenTasksAnswer = Awaited<ReturnType<DroverApi['openTasks']>>;

/** A first request sent early, with the events of its session that came since it was sent. */
export interface Prefetched<Answer, Event> {
  answer: Promise<Answer>;
  /** The events buffered from the request until it was taken, oldest first. */
  events: readonly Event[];
}

/**
 * The early answer, or a fresh one when there was none or it failed: the connection can drop
 * between boot.ts's request and the page taking it, and the request made now waits for the next
 * connection instead of leaving the page with an error it would not have had.
 */
export function answerOr<Answer>(
  prefetched: Prefetched<Answer, unknown> | null | undefined,
  ask: () => Promise<Answer>,
): Promise<Answer> {
  return prefetched ? prefetched.answer.catch(() => ask()) : ask();
}

export type TaskEvent = { row: TaskRow } | { removed: readonly string[] };

/** A change to the session list: a session added or changed, or one deleted. */
export type SessionEvent = { session: Session } | { deleted: string };

interface Entry {
  sessionId: string;
  messages: Promise<Message[]> | null;
  tasks: Promise<OpenTasksAnswer> | null;
  messageEvents: Message[];
  taskEvents: TaskEvent[];
  stop: () => void;
}

/**
 * The page's first requests, sent by boot.ts before the app's code has loaded (issue 18: opening a
 * big session without a round trip in the way): the session list, and the transcript's and the
 * tasks' first pages of the session the page opens on. Each is taken once, by the state that
 * would have asked, with the events that came meanwhile, so nothing that happened between the
 * request and the taking is lost.
 */
export class OpenPrefetch {
  readonly #api: DroverApi;
  #entry: Entry | null = null;
  #sessions: (Prefetched<Session[], SessionEvent> & { events: SessionEvent[]; stop: () => void }) | null = null;
  /** Every request sent, taken or not: settled() waits for them. */
  readonly #sent: Promise<unknown>[] = [];

  constructor(api: DroverApi) {
    this.#api = api;
  }

  /** Sends the session list's request now: every page shows the list, whatever it opens on. */
  startSessions(): void {
    this.#dropSessions();
    const events: SessionEvent[] = [];
    const offs = [
      this.#api.on('sessionUpserted', ({ session }) => events.push({ session })),
      this.#api.on('sessionDeleted', ({ id }) => events.push({ deleted: id })),
    ];
    const answer = this.#api.listSessions({});
    answer.catch(() => {});
    this.#sent.push(answer);
    this.#sessions = { answer, events, stop: keepFor(offs, () => this.#dropSessions()) };
  }

  /** The session list's first answer, with the changes that came since it was asked, once; null when none was sent or it was dropped. */
  takeSessions(): Prefetched<Session[], SessionEvent> | null {
    const taken = this.#sessions;
    if (!taken) return null;
    this.#dropSessions();
    return { answer: taken.answer, events: taken.events };
  }

  #dropSessions(): void {
    this.#sessions?.stop();
    this.#sessions = null;
  }

  /** Sends the transcript's and the tasks' first requests of this session now. */
  start(sessionId: string): void {
    this.#drop();
    const entry: Entry = { sessionId, messages: null, tasks: null, messageEvents: [], taskEvents: [], stop: () => {} };
    const onMessage = ({ message }: { message: Message }) => {
      if (message.sessionId === sessionId) entry.messageEvents.push(message);
    };
    const offs = [
      this.#api.on('messageAdded', onMessage),
      this.#api.on('messageUpdated', onMessage),
      this.#api.on('taskUpdated', ({ task }) => {
        if (task.sessionId === sessionId) entry.taskEvents.push({ row: task });
      }),
      this.#api.on('tasksCleared', ({ sessionId: id, removed }) => {
        if (id === sessionId) entry.taskEvents.push({ removed });
      }),
    ];
    entry.stop = keepFor(offs, () => this.#drop());
    // One more than the first page shows: the transcript learns from it whether older messages exist.
    entry.messages = this.#api.listMessages({ sessionId, limit: MESSAGE_FIRST_PAGE + 1 });
    entry.tasks = this.#api.openTasks({ sessionId, filter: 'all', limit: FINISHED_PAGE_DEFAULT });
    // A failure is the taker's to report; unhandled until then, it must not reach the console.
    entry.messages.catch(() => {});
    entry.tasks.catch(() => {});
    this.#sent.push(entry.messages, entry.tasks);
    this.#entry = entry;
  }

  /**
   * Resolves once every request sent so far has been answered or has failed: with the app
   * mounted, the answers are on the first screen by then.
   */
  async settled(): Promise<void> {
    await Promise.allSettled(this.#sent);
  }

  /** The transcript's first page of this session, once; null when none was sent. */
  takeMessages(sessionId: string): Prefetched<Message[], Message> | null {
    const entry = this.#entry;
    if (!entry || entry.sessionId !== sessionId || !entry.messages) return null;
    const taken = { answer: entry.messages, events: entry.messageEvents };
    entry.messages = null;
    entry.messageEvents = [];
    this.#release(entry);
    return taken;
  }

  /** The tasks' first answer of this session under `filter`, once; null when none fits. */
  takeTasks(sessionId: string, filter: FinishedFilter): Prefetched<OpenTasksAnswer, TaskEvent> | null {
    const entry = this.#entry;
    if (!entry || entry.sessionId !== sessionId || !entry.tasks || filter !== 'all') return null;
    const taken = { answer: entry.tasks, events: entry.taskEvents };
    entry.tasks = null;
    entry.taskEvents = [];
    this.#release(entry);
    return taken;
  }

  /** Once both were taken, nothing is buffered any more. */
  #release(entry: Entry): void {
    if (entry.messages === null && entry.tasks === null) this.#drop();
  }

  #drop(): void {
    this.#entry?.stop();
    this.#entry = null;
  }
}

/**
 * What was asked early is kept, and its events gathered, for PREFETCH_KEEP_MS at most: then `drop`
 * lets it go. Returns what stops both the wait and the following of the events.
 */
function keepFor(offs: readonly (() => void)[], drop: () => void): () => void {
  const timer = setTimeout(drop, PREFETCH_KEEP_MS);
  return () => {
    clearTimeout(timer);
    for (const off of offs) off();
  };
}
