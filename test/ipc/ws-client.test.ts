import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createWsClient, type WebSocketLike } from '../../shared/ipc/ws-client.js';
import { EARLY_SOCKET_KEY, takeEarlySocket, type EarlySocket } from '../../shared/ipc/early-socket.js';
import { ContractWsServer } from '../../electron/ipc/ws-server.js';
import { serveContract } from './ws-serve.js';

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

async function serve(delayMs: number) {
  const ws = new ContractWsServer({
    handle: async (name) => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { ok: true, value: `answered ${name}` };
    },
    subscribe: () => () => {},
  });
  return serveContract(ws, closers);
}

describe('WebSocket client timeouts', () => {
  it('waits for a slow answer once the call is on the wire', async () => {
    const url = await serve(400);
    const client = createWsClient({
      url,
      createSocket: (u) => new WebSocket(u) as unknown as WebSocketLike,
      callTimeoutMs: 100,
    });
    closers.push(() => client.close());
    expect(await client.call('slow', {})).toEqual({ ok: true, value: 'answered slow' });
  });

  it('fails a call that cannot reach the host within the timeout, naming it', async () => {
    const client = createWsClient({
      url: 'ws://127.0.0.1:9/ws',
      createSocket: (u) => new WebSocket(u) as unknown as WebSocketLike,
      callTimeoutMs: 200,
    });
    closers.push(() => client.close());
    const result = await client.call('listSessions', {});
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'disconnected', message: expect.stringContaining('listSessions') },
    });
  });
});

describe('frames as the client reads them', () => {
  /** A client over a socket this test plays the host of: it opens at once, and what it is sent is kept. */
  async function openClient() {
    let socket!: WebSocketLike;
    const sent: string[] = [];
    const client = createWsClient({
      url: 'ws://127.0.0.1:9/ws',
      createSocket: () => {
        socket = {
          readyState: 1,
          send: (data) => sent.push(data),
          close: () => {},
          onopen: null,
          onclose: null,
          onerror: null,
          onmessage: null,
        };
        return socket;
      },
    });
    closers.push(() => client.close());
    // The socket is made a microtask after the client.
    await Promise.resolve();
    socket.onopen!(undefined);
    const receive = (frame: unknown) => socket.onmessage!({ data: JSON.stringify(frame) });
    return { client, sent, receive };
  }

  it('are read as they come, in order; an event the protocol does not take is dropped', async () => {
    const { client, sent, receive } = await openClient();
    const events: unknown[] = [];
    client.subscribe((name, payload) => events.push([name, payload]));
    const first = client.call('one', {});
    const second = client.call('two', {});
    expect(sent.map((frame) => (JSON.parse(frame) as { name: string }).name)).toEqual(['one', 'two']);
    receive({ t: 'event', name: 'e', payload: 1 });
    receive({ t: 'event', name: 7, payload: 'not an event' });
    receive({ t: 'result', id: 2, ok: true, value: 'second' });
    receive({ t: 'events', events: [{ name: 'e', payload: 2 }] });
    receive({ t: 'result', id: 1, ok: true, value: 'first' });
    expect(events).toEqual([
      ['e', 1],
      ['e', 2],
    ]);
    expect(await second).toEqual({ ok: true, value: 'second' });
    expect(await first).toEqual({ ok: true, value: 'first' });
  });

  it('end a call whose answer cannot be read with an error naming it, instead of leaving it waiting', async () => {
    const { client, receive } = await openClient();
    const one = client.call('one', {});
    const two = client.call('two', {});
    const three = client.call('three', {});
    receive({ t: 'result', id: 1, ok: 'yes', value: 'not an answer' });
    // The carried calls' answers together: the readable one is taken, the other fails.
    receive({
      t: 'results',
      results: [
        { t: 'result', id: 2, ok: true, value: 'second' },
        { t: 'result', id: 3, ok: false, error: { code: 'no such code', message: 'x' } },
      ],
    });
    expect(await one).toEqual({
      ok: false,
      error: { code: 'internal', message: "Drover's answer to one could not be read" },
    });
    expect(await two).toEqual({ ok: true, value: 'second' });
    expect(await three).toMatchObject({
      ok: false,
      error: { code: 'internal', message: expect.stringContaining('three') },
    });
    // A frame that names no waiting call changes nothing.
    receive({ t: 'result', id: 99, ok: 'yes' });
    receive({ t: 'results', results: 'none' });
  });
});

