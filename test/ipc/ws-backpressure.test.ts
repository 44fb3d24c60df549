import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ContractWsServer } from '../../electron/ipc/ws-server.js';
import { DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION } from '../../electron/ipc/fair-queue.js';
import { serveContract } from './ws-serve.js';

const ANSWER = 'x'.repeat(1024 * 1024);
const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A server whose every call is answered with 1 MB, counting the calls it has run. */
async function serve(stallMs: number) {
  let ran = 0;
  const server = new ContractWsServer(
    {
      handle: async () => {
        ran++;
        return { ok: true, value: ANSWER };
      },
      subscribe: () => () => {},
    },
    { stallMs },
  );
  const ws = new WebSocket(await serveContract(server, closers));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  closers.push(() => ws.terminate());
  let answers = 0;
  let closed = false;
  ws.on('message', () => answers++);
  ws.on('close', () => (closed = true));
  const raw = (ws as unknown as { _socket: Socket })._socket;
  const flood = (calls: number) => {
    for (let id = 1; id <= calls; id++) ws.send(JSON.stringify({ t: 'call', id, name: 'getTask', input: {} }));
  };
  return { server, raw, flood, ran: () => ran, answers: () => answers, closed: () => closed };
}

const settle = async (value: () => number) => {
  // Until the figure holds still for half a second.
  for (let last = -1; ;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (value() === last) return last;
    last = value();
  }
};

describe('a WebSocket client that reads slowly paces its own calls', () => {
  it('runs no more of its calls while its answers wait unread, then answers them all once it reads', async () => {
    const s = await serve(60_000);
    s.raw.pause();
    const calls = 200;
    s.flood(calls);
    const ran = await settle(s.ran);
    // Its slots, plus the answers that fit in the window and the kernel's buffers: far fewer than it asked for.
    expect(ran).toBeGreaterThanOrEqual(DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION);
    expect(ran).toBeLessThan(calls / 2);
    expect(s.answers()).toBe(0);
    s.raw.resume();
    await expect.poll(s.answers, { timeout: 30_000 }).toBe(calls);
    expect(s.ran()).toBe(calls);
    expect(s.closed()).toBe(false);
  }, 60_000);

  it('cuts off a client that takes nothing for the stall time', async () => {
    const s = await serve(400);
    s.raw.pause();
    s.flood(100);
    await expect.poll(() => s.server.clientCount, { timeout: 10_000 }).toBe(0);
    // None of the calls still queued for it runs once it is gone.
    const ran = s.ran();
    expect(ran).toBeLessThan(100);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.ran()).toBe(ran);
  });

  it('keeps a client that reads in fits and starts, each pause shorter than the stall time', async () => {
    const s = await serve(3_000);
    const calls = 60;
    s.flood(calls);
    while (s.answers() < calls && !s.closed()) {
      s.raw.pause();
      await new Promise((resolve) => setTimeout(resolve, 300));
      s.raw.resume();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(s.closed()).toBe(false);
    expect(s.server.clientCount).toBe(1);
  }, 60_000);
});
