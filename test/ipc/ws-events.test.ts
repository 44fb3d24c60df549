import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createWsClient, type WebSocketLike } from '../../shared/ipc/ws-client.js';
import { ServerFrameSchema } from '../../shared/ipc/ws-protocol.js';
import { ContractWsServer } from '../../electron/ipc/ws-server.js';
import { serveContract } from './ws-serve.js';

/**
 * The host's events go out once per turn of its event loop, together in one frame (issue 18: fifty
 * chatty tasks' output ticks were fifty frames for each page to read and lay out one by one).
 */

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

type Emit = (name: string, payload: unknown) => void;

/** A host whose handler runs `onCall` (which may emit events) and answers with the call's name. */
async function serve(onCall: (name: string, emit: Emit) => void = () => {}) {
  let emit: Emit = () => {};
  const ws = new ContractWsServer({
    handle: async (name) => {
      onCall(name, emit);
      return { ok: true, value: `answered ${name}` };
    },
    subscribe: (listener) => {
      emit = listener;
      return () => {};
    },
  });
  const url = `${await serveContract(ws, closers)}?token=t`;
  return { url, emit: (name: string, payload: unknown) => emit(name, payload) };
}

/** A bare socket that keeps every frame it receives, parsed. */
async function rawClient(url: string) {
  const socket = new WebSocket(url);
  const frames: { t: string; [key: string]: unknown }[] = [];
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as { t: string }));
  await new Promise((resolve) => socket.once('open', resolve));
  closers.push(() => socket.close());
  return { socket, frames };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
}

describe('events over the WebSocket', () => {
  it('sends the events of one turn in one frame, in order, and a lone event as an event frame', async () => {
    const host = await serve();
    const client = await rawClient(host.url);
    host.emit('taskOutput', { taskId: 'bg_1', totalBytes: 10 });
    host.emit('taskOutput', { taskId: 'bg_2', totalBytes: 20 });
    host.emit('taskChanged', { id: 'bg_1' });
    await until(() => client.frames.length >= 1);
    host.emit('taskOutput', { taskId: 'bg_3', totalBytes: 30 });
    await until(() => client.frames.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(client.frames).toEqual([
      {
        t: 'events',
        events: [
          { name: 'taskOutput', payload: { taskId: 'bg_1', totalBytes: 10 } },
          { name: 'taskOutput', payload: { taskId: 'bg_2', totalBytes: 20 } },
          { name: 'taskChanged', payload: { id: 'bg_1' } },
        ],
      },
      { t: 'event', name: 'taskOutput', payload: { taskId: 'bg_3', totalBytes: 30 } },
    ]);
    for (const frame of client.frames) expect(ServerFrameSchema.safeParse(frame).success).toBe(true);
  });

  it('sends what happened before an answer ahead of the answer', async () => {
    const host = await serve((name, emit) => {
      emit('taskChanged', { id: `${name}-1` });
      emit('taskChanged', { id: `${name}-2` });
    });
    const client = await rawClient(host.url);
    client.socket.send(JSON.stringify({ t: 'call', id: 7, name: 'startTask', input: {} }));
    await until(() => client.frames.some((frame) => frame.t === 'result'));
    expect(client.frames).toEqual([
      {
        t: 'events',
        events: [
          { name: 'taskChanged', payload: { id: 'startTask-1' } },
          { name: 'taskChanged', payload: { id: 'startTask-2' } },
        ],
      },
      { t: 'result', id: 7, ok: true, value: 'answered startTask' },
    ]);
  });

  it("gives the client's listeners every event of a frame, in order, and the same to every client", async () => {
    const host = await serve();
    const seen: [string, string, unknown][] = [];
    for (const who of ['a', 'b']) {
      const client = createWsClient({
        url: host.url,
        createSocket: (url) => new WebSocket(url) as unknown as WebSocketLike,
      });
      closers.push(() => client.close());
      client.subscribe((name, payload) => seen.push([who, name, payload]));
      await client.call('ping', {}); // open
    }
    host.emit('one', 1);
    host.emit('two', 2);
    host.emit('three', 3);
    await until(() => seen.length === 6);
    expect(seen.filter(([who]) => who === 'a')).toEqual([
      ['a', 'one', 1],
      ['a', 'two', 2],
      ['a', 'three', 3],
    ]);
    expect(seen.filter(([who]) => who === 'b').map(([, name]) => name)).toEqual(['one', 'two', 'three']);
  });

  it('keeps giving the events of a frame when a listener throws on one of them, and reports the error', async () => {
    const host = await serve();
    const client = createWsClient({
      url: host.url,
      createSocket: (url) => new WebSocket(url) as unknown as WebSocketLike,
    });
    closers.push(() => client.close());
    const seen: string[] = [];
    client.subscribe((name) => {
      seen.push(name);
      if (name === 'one') throw new Error('a listener failed on one');
    });
    const other: string[] = [];
    client.subscribe((name) => other.push(name));
    await client.call('ping', {}); // open
    const reported = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      host.emit('one', 1);
      host.emit('two', 2);
      await until(() => other.length === 2);
      expect(seen).toEqual(['one', 'two']);
      expect(other).toEqual(['one', 'two']);
      expect(reported).toHaveBeenCalledWith('Drover: an event listener failed:', new Error('a listener failed on one'));
    } finally {
      reported.mockRestore();
    }
  });
});