describe("the page's early connection, taken over by the client", () => {
  /** A socket this test plays the host of; what the client sends on it is kept. */
  function fakeSocket(readyState: number) {
    const sent: { id: number; name: string }[] = [];
    const socket = {
      readyState,
      send: (data: string) => sent.push(JSON.parse(data) as { id: number; name: string }),
      close: () => {},
      onopen: null as ((event: unknown) => void) | null,
      onclose: null as ((event: unknown) => void) | null,
      onerror: null as ((event: unknown) => void) | null,
      onmessage: null as ((event: { data: unknown }) => void) | null,
    };
    return { socket, sent };
  }

  const sessions = { t: 'call' as const, id: 1, name: 'listSessions', input: {} };
  const messages = { t: 'call' as const, id: 2, name: 'listMessages', input: { sessionId: 's', limit: 21 } };
  const answers = JSON.stringify({
    t: 'results',
    results: [
      { t: 'result', id: 1, ok: true, value: ['early sessions'] },
      { t: 'result', id: 2, ok: true, value: ['early messages'] },
    ],
  });

  function client(early: EarlySocket) {
    const made: string[] = [];
    const later = fakeSocket(0);
    const transport = createWsClient({
      url: 'ws://127.0.0.1:9/ws?token=t',
      createSocket: (url) => {
        made.push(url);
        return later.socket;
      },
      early,
    });
    closers.push(() => transport.close());
    return { transport, made, later };
  }

  it('takes the answers that came before it existed, asks nothing again, and asks the rest on it', async () => {
    const { socket, sent } = fakeSocket(1);
    const event = JSON.stringify({ t: 'event', name: 'sessionUpserted', payload: { early: true } });
    const early = { socket, calls: [sessions, messages], frames: [event, answers], opened: true, closed: false };
    const { transport, made } = client(early);
    const events: unknown[] = [];
    transport.subscribe((name, payload) => events.push([name, payload]));
    const list = transport.call('listSessions', {});
    const page = transport.call('listMessages', { sessionId: 's', limit: 21 });
    // The same read of another session is not the one carried: it is asked.
    const other = transport.call('listMessages', { sessionId: 'other', limit: 21 });
    expect(await list).toEqual({ ok: true, value: ['early sessions'] });
    expect(await page).toEqual({ ok: true, value: ['early messages'] });
    expect(made).toEqual([]);
    expect(events).toEqual([['sessionUpserted', { early: true }]]);
    expect(early.frames).toEqual([]);
    // On the early connection, with an id of its own past the carried ones.
    expect(sent).toEqual([expect.objectContaining({ id: 3, name: 'listMessages' })]);
    socket.onmessage!({ data: JSON.stringify({ t: 'result', id: 3, ok: true, value: 'asked' }) });
    expect(await other).toEqual({ ok: true, value: 'asked' });
  });

  it('waits on a connection still opening, and does not send the carried reads when it opens', async () => {
    const { socket, sent } = fakeSocket(0);
    const { transport, made } = client({ socket, calls: [sessions], frames: [], opened: false, closed: false });
    const states: string[] = [];
    transport.onState!((state) => states.push(state));
    const list = transport.call('listSessions', {});
    const info = transport.call('appInfo', {});
    await Promise.resolve();
    expect(sent).toEqual([]);
    socket.readyState = 1;
    socket.onopen!(undefined);
    expect(states).toEqual(['open']);
    expect(sent).toEqual([expect.objectContaining({ id: 2, name: 'appInfo' })]);
    socket.onmessage!({
      data: JSON.stringify({ t: 'results', results: [{ t: 'result', id: 1, ok: true, value: 'list' }] }),
    });
    expect(await list).toEqual({ ok: true, value: 'list' });
    expect(made).toEqual([]);
    socket.onmessage!({ data: JSON.stringify({ t: 'result', id: 2, ok: true, value: 'info' }) });
    expect(await info).toEqual({ ok: true, value: 'info' });
  });

  it('connects itself when the early connection closed before it came, carrying the reads it took', async () => {
    const { socket } = fakeSocket(3);
    const { transport, made } = client({
      socket,
      calls: [sessions, messages],
      frames: [],
      opened: false,
      closed: true,
    });
    void transport.call('listSessions', {});
    await Promise.resolve();
    expect(made).toHaveLength(1);
    const carried = JSON.parse(new URL(made[0]!).searchParams.get('calls')!) as { id: number; name: string }[];
    expect(carried.map(({ id, name }) => [id, name])).toEqual([[1, 'listSessions']]);
  });

  it('asks the taken reads again on the next connection when the early one drops before it opens', async () => {
    const { socket } = fakeSocket(0);
    const { transport, made } = client({ socket, calls: [sessions], frames: [], opened: false, closed: false });
    void transport.call('listSessions', {});
    await Promise.resolve();
    socket.onclose!(undefined);
    // The client's usual retry, a quarter of a second on.
    await expect.poll(() => made.length, { timeout: 2_000 }).toBe(1);
    expect(new URL(made[0]!).searchParams.get('calls')).toContain('listSessions');
  });

  it('takes only calls made before its first connection, each once', async () => {
    const { socket, sent } = fakeSocket(1);
    const { transport } = client({ socket, calls: [sessions], frames: [], opened: true, closed: false });
    const first = transport.call('listSessions', {});
    const second = transport.call('listSessions', {});
    await Promise.resolve();
    const third = transport.call('listSessions', {});
    expect(sent.map(({ id }) => id)).toEqual([2, 3]);
    socket.onmessage!({
      data: JSON.stringify({ t: 'results', results: [{ t: 'result', id: 1, ok: true, value: ['early sessions'] }] }),
    });
    expect(await first).toEqual({ ok: true, value: ['early sessions'] });
    socket.onmessage!({ data: JSON.stringify({ t: 'result', id: 2, ok: true, value: 'again' }) });
    socket.onmessage!({ data: JSON.stringify({ t: 'result', id: 3, ok: true, value: 'later' }) });
    expect([await second, await third]).toEqual([
      { ok: true, value: 'again' },
      { ok: true, value: 'later' },
    ]);
  });
});

