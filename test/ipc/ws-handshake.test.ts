import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createWsClient, type WebSocketLike } from '../../shared/ipc/ws-client.js';
import { HANDSHAKE_MAX_CHARS, HANDSHAKE_PARAM } from '../../shared/ipc/ws-protocol.js';
import { ContractWsServer } from '../../electron/ipc/ws-server.js';

/**
 * The reads a page opens with ride in the WebSocket handshake (issue 18: opening a big session):
 * the host answers them as the connection opens, without waiting for frames from a page that is
 * still busy building itself.
 */

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

interface Served {
  url: string;
  /** What the handler was asked, in order. */
  handled: string[];
  /** Names of the calls that arrived as frames on an open socket. */
  frames: string[];
  /** The URLs of the upgrades, accepted or not. */
  upgrades: string[];
}

/** A host that answers every call with its name; `refuseFirst` upgrades are answered 503. */
async function serve(refuseFirst = 0): Promise<Served> {
  const served: Served = { url: '', handled: [], frames: [], upgrades: [] };
  const ws = new ContractWsServer({
    handle: async (name) => {
      served.handled.push(name);
      return { ok: true, value: `answered ${name}` };
    },
    subscribe: () => () => {},
  });
  const server = createServer();
  let refused = 0;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    served.upgrades.push(req.url ?? '');
    if (refused < refuseFirst) {
      refused++;
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    ws.accept(req, socket, head);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    ws.close();
    server.close();
  });
  served.url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws?token=t`;
  return served;
}

/** A client socket that records the names of the frames it sends. */
function recordingSocket(served: Served) {
  return (url: string): WebSocketLike => {
    const socket = new WebSocket(url);
    const send = socket.send.bind(socket);
    socket.send = ((data: string) => {
      served.frames.push((JSON.parse(data) as { name: string }).name);
      send(data);
    }) as typeof socket.send;
    return socket as unknown as WebSocketLike;
  };
}

function carried(url: string): unknown {
  const calls = new URL(url, 'http://host').searchParams.get(HANDSHAKE_PARAM);
  return calls === null ? null : JSON.parse(calls);
}

describe('calls carried in the WebSocket handshake', () => {
  it('carries the opening reads asked before the socket exists, and the host answers them with no frame sent', async () => {
    const served = await serve();
    const client = createWsClient({ url: served.url, createSocket: recordingSocket(served) });
    closers.push(() => client.close());
    const answers = Promise.all([
      client.call('listSessions', {}),
      client.call('listMessages', { sessionId: 's1', limit: 51 }),
      client.call('openTasks', { sessionId: 's1', filter: 'all', limit: 50 }),
      // Not a read the page opens with: it waits for the open and goes as a frame.
      client.call('createSession', { title: 'x' }),
    ]);
    expect(await answers).toEqual([
      { ok: true, value: 'answered listSessions' },
      { ok: true, value: 'answered listMessages' },
      { ok: true, value: 'answered openTasks' },
      { ok: true, value: 'answered createSession' },
    ]);
    expect(served.upgrades).toHaveLength(1);
    expect(carried(served.upgrades[0]!)).toEqual([
      { t: 'call', id: 1, name: 'listSessions', input: {} },
      { t: 'call', id: 2, name: 'listMessages', input: { sessionId: 's1', limit: 51 } },
      { t: 'call', id: 3, name: 'openTasks', input: { sessionId: 's1', filter: 'all', limit: 50 } },
    ]);
    // The token is still where the host looks for it.
    expect(new URL(served.upgrades[0]!, 'http://host').searchParams.get('token')).toBe('t');
    expect(served.frames).toEqual(['createSession']);
    expect(served.handled).toEqual(['listSessions', 'listMessages', 'openTasks', 'createSession']);
  });

  it('leaves a read too long for the handshake to go as a frame once the socket opens', async () => {
    const served = await serve();
    const client = createWsClient({ url: served.url, createSocket: recordingSocket(served) });
    closers.push(() => client.close());
    const long = 'x'.repeat(HANDSHAKE_MAX_CHARS);
    const answers = await Promise.all([
      client.call('listMessages', { sessionId: long, limit: 51 }),
      client.call('listSessions', {}),
    ]);
    expect(answers).toEqual([
      { ok: true, value: 'answered listMessages' },
      { ok: true, value: 'answered listSessions' },
    ]);
    expect(carried(served.upgrades[0]!)).toEqual([{ t: 'call', id: 2, name: 'listSessions', input: {} }]);
    expect(served.frames).toEqual(['listMessages']);
  });

  it('sends a call made once the socket is open as a frame, with no calls in a later handshake', async () => {
    const served = await serve();
    const client = createWsClient({ url: served.url, createSocket: recordingSocket(served) });
    closers.push(() => client.close());
    await new Promise<void>((resolve) => client.onState!((state) => state === 'open' && resolve()));
    expect(await client.call('listSessions', {})).toEqual({ ok: true, value: 'answered listSessions' });
    expect(carried(served.upgrades[0]!)).toBeNull();
    expect(served.frames).toEqual(['listSessions']);
  });

  it('asks a carried read again on the next connection when the handshake was refused', async () => {
    const served = await serve(1);
    const client = createWsClient({ url: served.url, createSocket: recordingSocket(served) });
    closers.push(() => client.close());
    expect(await client.call('listSessions', {})).toEqual({ ok: true, value: 'answered listSessions' });
    expect(served.upgrades).toHaveLength(2);
    expect(carried(served.upgrades[0]!)).toEqual([{ t: 'call', id: 1, name: 'listSessions', input: {} }]);
    expect(carried(served.upgrades[1]!)).toEqual([{ t: 'call', id: 1, name: 'listSessions', input: {} }]);
    expect(served.handled).toEqual(['listSessions']);
  });

  it('fails a carried read that never reaches a host within the call timeout, naming it', async () => {
    const client = createWsClient({
      url: 'ws://127.0.0.1:9/ws',
      createSocket: (u) => new WebSocket(u) as unknown as WebSocketLike,
      callTimeoutMs: 200,
    });
    closers.push(() => client.close());
    expect(await client.call('openTasks', { sessionId: 's1', filter: 'all', limit: 50 })).toMatchObject({
      ok: false,
      error: { code: 'disconnected', message: expect.stringContaining('openTasks') },
    });
  });

  /** A raw socket with `calls` in its URL: the frames the host sends back. */
  async function handshakeWith(calls: string): Promise<{ frames: unknown[]; handled: string[] }> {
    const served = await serve();
    const socket = new WebSocket(`${served.url}&${HANDSHAKE_PARAM}=${encodeURIComponent(calls)}`);
    closers.push(() => socket.close());
    const frames: unknown[] = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data))));
    await new Promise((resolve) => socket.once('open', resolve));
    await expect.poll(() => frames.length).toBeGreaterThan(0);
    // Anything the host would still send has had its turn.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { frames, handled: served.handled };
  }

  it('answers the carried calls together, in one frame, in the order they were carried', async () => {
    const { frames, handled } = await handshakeWith(
      JSON.stringify([
        { t: 'call', id: 4, name: 'listSessions', input: {} },
        { t: 'call', id: 5, name: 'listMessages', input: { sessionId: 's1', limit: 21 } },
        { t: 'call', id: 6, name: 'openTasks', input: { sessionId: 's1', filter: 'all', limit: 50 } },
      ]),
    );
    expect(handled).toEqual(['listSessions', 'listMessages', 'openTasks']);
    // One frame: the page settles all three in one task and builds its first screen once.
    expect(frames).toEqual([
      {
        t: 'results',
        results: [
          { t: 'result', id: 4, ok: true, value: 'answered listSessions' },
          { t: 'result', id: 5, ok: true, value: 'answered listMessages' },
          { t: 'result', id: 6, ok: true, value: 'answered openTasks' },
        ],
      },
    ]);
  });

  it('refuses a carried call that is not an opening read, answering its id and running nothing', async () => {
    const { frames, handled } = await handshakeWith(
      JSON.stringify([
        { t: 'call', id: 7, name: 'listSessions', input: {} },
        { t: 'call', id: 8, name: 'deleteSession', input: { id: 's1' } },
      ]),
    );
    expect(handled).toEqual([]);
    expect(frames).toEqual([
      expect.objectContaining({
        t: 'result',
        id: 7,
        ok: false,
        error: expect.objectContaining({ code: 'invalid_input' }),
      }),
      expect.objectContaining({
        t: 'result',
        id: 8,
        ok: false,
        error: expect.objectContaining({ message: expect.stringContaining('deleteSession') }),
      }),
    ]);
  });

  it('says why when the carried calls are not JSON, and keeps the connection', async () => {
    const { frames, handled } = await handshakeWith('[{"t":"call"');
    expect(handled).toEqual([]);
    expect(frames).toEqual([
      expect.objectContaining({
        t: 'protocol_error',
        error: expect.objectContaining({ code: 'invalid_input', message: expect.stringContaining(HANDSHAKE_PARAM) }),
      }),
    ]);
  });

  it('refuses more calls than a page opens with', async () => {
    const calls = Array.from({ length: 5 }, (_, id) => ({ t: 'call', id, name: 'listSessions', input: {} }));
    const { frames, handled } = await handshakeWith(JSON.stringify(calls));
    expect(handled).toEqual([]);
    expect(frames).toHaveLength(5);
    expect(frames.every((frame) => (frame as { ok?: boolean }).ok === false)).toBe(true);
  });
});
