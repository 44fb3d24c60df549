import { deliverEvent } from './deliver.js';
import { DroverError } from './drover-error.js';
import type { EarlySocket } from './early-socket.js';
import type { Result } from './errors.js';
import { HANDSHAKE_CALLS, HANDSHAKE_MAX_CALLS, HANDSHAKE_MAX_CHARS, HANDSHAKE_PARAM } from './ws-connect.js';
import { readServerFrame } from './ws-frame-reader.js';
import type { CallFrame, ResultFrame } from './ws-protocol.js';
import type { ClientTransport, ConnectionState } from './transport.js';

/** The part of a WebSocket this client needs: the browser's and the `ws` package's both fit. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
}

export interface WsClientOptions {
  url: string;
  createSocket: (url: string) => WebSocketLike;
  /** How long a call may wait for a connection before it fails. */
  callTimeoutMs?: number;
  /**
   * A connection the page opened before this client existed, with reads in its handshake
   * (shared/ipc/early-socket.ts): the client's first connection. Calls made before the client's
   * first microtask that match a carried read (name and input) take its answer instead of asking
   * again; the rest are asked on it as on any connection. One that closed already is not used.
   */
  early?: EarlySocket | null;
}

/** Reconnect policy: start quick, back off to a calm ceiling, never give up. */
export const RECONNECT_FIRST_DELAY_MS = 250;
export const RECONNECT_MAX_DELAY_MS = 5_000;
export const CALL_TIMEOUT_MS = 30_000;
const OPEN = 1;
const CLOSED = 'This connection was closed';

interface Pending {
  frame: CallFrame;
  resolve: (result: Result<unknown>) => void;
  /** Runs only until the call is on the wire; after that a drop of the socket is what fails it. */
  timer: ReturnType<typeof setTimeout>;
  /**
   * `waiting` for an open socket; `carried` in the handshake of the socket now connecting (on the
   * wire once it opens, waiting again if it never does); `sent`.
   */
  stage: 'waiting' | 'carried' | 'sent';
}

export interface WsClientTransport extends ClientTransport {
  readonly state: ConnectionState;
  close(): void;
}

/**
 * The contract over a WebSocket. Calls made while disconnected wait for the next
 * connection (up to the call timeout); the socket reconnects by itself with backoff. The reads
 * a page opens with, asked before a connection opens, go in its handshake (HANDSHAKE_CALLS): the
 * first socket is made a microtask after the client, so the calls made right after it are among them.
 */
