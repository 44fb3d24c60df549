/*
 * Where and how a client connects to the headless host's WebSocket. No schema here: the page's
 * first script (renderer/src/boot.ts) opens the connection with these before zod has been
 * evaluated; the frames' schemas are in ws-protocol.ts, which re-exports this module.
 */

/** Path of the WebSocket endpoint on the host; the token travels as `?token=`. */
export const WS_PATH = '/ws';

/**
 * Calls a client may carry in its handshake (`?calls=`, a JSON array of call frames) instead of
 * sending them once the socket is open: the host runs them as the connection opens, and their
 * answers are on the way before a busy page has even noticed the open (issue 18: opening a big
 * session). Only the reads a page opens with: answering one twice (a handshake that failed after
 * the host ran it, then the same call again) changes nothing. Anything else is refused.
 */
export const HANDSHAKE_CALLS: ReadonlySet<string> = new Set(['listSessions', 'listMessages', 'openTasks']);
export const HANDSHAKE_MAX_CALLS = 4;
/** How long the carried calls may be, encoded: well inside what any HTTP server takes as a request line. */
export const HANDSHAKE_MAX_CHARS = 2_048;
/** The query parameter that carries them. */
export const HANDSHAKE_PARAM = 'calls';
