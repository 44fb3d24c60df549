import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startRestHost } from './rest-harness.js';
import { until } from '../helpers.js';
import { backgroundTools, parseArgs, resolveCall } from '../../electron/agent/tools.js';
import type { Services } from '../../electron/core/services.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `node -e` serving HTTP on the port, after `delayMs`, then printing `Local: http://…`. */
function serverCommand(port: number, delayMs = 0): string {
  const script = `setTimeout(()=>require('http').createServer((q,s)=>s.end('ok')).listen(${port},'127.0.0.1',()=>console.log('Local: http://127.0.0.1:${port}/')),${delayMs})`;
  return `node -e "${script}"`;
}

type Call = Awaited<ReturnType<typeof startRestHost>>['call'];

async function rowOf(call: Call, session: string, id: string) {
  return (await call('GET', `/sessions/${session}/background-tasks/${id}`)).body.task as Record<string, any>;
}

describe('REST: monitors', () => {
  it('starts a monitor with notify and check_after_seconds, and refuses monitor fields on a command', async () => {
    const { call, session } = await startRestHost();
    const started = await call('POST', `/sessions/${session}/background-tasks`, {
      command: 'while true; do echo tick; sleep 1; done',
      kind: 'monitor',
      notify: 'exit',
      check_after_seconds: 30,
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      id: 'mon_1',
      kind: 'monitor',
      status: 'running',
      notify_mode: 'exit',
      check_after_seconds: 30,
      ping_due_at: null,
      notify_on_finish: true,
      event_offset: 0,
      ports: [],
      ready: null,
    });
    const scheduled = await call('POST', `/sessions/${session}/background-tasks`, {
      command: 'sleep 30',
      kind: 'monitor',
    });
    expect(scheduled.body).toMatchObject({ id: 'mon_2', notify_mode: 'scheduled', check_after_seconds: 45 });
    expect(Date.parse(scheduled.body.ping_due_at) - Date.parse(scheduled.body.started_at)).toBe(45_000);
    const wrong = await call('POST', `/sessions/${session}/background-tasks`, { command: 'true', notify: 'exit' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toBe('Invalid input: notify: is only for "kind": "monitor"');
    const early = await call('POST', `/sessions/${session}/background-tasks`, {
      command: 'true',
      kind: 'monitor',
      check_after_seconds: 2,
    });
    expect(early.status).toBe(400);
    expect(early.body.error.message).toMatch(/^Invalid input: check_after_seconds: /);
    const lonely = await call('POST', `/sessions/${session}/background-tasks`, {
      command: 'true',
      notify_on_ready: true,
    });
    expect(lonely.body.error.message).toBe('Invalid input: notify_on_ready: needs ready (what counts as ready)');
  });

  it('GET …/events reads from an explicit offset and never moves the stored one', async () => {
    const { call, session } = await startRestHost();
    await call('POST', `/sessions/${session}/background-tasks`, {
      command: 'printf "alpha\\nbeta\\n"; sleep 30',
      kind: 'monitor',
      notify: 'none',
    });
    await until(async () => (await rowOf(call, session, 'mon_1')).last_output_at !== null, 'output');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const path = `/sessions/${session}/background-tasks/mon_1/events`;
    const all = await call('GET', path);
    expect(all.body).toEqual({ text: 'alpha\nbeta', from_offset: 0, next_offset: 11, log_size: 11, more: false });
    const part = await call('GET', `${path}?from_offset=6&max_bytes=2`);
    expect(part.body).toEqual({ text: 'be', from_offset: 6, next_offset: 8, log_size: 11, more: true });
    expect((await rowOf(call, session, 'mon_1')).event_offset).toBe(0);
    const bad = await call('GET', `${path}?max_bytes=2000000`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^Invalid input: max_bytes: /);
    const past = await call('GET', `${path}?from_offset=99`);
    expect(past.status).toBe(400);
    expect(past.body.error.message).toBe('Invalid input: from_offset: 99 is past the end of the log (11 bytes)');
    expect((await call('GET', `/sessions/${session}/background-tasks/mon_7/events`)).status).toBe(404);
  });
});

describe('ports and readiness', () => {
  it('knows which task listens on which port (rows, GET /api/ports), and a ready port check holds then', async () => {
    const { call, session } = await startRestHost();
    const port = await freePort();
    const started = await call('POST', `/sessions/${session}/background-tasks`, {
      command: serverCommand(port, 300),
      ready: { port },
    });
    expect(started.body).toMatchObject({ ready: false, ready_check: { port }, ready_at: null });
    await until(async () => (await rowOf(call, session, 'bg_1')).ready === true, 'ready', 15_000);
    const row = await rowOf(call, session, 'bg_1');
    expect(row.ports).toEqual([port]);
    expect(Date.parse(row.ready_at)).toBeGreaterThanOrEqual(Date.parse(row.started_at) + 300);
    const listed = await call('GET', '/ports');
    expect(listed.body.supported).toBe(true);
    expect(listed.body.ports).toEqual([
      { port, pid: expect.any(Number), task_id: 'bg_1', session_id: session, command: expect.stringContaining('node') },
    ]);
    // Stopped: its ports are gone from the row and the index.
    await call('POST', `/sessions/${session}/background-tasks/bg_1/stop`);
    expect((await rowOf(call, session, 'bg_1')).ports).toEqual([]);
    expect((await call('GET', '/ports')).body.ports).toEqual([]);
  });

  it('becomes ready by http and by pattern; a task that dies first is never ready', async () => {
    const { call, session } = await startRestHost();
    const port = await freePort();
    await call('POST', `/sessions/${session}/background-tasks`, {
      command: serverCommand(port, 200),
      ready: { http: `http://127.0.0.1:${port}/health` },
    });
    const other = await freePort();
    await call('POST', `/sessions/${session}/background-tasks`, {
      command: serverCommand(other, 200),
      ready: { pattern: 'Local:.*http' },
    });
    await call('POST', `/sessions/${session}/background-tasks`, { command: 'exit 3', ready: { pattern: 'never' } });
    await until(async () => (await rowOf(call, session, 'bg_1')).ready === true, 'http ready', 15_000);
    await until(async () => (await rowOf(call, session, 'bg_2')).ready === true, 'pattern ready', 15_000);
    await until(async () => (await rowOf(call, session, 'bg_3')).status === 'failed', 'the early death');
    expect(await rowOf(call, session, 'bg_3')).toMatchObject({ ready: false, ready_at: null });
  });

  it('refuses a check that reaches off this machine, or a pattern that could take exponential time', async () => {
    const { call, session } = await startRestHost();
    const far = await call('POST', `/sessions/${session}/background-tasks`, {
      command: 'true',
      ready: { http: 'http://example.com/' },
    });
    expect(far.status).toBe(400);
    expect(far.body.error.message).toMatch(/^Invalid input: ready\.http: must be an http\(s\) URL on this machine/);
    const slow = await call('POST', `/sessions/${session}/background-tasks`, {
      command: 'true',
      ready: { pattern: '(a+)+$' },
    });
    expect(slow.body.error.message).toMatch(/^Invalid input: ready\.pattern: could take exponential time/);
    const none = await call('POST', `/sessions/${session}/background-tasks`, { command: 'true', ready: {} });
    expect(none.body.error.message).toMatch(/needs at least one of port, http or pattern/);
  });

  it('tells the model which task already holds the port when it starts a dev server twice', async () => {
    const { services, call, session } = await startRestHost();
    const port = await freePort();
    await call('POST', `/sessions/${session}/background-tasks`, { command: serverCommand(port), ready: { port } });
    await until(async () => (await rowOf(call, session, 'bg_1')).ready === true, 'ready', 15_000);
    const answer = await modelCall(services, session, 'run_command', {
      command: `npx serve --port ${port}`,
      background: true,
    });
    expect(answer.text).toContain(`Note: bg_1 (\`${serverCommand(port)}\`) already listens on port ${port}.`);
    const unrelated = await modelCall(services, session, 'run_command', { command: 'sleep 1', background: true });
    expect(unrelated.text).not.toContain('already listens');
    // list_tasks names its kind, its ports and its readiness.
    const listed = (await modelCall(services, session, 'list_tasks', {})).text;
    expect(listed).toMatch(new RegExp(`bg_1 \\[command, running\\].*listening on port ${port} \\| ready since `));
  });
});

async function modelCall(services: Services, sessionId: string, name: string, args: Record<string, unknown>) {
  const tools = backgroundTools(services.pool);
  const resolved = resolveCall(tools, name, args)!;
  return resolved.tool.execute(parseArgs(resolved.tool, resolved.args) as never, {
    sessionId,
    cwd: services.pool.list(sessionId)[0]?.cwd ?? '/',
    signal: new AbortController().signal,
    permit: async () => ({ allowed: true, reason: '' }),
  });
}

describe('REST: kill_shell', () => {
  it('stops a tracked task by its port, and a foreign process alone', async () => {
    const { call, session } = await startRestHost({ policy: { stopGraceMs: 500 } });
    const port = await freePort();
    await call('POST', `/sessions/${session}/background-tasks`, { command: serverCommand(port), ready: { port } });
    await until(async () => (await rowOf(call, session, 'bg_1')).ready === true, 'ready', 15_000);
    const tracked = await call('POST', `/sessions/${session}/kill`, { port });
    expect(tracked.status).toBe(200);
    expect(tracked.body).toMatchObject({ task_id: 'bg_1', port, already_settled: false, signal: null });
    expect((await rowOf(call, session, 'bg_1')).status).toBe('stopped');

    // A server the test started: not Drover's, so it is ended alone, and named.
    const foreignPort = await freePort();
    const child = spawn(process.execPath, ['-e', serverCommand(foreignPort).slice('node -e "'.length, -1)], {
      stdio: ['ignore', 'pipe', 'ignore'],
      // Its own process group: one in Drover's own group is refused (tested with kill_shell).
      detached: true,
    });
    children.push(child);
    await new Promise((resolve) => child.stdout!.once('data', resolve));
    const foreign = await call('POST', `/sessions/${session}/kill`, { port: foreignPort });
    expect(foreign.body).toMatchObject({ task_id: null, pid: child.pid, port: foreignPort, signal: 'SIGTERM' });
    expect(foreign.body.message).toContain('not a Drover task');
    await until(() => child.exitCode !== null || child.signalCode !== null, 'the foreign server to end');
    const nobody = await call('POST', `/sessions/${session}/kill`, { port: foreignPort });
    expect(nobody.status).toBe(404);
    expect(nobody.body.error.message).toContain(`Nothing listens on TCP port ${foreignPort}`);
  });

  it('names what was wrong with a bad target', async () => {
    const { call, session } = await startRestHost();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ pid: 0 }, /pid 0 is refused/],
      [{ pid: -1 }, /pid -1 is refused/],
      [{ pid: 1 }, /pid 1 is refused/],
      [{ pid: 2 ** 31 }, /pid must be a whole number from 2 to 2147483647, not 2147483648/],
      [{ pid: 'abc' }, /pid: /],
      [{ port: 0 }, /port must be a whole number from 1 to 65535, not 0/],
      [{ port: 65_536 }, /not 65536/],
      [{ port: -1 }, /not -1/],
      [{ pid: 5, port: 80 }, /exactly one of taskId, pid or port; pid and port were given together/],
      [{}, /needs a target/],
    ];
    for (const [body, message] of cases) {
      const answer = await call('POST', `/sessions/${session}/kill`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect((await call('POST', `/sessions/${session}/kill`, { task_id: 'bg_9' })).status).toBe(404);
  });
});
