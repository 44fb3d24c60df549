import { DroverError } from '@shared/ipc/errors.js';
import type { Role } from '@shared/contract.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A short, calm "how long ago": "just now", "5 min ago", "3 h ago", "yesterday", then a date. */
export function relativeTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const diff = Math.max(0, now - then);
  if (diff < MINUTE) return 'just now';
  if (diff < HOUR) return `${Math.floor(diff / MINUTE)} min ago`;
  if (diff < DAY && sameDay(then, now)) return `${Math.floor(diff / HOUR)} h ago`;
  if (sameDay(then, now - DAY)) return 'yesterday';
  const date = new Date(then);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString(undefined, sameYear ? { month: 'short', day: 'numeric' } : { dateStyle: 'medium' });
}

/** The time of a message: the clock time today, with the date on other days. */
export function messageTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const date = new Date(then);
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  if (sameDay(then, now)) return time;
  return `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}`;
}

/** The full date and time, for tooltips. */
export function fullTime(iso: string): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  return new Date(then).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' });
}

function sameDay(a: number, b: number): boolean {
  const x = new Date(a);
  const y = new Date(b);
  return x.getFullYear() === y.getFullYear() && x.getMonth() === y.getMonth() && x.getDate() === y.getDate();
}

export function messageCountLabel(count: number): string {
  return count === 1 ? '1 message' : `${count} messages`;
}

const ROLE_LABELS: Record<Role, string> = { user: 'You', assistant: 'Assistant', system: 'System' };

export function roleLabel(role: Role): string {
  return ROLE_LABELS[role];
}

/** What to show a person for a failure: the contract's message, or a plain fallback. */
export function errorMessage(error: unknown): string {
  if (error instanceof DroverError) return error.message;
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong';
}
