import type { Database } from 'better-sqlite3';
import { DEFAULT_SESSION_TITLE, cleanTitleText, type Session, type SessionMode } from '../../shared/schemas/session.js';
import type { Message, MessageSchedule } from '../../shared/schemas/message.js';
import { notFound } from '../../shared/ipc/errors.js';
import type { DroverContract } from '../../shared/contract.js';
import type { EventBus } from '../core/event-bus.js';
import { randomId } from '../core/ids.js';
import { SessionsRepo } from '../store/sessions-repo.js';
import { MessagesRepo, type MessagePatch, type NewMessage } from '../store/messages-repo.js';

/** How much of the first message becomes an untitled session's title. */
export const AUTO_TITLE_MAX = 60;

export interface Clock {
  now(): number;
}

/** Sessions and their transcripts: the one writer for both tables. */
export class SessionsService {
  readonly #db: Database;
  readonly #sessions: SessionsRepo;
  readonly #messages: MessagesRepo;
  readonly #bus: EventBus<DroverContract>;
  readonly #clock: Clock;

  constructor(db: Database, bus: EventBus<DroverContract>, clock: Clock = Date) {
    this.#db = db;
    this.#sessions = new SessionsRepo(db);
    this.#messages = new MessagesRepo(db);
    this.#bus = bus;
    this.#clock = clock;
    // No turn survives a restart: whatever was mid-stream is marked as cut short.
    this.#messages.settleInterrupted();
  }

  list(): Session[] {
    return this.#sessions.list();
  }

  get(id: string): Session {
    const session = this.#sessions.get(id);
    if (!session) throw notFound('session', id);
    return session;
  }

  /** Throws not_found unless the session is stored; cheap whatever the length of its transcript. */
  require(id: string): void {
    if (!this.#sessions.exists(id)) throw notFound('session', id);
  }

  create(title?: string): Session {
    const id = randomId();
    this.#sessions.insert(id, title ?? DEFAULT_SESSION_TITLE, this.#clock.now());
    return this.#announce(id);
  }

  rename(id: string, title: string): Session {
    if (!this.#sessions.rename(id, title, this.#clock.now())) throw notFound('session', id);
    return this.#announce(id);
  }

  /**
   * The person switches between agent and plan mode. A real change leaves a note in the transcript,
   * so the person sees when it happened and the model reads it with the conversation.
   */
  setMode(id: string, mode: SessionMode): Session {
    const session = this.get(id);
    if (session.mode === mode) return session;
    const note = this.#db.transaction(() => {
      this.#sessions.setMode(id, mode);
      return this.#messages.insert({ sessionId: id, role: 'system', text: MODE_NOTES[mode], now: this.#clock.now() });
    })();
    this.#bus.emit('messageAdded', { message: note });
    return this.#announce(id);
  }

  delete(id: string): { id: string } {
    if (!this.#sessions.delete(id)) throw notFound('session', id);
    this.#bus.emit('sessionDeleted', { id });
    return { id };
  }

  /** The transcript, oldest first; with a limit, its newest messages (before `beforeId`). */
  messages(sessionId: string, page: { beforeId?: number | undefined; limit?: number | undefined } = {}): Message[] {
    this.get(sessionId);
    if (page.limit === undefined && page.beforeId === undefined) return this.#messages.list(sessionId);
    return this.#messages.page(sessionId, page.limit ?? Number.MAX_SAFE_INTEGER, page.beforeId);
  }

  /** The tool rows that stand for or concern a task, oldest first. */
  rowsOfTask(sessionId: string, taskId: string): Message[] {
    return this.#messages.byTask(sessionId, taskId);
  }

  /** Any transcript row (the agent's text and tool calls); announced to every client. */
  append(message: Omit<NewMessage, 'now'>): Message {
    this.get(message.sessionId);
    const added = this.#messages.insert({ ...message, now: this.#clock.now() });
    this.#bus.emit('messageAdded', { message: added });
    return added;
  }

  /** Changes a row as a turn streams (text growing, a tool call finishing). */
  update(id: number, patch: MessagePatch): Message {
    const message = this.#messages.update(id, patch);
    this.#bus.emit('messageUpdated', { message });
    return message;
  }

  /** Adds the person's message; an untitled session takes its title from the first one. */
  postUserMessage(
    sessionId: string,
    text: string,
    options: { automated?: boolean; schedule?: MessageSchedule } = {},
  ): Message {
    const session = this.get(sessionId);
    const now = this.#clock.now();
    const message = this.#db.transaction(() => {
      const added = this.#messages.insert({
        sessionId,
        role: 'user',
        text,
        now,
        automated: options.automated ?? false,
        schedule: options.schedule ?? null,
      });
      this.#titleOrTouch(session, text, now);
      return added;
    })();
    this.#bus.emit('messageAdded', { message });
    this.#announce(sessionId);
    return message;
  }

  /** A transcript row standing for a task the person started from the composer. */
  addToolMessage(sessionId: string, command: string, taskId: string): Message {
    const now = this.#clock.now();
    const session = this.get(sessionId);
    const message = this.#db.transaction(() => {
      const added = this.#messages.insert({ sessionId, role: 'tool', text: command, now, taskId });
      this.#titleOrTouch(session, command, now);
      return added;
    })();
    this.#bus.emit('messageAdded', { message });
    this.#announce(sessionId);
    return message;
  }

  /** An untitled session takes its title from its first message or shell line; any other just moves up. */
  #titleOrTouch(session: Session, text: string, now: number): void {
    if (session.messageCount === 0 && session.title === DEFAULT_SESSION_TITLE)
      this.#sessions.rename(session.id, titleFrom(text), now);
    else this.#sessions.touch(session.id, now);
  }

  #announce(id: string): Session {
    const session = this.get(id);
    this.#bus.emit('sessionUpserted', { session });
    return session;
  }
}

/** The transcript's note when the person switches mode (read by the model as a note from Drover). */
export const MODE_NOTES: Readonly<Record<SessionMode, string>> = {
  plan: 'Plan mode is on. The agent plans: reading, the work ledger and the checklist work as usual, and background tasks can be started and read, but every command that is not read-only asks the person first, whatever the grants. Only the person can turn plan mode off.',
  agent:
    'Plan mode is off: the person switched back to agent mode. Commands follow the grants and the allowlist again.',
};

/** First line of the text, whitespace collapsed, cut at a word where it can be. */
export function titleFrom(text: string): string {
  const firstLine = text.trim().split('\n')[0]!;
  const line = cleanTitleText(firstLine).replace(/\s+/g, ' ').trim();
  if (line.length <= AUTO_TITLE_MAX) return line || DEFAULT_SESSION_TITLE;
  const cut = line.slice(0, AUTO_TITLE_MAX);
  const space = cut.lastIndexOf(' ');
  return `${(space > AUTO_TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
