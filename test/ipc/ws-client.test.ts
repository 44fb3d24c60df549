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

describe('frames that come before the client has its schemas', () => {
  it('are read once the schemas are loaded, in the order they came, and a malformed one is still dropped', async () => {
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
    const events: unknown[] = [];
    client.subscribe((name, payload) => events.push([name, payload]));
    const first = client.call('one', {});
    const second = client.call('two', {});
    // The socket is made a microtask after the client; the frames come in that same turn, before the
    // schemas' module has been imported.
    await Promise.resolve();
    socket.onopen!(undefined);
    expect(sent.map((frame) => (JSON.parse(frame) as { name: string }).name)).toEqual(['one', 'two']);
    socket.onmessage!({ data: JSON.stringify({ t: 'event', name: 'e', payload: 1 }) });
    socket.onmessage!({ data: JSON.stringify({ t: 'result', id: 2, ok: true, value: 'second' }) });
    socket.onmessage!({ data: JSON.stringify({ t: 'result', id: 1, ok: 'yes', value: 'not a frame' }) });
    socket.onmessage!({ data: JSON.stringify({ t: 'event', name: 'e', payload: 2 }) });
    socket.onmessage!({ data: JSON.stringify({ t: 'result', id: 1, ok: true, value: 'first' }) });
    expect(events).toEqual([]);
    expect(await second).toEqual({ ok: true, value: 'second' });
    expect(await first).toEqual({ ok: true, value: 'first' });
    expect(events).toEqual([
      ['e', 1],
      ['e', 2],
    ]);
  });
});
