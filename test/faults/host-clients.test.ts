import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { TEST_TOKEN } from '../host/spawn-host.js';
import { DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION, MAX_QUEUED_PER_CONNECTION } from '../../electron/ipc/fair-queue.js';
import {
  auth,
  expectHealthyThenStop,
  hostWithBigTask,
  rawRequest,
  rssBytes,
  waitFor,
  type Fixture,
} from './host-harness.js';

let fixture: Fixture | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  if (fixture && fixture.host.child.exitCode === null) await fixture.host.stop('SIGKILL');
  fixture = undefined;
});

function openWs(f: Fixture): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${f.port}/ws?token=${TEST_TOKEN}`);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Whether the host still holds its end of the connection to `clientPort` open (state 01 in /proc/net/tcp). */
function hostSideEstablished(hostPort: number, clientPort: number): boolean {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .some((line) => {
      const [, local, remote, state] = line.trim().split(/\s+/);
      return local?.endsWith(`:${hex(hostPort)}`) && remote?.endsWith(`:${hex(clientPort)}`) && state === '01';
    });
}

/**
 * Sends `calls` contract calls on one socket at once and counts the answers by outcome (ok, or the
 * error's code); `done` fails, saying so, if the host closes the socket before answering them all.
 */
function sendAll(ws: WebSocket, calls: number, call: () => { name: string; input: unknown }) {
  const outcomes: Record<string, number> = {};
  let answered = 0;
  let closed: number | undefined;
  const done = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.t !== 'result') return;
      const key = frame.ok ? 'ok' : frame.error.code;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
      if (++answered === calls) resolve();
    });
    ws.on('close', (code) => {
      closed = code;
      reject(new Error(`the socket closed (${code}) after ${answered} of ${calls} answers`));
    });
  });
  for (let id = 1; id <= calls; id++) ws.send(JSON.stringify({ t: 'call', id, ...call() }));
  return { outcomes, done, answered: () => answered, closed: () => closed };
}

const infoOk = async (f: Fixture) =>
  (await rawRequest(f.port, { path: '/api/info', headers: auth(f.port) })).status === 200;

describe('a real host under clients that misbehave', () => {
  it('cuts off a WebSocket client that stops reading, with its buffer bounded, while others are served', async () => {
    // The stall time at its least (5 s; 60 by default), so the test need not wait a minute.
    const f = (fixture = await hostWithBigTask({ host: { stalledClientSeconds: 5 } }));
    const ws = await openWs(f);
    let results = 0;
    let closed = false;
    ws.on('message', () => results++);
    ws.on('close', () => (closed = true));
    // Stop reading: the host's answers (about 1 MB each) pile up on its side of the connection.
    (ws as unknown as { _socket: Socket })._socket.pause();
    const calls = DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION + MAX_QUEUED_PER_CONNECTION;
    for (let id = 1; id <= calls; id++)
      ws.send(JSON.stringify({ t: 'call', id, name: 'getTask', input: { sessionId: f.sessionId, taskId: f.taskId } }));
    const baseline = rssBytes(f.host.child.pid!);
    let peak = baseline;
    let othersServed = 0;
    // The host stops answering once 4 MB wait unsent, and cuts the client off when none of it is taken
    // for 5 s; others are asked meanwhile.
    // A paused socket never reads the host's close, so the host's side of the connection is watched instead.
    const clientPort = (ws as unknown as { _socket: Socket })._socket.localPort!;
    expect(hostSideEstablished(f.port, clientPort)).toBe(true);
    const pausedAt = Date.now();
    await waitFor(
      async () => {
        peak = Math.max(peak, rssBytes(f.host.child.pid!));
        if (await infoOk(f)) othersServed++;
        return !hostSideEstablished(f.port, clientPort);
      },
      'the stalled client to be cut off',
      90_000,
    );
    // Well before the default minute: the setting is the one in force.
    expect(Date.now() - pausedAt).toBeLessThan(45_000);
    (ws as unknown as { _socket: Socket })._socket.resume();
    await waitFor(() => closed, 'the stalled socket to close');
    expect(results).toBeLessThan(calls);
    expect(othersServed).toBeGreaterThan(0);
    // A window of answers and what the kernel holds, plus its queue: far under what 272 rendered answers would take.
    expect(peak - baseline).toBeLessThan(256 * 1024 * 1024);
    await expectHealthyThenStop(f);
  }, 120_000);

  it('survives clients that vanish mid-body and mid-answer', async () => {
    const f = (fixture = await hostWithBigTask());
    for (let i = 0; i < 20; i++) {
      // Half a body, then gone.
      const half = connect(f.port, '127.0.0.1');
      sockets.push(half);
      await new Promise((resolve) => half.once('connect', resolve));
      half.write(
        `POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${f.port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Length: 1000\r\n\r\n{"title": "half`,
      );
      half.destroy();
      // The start of a big answer, then gone.
      const early = connect(f.port, '127.0.0.1');
      sockets.push(early);
      await new Promise((resolve) => early.once('connect', resolve));
      early.write(
        `GET /api${f.taskPath} HTTP/1.1\r\nHost: 127.0.0.1:${f.port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n`,
      );
      await new Promise((resolve) => early.once('data', resolve));
      early.destroy();
    }
    expect(await infoOk(f)).toBe(true);
    // No session was made from half a body.
    expect((await f.host.call('GET', '/sessions')).map((s: { title: string }) => s.title)).toEqual(['faults']);
    await expectHealthyThenStop(f);
  });

  it('keeps serving while 500 connections send their headers one byte at a time, and drops them (slowloris)', async () => {
    const f = (fixture = await hostWithBigTask());
    const line = `GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:${f.port}\r\nX-Slow: ${'a'.repeat(200)}\r\n`;
    let closedByHost = 0;
    for (let i = 0; i < 500; i++) {
      const socket = connect(f.port, '127.0.0.1');
      sockets.push(socket);
      socket.on('error', () => {});
      socket.on('close', () => closedByHost++);
    }
    let at = 0;
    const drip = setInterval(() => {
      for (const socket of sockets) if (!socket.destroyed && at < line.length) socket.write(line[at]!);
      at++;
    }, 100);
    try {
      let served = 0;
      await waitFor(async () => {
        if (await infoOk(f)) served++;
        return served >= 20;
      }, 'another client to be served 20 times during the slowloris');
      // The headers never finish: the host's header timeout ends every one of them.
      await waitFor(() => closedByHost === 500, 'the host to drop all 500 slow connections', 90_000);
    } finally {
      clearInterval(drip);
    }
    await expectHealthyThenStop(f);
  }, 120_000);

  it("answers busy past one connection's queue while its share of slow requests waits, and serves others meanwhile", async () => {
    const f = (fixture = await hostWithBigTask());
    // A task that ignores SIGTERM: each stop of it waits out the grace period, so requests pile up for certain.
    const stubborn = await f.host.call('POST', `/sessions/${f.sessionId}/background-tasks`, {
      command: "trap '' TERM; echo armed; while :; do sleep 1; done",
    });
    await waitFor(
      async () =>
        (await f.host.call('GET', `/sessions/${f.sessionId}/background-tasks/${stubborn.id}`)).output.text.includes(
          'armed',
        ),
      'the task to ignore SIGTERM',
    );
    const ws = await openWs(f);
    const share = DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION + MAX_QUEUED_PER_CONNECTION;
    const flood = sendAll(ws, share + 50, () => ({
      name: 'stopTask',
      input: { sessionId: f.sessionId, taskId: stubborn.id },
    }));
    await waitFor(() => (flood.outcomes.busy ?? 0) === 50, 'the 50 requests past the queue to be refused');
    // Refused at once, while the connection's own share still waits: others are served meanwhile.
    expect(flood.outcomes.ok ?? 0).toBe(0);
    expect(await infoOk(f)).toBe(true);
    await flood.done;
    ws.close();
    expect(flood.outcomes).toEqual({ ok: share, busy: 50 });
    await expectHealthyThenStop(f);
  }, 120_000);

  it('answers a getTask flood on one connection, serves others meanwhile, and gives the memory back', async () => {
    const f = (fixture = await hostWithBigTask());
    await f.host.call('GET', f.taskPath);
    const pid = f.host.child.pid!;
    const baseline = rssBytes(pid);
    const ws = await openWs(f);
    const calls = 1_000;
    const flood = sendAll(ws, calls, () => ({ name: 'getTask', input: { sessionId: f.sessionId, taskId: f.taskId } }));
    let servedDuringFlood = 0;
    // A client that reads, however slowly, is paced and never cut off: answers wait for room on its socket.
    while (flood.answered() < calls && flood.closed() === undefined)
      if ((await infoOk(f)) && flood.answered() < calls) servedDuringFlood++;
    await flood.done;
    ws.close();
    // Frames are read one per turn of the event loop, so a fast request may keep its queue short:
    // every answer is a result or busy, and at least the connection's whole share is served.
    expect(flood.outcomes.ok).toBeGreaterThanOrEqual(DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION + MAX_QUEUED_PER_CONNECTION);
    expect((flood.outcomes.ok ?? 0) + (flood.outcomes.busy ?? 0)).toBe(calls);
    expect(servedDuringFlood).toBeGreaterThan(0);
    // An idle host frees the answers' memory when V8's memory reducer runs a full collection, on
    // its own schedule: 0 to 17 s after the flood on an idle machine, over a minute on a busy one.
    await waitFor(
      () => rssBytes(pid) <= baseline * 1.2,
      'the host memory to come back within 20 % of its baseline',
      150_000,
    );
    await expectHealthyThenStop(f);
  }, 240_000);
});
