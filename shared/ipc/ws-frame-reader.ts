/*
 * How a client reads the host's frames: each parsed frame is checked against the shapes that
 * ws-protocol.ts declares with zod, by plain code. The page loads no zod to open a session: zod's
 * core and the frames' schemas were 56 KB of script to fetch, compile and evaluate on every first
 * open, and the first screen came a mean 17 to 21 ms later for them on a 2-core machine (issue 18;
 * two runs of 20 interleaved pairs of loads of a big session in a new profile). The desktop page reads the main process's answers through the
 * preload without a schema too (electron/preload.ts).
 *
 * One declaration still rules: the schemas in ws-protocol.ts give the frames' types, which this
 * reader returns, and a property test (test/ipc/ws-frame-reader.test.ts) holds that this reader
 * takes exactly the frames those schemas take. A frame neither would take is dropped.
 */
import { ERROR_CODES } from './drover-error.js';
import type { IpcError } from './errors.js';
import type { ResultFrame, ServerFrame } from './ws-protocol.js';

const CODES: ReadonlySet<string> = new Set(ERROR_CODES);

type Fields = Record<string, unknown>;

/** What zod's objects take: an object that is not an array. */
function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';

/** IpcErrorSchema's shape: a known code, a message, and an optional path and issues. */
function isIpcError(value: unknown): value is IpcError {
  if (!isObject(value) || !isString(value.code) || !CODES.has(value.code) || !isString(value.message)) return false;
  if (!isOptionalString(value.path)) return false;
  const issues = value.issues;
  return (
    issues === undefined ||
    (Array.isArray(issues) &&
      issues.every((issue) => isObject(issue) && isString(issue.path) && isString(issue.message)))
  );
}

/** ResultFrameSchema's shape: an answer with its value (any, but there), or a failure with its error. */
function isResultFrame(value: unknown): value is ResultFrame {
  if (!isObject(value) || value.t !== 'result' || typeof value.id !== 'number' || !Number.isFinite(value.id))
    return false;
  if (value.ok === true) return 'value' in value;
  return value.ok === false && isIpcError(value.error);
}

/** An event's name and payload (the payload may be any value, but is there: JSON drops only undefined). */
function isEvent(value: unknown): boolean {
  return isObject(value) && isString(value.name) && 'payload' in value;
}

/** A frame from the host as ServerFrameSchema would take it, or null when it would not. */
export function readServerFrame(parsed: unknown): ServerFrame | null {
  if (!isObject(parsed)) return null;
  switch (parsed.t) {
    case 'result':
      return isResultFrame(parsed) ? parsed : null;
    case 'results':
      return Array.isArray(parsed.results) && parsed.results.every(isResultFrame)
        ? (parsed as Extract<ServerFrame, { t: 'results' }>)
        : null;
    case 'event':
      return isEvent(parsed) ? (parsed as Extract<ServerFrame, { t: 'event' }>) : null;
    case 'events':
      return Array.isArray(parsed.events) && parsed.events.every(isEvent)
        ? (parsed as Extract<ServerFrame, { t: 'events' }>)
        : null;
    case 'protocol_error':
      return isIpcError(parsed.error) ? (parsed as Extract<ServerFrame, { t: 'protocol_error' }>) : null;
    default:
      return null;
  }
}