export function createWsClient(options: WsClientOptions): WsClientTransport {
  const callTimeoutMs = options.callTimeoutMs ?? CALL_TIMEOUT_MS;
  const eventListeners = new Set<(name: string, payload: unknown) => void>();
  const stateListeners = new Set<(state: ConnectionState) => void>();
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let socket: WebSocketLike | null = null;
  let state: ConnectionState = 'connecting';
  let delay = RECONNECT_FIRST_DELAY_MS;
  let reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  let closedByUser = false;
  /** The early connection's carried reads not yet taken by a call, by name and input; null once the client has connected. */
  let claimable: Map<string, number> | null = null;
  const early = options.early ?? null;
  if (early) {
    claimable = new Map();
    for (const frame of early.calls) {
      const key = callKey(frame.name, frame.input);
      if (key !== null) claimable.set(key, frame.id);
      nextId = Math.max(nextId, frame.id + 1);
    }
  }

  const setState = (next: ConnectionState) => {
    if (next === state) return;
    state = next;
    for (const listener of stateListeners) listener(next);
  };

  const send = (entry: Pending) => {
    if (socket && socket.readyState === OPEN) {
      socket.send(JSON.stringify(entry.frame));
      entry.stage = 'sent';
      // Some calls legitimately take long (a foreground shell line waits up to its handover); the answer always comes or the socket drops.
      clearTimeout(entry.timer);
    }
  };

  /** The socket's address, with the waiting reads it can carry (marked as carried). */
  const handshakeUrl = (): string => {
    const carried: Pending[] = [];
    let calls = '';
    for (const entry of pending.values()) {
      if (entry.stage !== 'waiting' || !HANDSHAKE_CALLS.has(entry.frame.name) || carried.length === HANDSHAKE_MAX_CALLS)
        continue;
      const more = encodeURIComponent(JSON.stringify([...carried, entry].map((each) => each.frame)));
      // A long input (a huge id, say) waits for the open instead of making the request line long.
      if (more.length > HANDSHAKE_MAX_CHARS) continue;
      carried.push(entry);
      calls = more;
    }
    if (carried.length === 0) return options.url;
    for (const entry of carried) entry.stage = 'carried';
    return `${options.url}${options.url.includes('?') ? '&' : '?'}${HANDSHAKE_PARAM}=${calls}`;
  };

  /** The id of the early connection's read that is this very call, taken once; undefined when none is. */
  const takeCarried = (name: string, input: unknown): number | undefined => {
    const key = claimable ? callKey(name, input) : null;
    if (!claimable || key === null) return undefined;
    const id = claimable.get(key);
    claimable.delete(key);
    return id;
  };

  const connect = () => {
    reconnectTimer = null;
    setState('connecting');
    attach(options.createSocket(handshakeUrl()));
  };

  /** The first connection: the page's early one where it is still up (its calls taken are carried on it), else a new one. */
  const connectFirst = () => {
    claimable = null;
    if (!early || early.closed) {
      // Never to be answered there: asked again like any call waiting for a connection.
      for (const entry of pending.values()) if (entry.stage === 'carried') entry.stage = 'waiting';
      early?.socket.close();
      connect();
      return;
    }
    attach(early.socket);
    if (early.opened) early.socket.onopen?.(null);
    // What came before this client took over, in order; nothing more is kept aside.
    for (const frame of early.frames.splice(0)) onFrame(frame);
  };

  const attach = (ws: WebSocketLike) => {
    socket = ws;
    ws.onopen = () => {
      delay = RECONNECT_FIRST_DELAY_MS;
      setState('open');
      for (const entry of pending.values()) {
        if (entry.stage === 'carried') {
          // The host has it: it answers as it would a frame.
          entry.stage = 'sent';
          clearTimeout(entry.timer);
        } else if (entry.stage === 'waiting') send(entry);
      }
    };
    ws.onmessage = (message) => onFrame(message.data);
    ws.onerror = () => {
      /* onclose follows and schedules the retry */
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      // Calls already on the wire may or may not have run; say so rather than replay them.
      for (const [id, entry] of pending) {
        // Never opened: a read carried in the handshake is asked again on the next connection.
        if (entry.stage === 'carried') entry.stage = 'waiting';
        if (entry.stage === 'waiting') continue;
        pending.delete(id);
        clearTimeout(entry.timer);
        entry.resolve(failure('disconnected', 'The connection to Drover dropped before it answered'));
      }
      if (closedByUser) {
        setState('closed');
        return;
      }
      setState('closed');
      reconnectTimer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, RECONNECT_MAX_DELAY_MS);
    };
  };

  const onFrame = (data: unknown) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(typeof data === 'string' ? data : String(data));
    } catch {
      return;
    }
    const value = readServerFrame(parsed);
    if (!value) return unreadable(parsed);
    if (value.t === 'event' || value.t === 'events') {
      for (const { name, payload } of value.t === 'event' ? [value] : value.events)
        for (const listener of eventListeners) deliverEvent(listener, name, payload);
    } else if (value.t === 'result') {
      answer(value);
    } else if (value.t === 'results') {
      // The carried calls' answers, all settled in this one task: the page builds on them together.
      value.results.forEach(answer);
    }
  };

  /**
   * A frame the protocol does not take. An answer in it still ends its call, with an error that
   * says so, rather than leaving the call waiting for ever (it is on the wire: no timeout runs);
   * among the carried calls' answers, the readable ones are taken. Anything else is dropped.
   */
  const unreadable = (parsed: unknown) => {
    const frame = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { t?: unknown; results?: unknown };
    const answers =
      frame.t === 'result' ? [parsed] : frame.t === 'results' && Array.isArray(frame.results) ? frame.results : [];
    for (const each of answers) {
      const read = readServerFrame(each);
      if (read?.t === 'result') {
        answer(read);
        continue;
      }
      const id = (each as { id?: unknown } | null)?.id;
      const entry = typeof id === 'number' ? pending.get(id) : undefined;
      if (!entry) continue;
      const error = new DroverError('internal', `Drover's answer to ${entry.frame.name} could not be read`);
      answer({ t: 'result', id: entry.frame.id, ok: false, error: error.toJSON() });
    }
  };

  const answer = (result: ResultFrame) => {
    const entry = pending.get(result.id);
    if (!entry) return;
    pending.delete(result.id);
    clearTimeout(entry.timer);
    entry.resolve(result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error });
  };

  queueMicrotask(() => {
    if (!closedByUser) connectFirst();
    // Closed before it ever connected: the page's early connection goes too.
    else early?.socket.close();
  });

  return {
    get state() {
      return state;
    },
    call(name, input) {
      if (closedByUser) return Promise.resolve(failure('disconnected', CLOSED));
      return new Promise((resolve) => {
        const carriedId = takeCarried(name, input);
        const id = carriedId ?? nextId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          resolve(
            failure('disconnected', `Could not reach Drover for ${name} within ${Math.round(callTimeoutMs / 1000)} s`),
          );
        }, callTimeoutMs);
        const entry: Pending = {
          frame: { t: 'call', id, name, input },
          resolve,
          timer,
          stage: carriedId === undefined ? 'waiting' : 'carried',
        };
        pending.set(id, entry);
        if (entry.stage === 'waiting') send(entry);
      });
    },
    subscribe(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    close() {
      closedByUser = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      for (const entry of pending.values()) {
        clearTimeout(entry.timer);
        entry.resolve(failure('disconnected', CLOSED));
      }
      pending.clear();
      socket?.close(1000, 'client closed');
      setState('closed');
    },
  };
}

/** A call's name and input as one string: a carried read is taken only by the very same call (null: an input JSON cannot hold). */
function callKey(name: string, input: unknown): string | null {
  try {
    return `${name}\n${JSON.stringify(input)}`;
  } catch {
    return null;
  }
}

function failure(code: 'disconnected', message: string): Result<unknown> {
  return { ok: false, error: new DroverError(code, message).toJSON() };
}
