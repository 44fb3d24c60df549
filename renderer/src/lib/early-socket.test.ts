// The page's own script opens the host's connection as the page is parsed, its first reads in the
// handshake (shared/ipc/early-socket.ts, issue 18): the very calls boot.ts then makes, so the client
// takes their answers instead of asking again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BRIDGE_KEY } from '@shared/ipc/bridge.js';
import {
  EARLY_SOCKET_KEY,
  EARLY_SOCKET_SCRIPT,
  TOKEN_STORAGE_KEY,
  type EarlySocket,
} from '@shared/ipc/early-socket.js';
import { createWsClient, type WebSocketLike } from '@shared/ipc/ws-client.js';
import { connectApi } from './api.js';
import { OpenPrefetch } from './state/open-prefetch.js';
import { parseRoute } from './route.js';

class RecordingSocket {
  static made: RecordingSocket[] = [];
  readonly readyState = 0;
  onopen = null;
  onclose = null;
  onerror = null;
  onmessage = null;
  constructor(readonly url: string) {
    RecordingSocket.made.push(this);
  }
  send(): void {}
  close(): void {}
}

/** Runs the page's script as a page at `address` would, with this window: what it left there. */
function runScript(address: string, page: Record<string, unknown> = {}): EarlySocket | undefined {
  const window: Record<string, unknown> = { sessionStorage: { getItem: () => null }, ...page };
  RecordingSocket.made = [];
  // The script reads location and WebSocket as globals: here they are the page's own.
  new Function('window', 'location', 'WebSocket', EARLY_SOCKET_SCRIPT)(window, new URL(address), RecordingSocket);
  const early = window[EARLY_SOCKET_KEY] as EarlySocket | undefined;
  expect(RecordingSocket.made.length).toBe(early ? 1 : 0);
  return early;
}

/** The address of the connection the script opened for a page at `address`. */
function openedUrl(address: string, page: Record<string, unknown> = {}): string {
  return (runScript(address, page)!.socket as unknown as RecordingSocket).url;
}

/** The address boot.ts's client opens for a page at `address`: its first requests carried in the handshake. */
async function clientAddress(address: string): Promise<string> {
  const url = new URL(address);
  let opened = '';
  const socket: WebSocketLike = new RecordingSocket('');
  const client = createWsClient({
    url: `ws://${url.host}/ws?token=${encodeURIComponent(url.searchParams.get('token')!)}`,
    createSocket: (to) => {
      opened = to;
      return socket;
    },
  });
  const prefetch = new OpenPrefetch(connectApi(client));
  prefetch.startSessions();
  const route = parseRoute(url.hash);
  if (route.name === 'session') prefetch.start(route.sessionId);
  // The client connects a microtask after it is made.
  await Promise.resolve();
  client.close();
  return opened;
}

const carried = (address: string) =>
  (JSON.parse(new URL(address).searchParams.get('calls') ?? '[]') as { name: string }[]).map((call) => call.name);

describe("the page's early connection", () => {
  it('opens with exactly the address, and so the reads, the client would carry, whatever the route', async () => {
    const part = fc.oneof(
      fc.constantFrom('s', 'tasks', 'work', 'schedules', 'settings', '', 'bg_12', 'a%20b', '%E0%A4%A', '%2F'),
      fc.string({ maxLength: 8 }),
      fc.string({ minLength: 600, maxLength: 1_200 }),
    );
    // Routes as the app makes them (a session, its panels, a task), and anything else a hash can hold.
    const made = fc
      .tuple(
        fc.oneof(fc.string({ maxLength: 8 }), fc.string({ minLength: 600, maxLength: 1_200 })),
        fc.constantFrom(
          [],
          ['tasks'],
          ['work'],
          ['schedules'],
          ['tasks', 'bg_1'],
          ['tasks', 'bg_1', 'x'],
          ['work', 'x'],
        ),
      )
      .map(([id, rest]) => ['s', encodeURIComponent(id), ...rest]);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(made, fc.array(part, { maxLength: 5 })),
        fc.constantFrom('', '/', '//'),
        async (parts, lead) => {
          const address = new URL(`http://127.0.0.1:4000/?token=t%2Bk#${lead}${parts.join('/')}`).href;
          const early = runScript(address)!;
          expect(early.socket).toBe(RecordingSocket.made[0]);
          expect(RecordingSocket.made[0]!.url).toBe(await clientAddress(address));
        },
      ),
      { numRuns: 400 },
    );
    // Among them, every shape of handshake.
    expect(carried(openedUrl('http://h/?token=t#/s/abc/tasks'))).toEqual(['listSessions', 'listMessages', 'openTasks']);
    expect(carried(openedUrl('http://h/?token=t#/s/abc/nowhere'))).toEqual(['listSessions']);
    expect(carried(openedUrl('http://h/?token=t#/s/%E0%A4%A'))).toEqual(['listSessions']);
    expect(carried(openedUrl(`http://h/?token=t#/s/${'x'.repeat(900)}`))).toEqual(['listSessions', 'listMessages']);
  });

  it('uses the token the tab kept once the address has none, and opens nothing without one', () => {
    const kept = { sessionStorage: { getItem: (key: string) => (key === TOKEN_STORAGE_KEY ? 'kept' : null) } };
    expect(new URL(openedUrl('http://h/#/s/abc', kept)).searchParams.get('token')).toBe('kept');
    expect(runScript('http://h/#/s/abc')).toBeUndefined();
  });

  it('opens nothing in the desktop app, or on a page not served over HTTP', () => {
    expect(runScript('http://h/?token=t#/s/abc', { [BRIDGE_KEY]: {} })).toBeUndefined();
    expect(runScript('app://drover/?token=t#/s/abc')).toBeUndefined();
    expect(new URL(openedUrl('https://h/?token=t')).protocol).toBe('wss:');
  });

  it('never throws: a storage that refuses, or a browser without WebSocket, leaves the client to connect itself', () => {
    const refusing = {
      sessionStorage: {
        getItem: () => {
          throw new Error('denied');
        },
      },
    };
    expect(runScript('http://h/#/s/abc', refusing)).toBeUndefined();
    const window: Record<string, unknown> = {};
    new Function('window', 'location', 'WebSocket', EARLY_SOCKET_SCRIPT)(
      window,
      new URL('http://h/?token=t'),
      undefined,
    );
    expect(window[EARLY_SOCKET_KEY]).toBeUndefined();
  });

  it('keeps what comes on the connection, in order, until the client takes it over', () => {
    const early = runScript('http://h/?token=t#/s/abc')!;
    const socket = early.socket as unknown as {
      onopen: () => void;
      onmessage: (event: { data: unknown }) => void;
      onclose: () => void;
    };
    socket.onopen();
    socket.onmessage({ data: 'one' });
    socket.onmessage({ data: 'two' });
    expect(early).toMatchObject({ opened: true, closed: false, frames: ['one', 'two'] });
    socket.onclose();
    expect(early.closed).toBe(true);
  });
});
