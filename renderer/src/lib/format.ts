import { DroverError } from '@shared/ipc/drover-error.js';
import type { Containment, Role, TaskRow, TaskStatus } from '@shared/contract.js';
import { localeReady } from './state/locale.svelte.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Date formatters, each made once: `toLocale…String` builds a new Intl formatter per call, which
 * cost a big transcript's first render ~70 ms (two or three times per message).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(key: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let made = formatters.get(key);
  if (!made) formatters.set(key, (made = new Intl.DateTimeFormat(undefined, options)));
  return made;
}

/**
 * A formatter for what the screen shows, or null while the locale is not in yet (state/locale.svelte.ts):
 * the first screen is built without the locale's data, and what reads null here renders again once it is in.
 */
function screenFormatter(key: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat | null {
  return localeReady() ? formatter(key, options) : null;
}

/**
 * Counts as the locale groups them ("12,345"), through one formatter; plain digits ("12345")
 * until the locale is in (state/locale.svelte.ts).
 */
let numbers: Intl.NumberFormat | undefined;
export function formatCount(value: number): string {
  if (!localeReady()) return String(value);
  return (numbers ??= new Intl.NumberFormat()).format(value);
}

/** A short, calm "how long ago": "just now", "5 min ago", "3 h ago", "yesterday", then a date ('' until the locale is in). */
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
  const day = sameYear
    ? screenFormatter('month-day', { month: 'short', day: 'numeric' })
    : screenFormatter('medium-date', { dateStyle: 'medium' });
  return day?.format(date) ?? '';
}