describe('the early connection of a client closed at once', () => {
  it('is closed with it', async () => {
    let closed = 0;
    const socket = {
      readyState: 1,
      send() {},
      close: () => void closed++,
      onopen: null,
      onclose: null,
      onerror: null,
      onmessage: null,
    };
    const transport = createWsClient({
      url: 'ws://127.0.0.1:9/ws',
      createSocket: () => {
        throw new Error('no second connection');
      },
      early: { socket, calls: [], frames: [], opened: true, closed: false },
    });
    transport.close();
    await Promise.resolve();
    expect(closed).toBe(1);
  });
});

describe('takeEarlySocket', () => {
  const socket = { readyState: 0, send() {}, close() {}, onopen: null, onclose: null, onerror: null, onmessage: null };

  it('takes what the page left once, keeping only the calls that are calls', () => {
    const page: Record<string, unknown> = {
      [EARLY_SOCKET_KEY]: {
        socket,
        calls: [{ t: 'call', id: 1, name: 'listSessions', input: {} }, { t: 'call', id: -1, name: 'x' }, null, 'y'],
        frames: [],
        opened: false,
        closed: false,
      },
    };
    expect(takeEarlySocket(page)?.calls).toEqual([{ t: 'call', id: 1, name: 'listSessions', input: {} }]);
    expect(EARLY_SOCKET_KEY in page).toBe(false);
    expect(takeEarlySocket(page)).toBeNull();
  });

  it('refuses anything not shaped like what the script leaves', () => {
    for (const value of [
      null,
      'socket',
      { socket: null, calls: [], frames: [], opened: false, closed: false },
      { socket, calls: {}, frames: [], opened: false, closed: false },
      { socket, calls: [], frames: [], opened: 'yes', closed: false },
    ])
      expect(takeEarlySocket({ [EARLY_SOCKET_KEY]: value })).toBeNull();
  });
});
