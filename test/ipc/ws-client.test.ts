import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createWsClient, type WebSocketLike } from '../../shared/ipc/ws-client.js';
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