/** How long until a time to come: "now", "in 45 s", "in 12 min", "in 3 h 5 min", "in 2 days". */
export function untilTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const seconds = Math.round((then - now) / 1000);
  if (seconds <= 0) return 'now';
  if (seconds < 60) return `in ${seconds} s`;
  if (seconds < 3600) return `in ${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `in ${durationLabel(Math.round(seconds / 60) * 60)}`;
  const days = Math.round(seconds / 86_400);
  return `in ${days} ${days === 1 ? 'day' : 'days'}`;
}

/** The clock time of a moment: "14:03" (or "2:03 PM", as the locale writes it); '' until the locale is in. */
export function clockTime(at: Date): string {
  return screenFormatter('clock', { hour: '2-digit', minute: '2-digit' })?.format(at) ?? '';
}

/** The time of a message: the clock time today, with the date on other days; '' until the locale is in. */
export function messageTime(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const date = new Date(then);
  const time = clockTime(date);
  if (sameDay(then, now) || time === '') return time;
  return `${formatter('month-day', { month: 'short', day: 'numeric' }).format(date)}, ${time}`;
}

/** The full date and time, for tooltips: written when a pointer reaches it, so it does not wait for the locale. */
export function fullTime(iso: string): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  return formatter('full', { dateStyle: 'full', timeStyle: 'short' }).format(new Date(then));
}

function sameDay(a: number, b: number): boolean {
  const x = new Date(a);
  const y = new Date(b);
  return x.getFullYear() === y.getFullYear() && x.getMonth() === y.getMonth() && x.getDate() === y.getDate();
}

/** A count with its noun: "1 task", "3 tasks", "no tasks". */
export function countLabel(count: number, one: string, many: string): string {
  if (count === 0) return `no ${many}`;
  return `${count} ${count === 1 ? one : many}`;
}

export function messageCountLabel(count: number): string {
  return count === 1 ? '1 message' : `${count} messages`;
}

const ROLE_LABELS: Record<Role, string> = { user: 'You', assistant: 'Assistant', system: 'System', tool: 'Shell' };

export function roleLabel(role: Role): string {
  return ROLE_LABELS[role];
}

/** What to show a person for a failure: the contract's message, or a plain fallback. */
export function errorMessage(error: unknown): string {
  if (error instanceof DroverError) return error.message;
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong';
}

const STATUS_LABELS: Record<TaskStatus, string> = {
  queued: 'queued',
  running: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  timed_out: 'timed out',
  stopped: 'stopped',
  orphaned: 'orphaned',
  lost: 'lost',
};

export function taskStatusLabel(status: TaskStatus): string {
  return STATUS_LABELS[status];
}

const CONTAINMENT_LABELS: Record<Containment, { label: string; detail: string }> = {
  cgroup: {
    label: 'cgroup',
    detail: 'Runs in a cgroup of its own: everything it starts stays inside and is stopped with it.',
  },
  group: {
    label: 'process group',
    detail: 'Runs in a process group of its own; what leaves the group is found by its mark.',
  },
  job: {
    label: 'job object',
    detail: 'Runs in a Windows job object of its own: everything it starts is ended with it.',
  },
  tree: {
    label: 'process tree',
    detail: 'Held only by its process tree: the processes provably started from it are ended with it.',
  },
};

/** How a task's processes are held together, as a short label and a sentence. */
export function containmentLabel(kind: Containment): { label: string; detail: string } {
  return CONTAINMENT_LABELS[kind];
}

/**
 * The one duration format (a stopwatch reading): "under 1 s", "12 s", "3 min 05 s", "1 h 02 min".
 * Whole seconds only, so a task's card, its row and its header never read "0 s", "0.4 s" or "0:05"
 * for the same length.
 */
export function elapsedLabel(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 1) return 'under 1 s';
  if (s < 60) return `${Math.floor(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * A length someone set rather than measured (a timeout, a setting): "45 s", "15 min", "1 h 10 min".
 * Measured times (elapsed, waited, silent for) use `elapsedLabel`.
 */
export function durationLabel(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  const minutes = Math.floor((seconds % 3600) / 60);
  return minutes === 0 ? `${Math.floor(seconds / 3600)} h` : `${Math.floor(seconds / 3600)} h ${minutes} min`;
}

/** How a settled task ended, shell style: "exit 1 · no matches found", "exit 143 · SIGTERM". Null while it runs. */
export function exitLabel(task: Pick<TaskRow, 'status' | 'exitCode' | 'signal' | 'exitNote'>): string | null {
  if (task.status === 'queued' || task.status === 'running') return null;
  const parts: string[] = [];
  if (task.exitCode !== null) parts.push(`exit ${task.exitCode}`);
  if (task.signal && !(task.exitNote ?? '').includes(task.signal)) parts.push(task.signal);
  if (task.exitNote) parts.push(task.exitNote);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** A tool call's arguments as indented JSON; anything JSON cannot write shows as text. */
export function prettyJson(value: unknown): string {
  if (value === null || value === undefined) return '(none)';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A piece of a value written as indented JSON: structure as it is, or the inside of a string. */
export type JsonPart = { text: string } | { string: string };

/** A JSON string literal in JSON text: quotes around anything but a quote or backslash, or an escape. */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/**
 * A tool call's arguments as `prettyJson` writes them, with each string's inside handed out apart
 * and escaped only for `"` and `\`: the view shows its control, format and bidi characters as
 * tokens, where JSON would write `\u001b` and leave an RLO raw.
 */
export function prettyJsonParts(value: unknown): JsonPart[] {
  const json = prettyJson(value);
  const parts: JsonPart[] = [];
  let at = 0;
  for (const match of json.matchAll(JSON_STRING)) {
    let inside: string;
    try {
      inside = JSON.parse(match[0]) as string;
    } catch {
      continue; // not JSON after all (a value JSON cannot write, shown as text)
    }
    parts.push({ text: json.slice(at, match.index + 1) }, { string: inside.replace(/["\\]/g, (char) => `\\${char}`) });
    at = match.index + match[0].length - 1;
  }
  if (at < json.length) parts.push({ text: json.slice(at) });
  return parts;
}

/** A tool call's one-line summary without the tool's name in front (the row shows the name apart). */
export function toolSummary(toolName: string, text: string): string {
  if (text === toolName) return '';
  return text.startsWith(`${toolName} `) ? text.slice(toolName.length + 1) : text;
}

/** A size for people: "512 B", "256 KiB", "4 MiB". */
export function bytesLabel(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}

export { visibleCommand } from '@shared/domain/commands.js';
