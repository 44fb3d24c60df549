import { randomBytes } from 'node:crypto';

/** What a ticket lets its holder download: one task's log. */
export interface LogTicketTarget {
  sessionId: string;
  taskId: string;
}

/** Where a ticket is spent: outside /api, because a plain link cannot send the bearer header. */
export const DOWNLOAD_PREFIX = '/download/';
/** 32 random bytes as base64url: 43 characters, nothing else. */
export const DOWNLOAD_PATH = /^\/download\/([A-Za-z0-9_-]{43})$/;

/** Long enough for the page to hand the link to the browser, short enough that a leaked one is dead. */
export const TICKET_TTL_MS = 60_000;
/** Tickets a host keeps at once; a page that keeps asking only pushes its own oldest ones out. */
export const MAX_TICKETS = 64;

export interface DownloadTicketsOptions {
  ttlMs?: number;
  max?: number;
  /** The clock, so tests can expire a ticket without waiting. */
  now?: () => number;
}

/**
 * Single-use download tickets, held in memory by one host server. A browser saves a file to
 * disk as it arrives only when it navigates to (or follows a link to) the file's URL, and such a
 * request carries no Authorization header; the token must never go in that URL either (it
 * would stay in the download history). So a page that holds the token trades it, over an
 * authorised call, for a ticket: a random name that unlocks one download of one task's log,
 * once, for a minute, on this host only.
 */
export class DownloadTickets {
  readonly #tickets = new Map<string, LogTicketTarget & { expires: number }>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: DownloadTicketsOptions = {}) {
    this.#ttlMs = options.ttlMs ?? TICKET_TTL_MS;
    this.#max = options.max ?? MAX_TICKETS;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#tickets.size;
  }

  /** A new ticket for `target`, and the path that spends it. */
  issue(target: LogTicketTarget): { ticket: string; url: string } {
    this.#dropExpired();
    // A Map iterates in insertion order, so its first key is the oldest ticket.
    while (this.#tickets.size >= this.#max) this.#tickets.delete(this.#tickets.keys().next().value!);
    const ticket = randomBytes(32).toString('base64url');
    this.#tickets.set(ticket, {
      sessionId: target.sessionId,
      taskId: target.taskId,
      expires: this.#now() + this.#ttlMs,
    });
    return { ticket, url: `${DOWNLOAD_PREFIX}${ticket}` };
  }

  /**
   * Spends a ticket: its target, or undefined for one unknown, already spent or expired. It is
   * forgotten on the first try, so two requests racing with the same ticket get one download.
   */
  take(ticket: string): LogTicketTarget | undefined {
    const found = this.#tickets.get(ticket);
    if (found === undefined) return undefined;
    this.#tickets.delete(ticket);
    if (this.#now() >= found.expires) return undefined;
    return { sessionId: found.sessionId, taskId: found.taskId };
  }

  #dropExpired(): void {
    const now = this.#now();
    for (const [ticket, { expires }] of this.#tickets) if (now >= expires) this.#tickets.delete(ticket);
  }
}
