import { once } from 'node:events';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createKillTool } from '../../electron/agent/kill-tool.js';
import { parseArgs, ToolCallError, type ToolContext } from '../../electron/agent/tools.js';
import { currentUnixOs } from '../../electron/process/unix-os.js';
import { groupRuns, logText, makePool, pidAlive, type Harness } from '../pool/pool-harness.js';
import { exited, killChildren, serverScript, startNode } from '../process/child-lines.js';
import { until } from '../helpers.js';

const open: Harness[] = [];
afterEach(async () => {
  killChildren();
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
});

function setup(permit: ToolContext['permit'] = async () => ({ allowed: true, reason: '' })) {
  const h = makePool();
  open.push(h);
  const tool = createKillTool({ pool: h.pool, instanceId: h.instanceId, os: currentUnixOs() });
  const context: ToolContext = {
    sessionId: h.sessionId,
    cwd: tmpdir(),
    signal: new AbortController().signal,
    permit,
  };
  const kill = (args: Record<string, unknown>) => tool.execute(parseArgs(tool, args) as never, context);
  return { h, tool, kill };
}

/** Starts a task and resolves with the first line matching `pattern` in its log. */
async function taskPrinting(h: Harness, command: string, pattern: RegExp) {
  const task = await h.pool.start({ sessionId: h.sessionId, command, cwd: tmpdir() });
  await until(() => pattern.test(logText(task.logPath)), `${task.id} to print ${String(pattern)}`, 15_000);
  return { task, match: pattern.exec(logText(task.logPath))! };
}

describe('kill_shell input', () => {
  const { tool } = setup();
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['none', {}, /exactly one of task_id, pid or port; none was given/],
    ['two', { pid: 1234, port: 3000 }, /exactly one of task_id, pid or port; pid and port were given together/],
    ['pid 0', { pid: 0 }, /pid: pid 0 is refused: .*every process.*task_id, pid or port/],
    ['pid -1', { pid: -1 }, /pid: pid -1 is refused/],
    ['pid 1', { pid: 1 }, /pid: pid 1 is refused: it is the system's init process/],
    ['pid 2^31', { pid: 2 ** 31 }, /pid must be a whole number from 2 to 2147483647, not 2147483648/],
    ['pid NaN', { pid: NaN }, /pid must be a whole number .*, not NaN/],
    ['pid string', { pid: '123' }, /pid must be a whole number .*, not "123"/],
    [
      'port 0',
      { port: 0 },
      /port: port must be a whole number from 1 to 65535, not 0\. Give exactly one of task_id, pid or port/,
    ],
    ['port 65536', { port: 65536 }, /not 65536/],
    ['port -1', { port: -1 }, /not -1/],
    ['unknown field', { signal: 'KILL' }, /takes only task_id, pid or port, not signal/],
  ];
  it.each(bad)('refuses %s with an error naming the targets and the value', (_name, args, message) => {
    let error: unknown;
    try {
      parseArgs(tool, args);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ToolCallError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('task_id, pid or port');
  });

  it('accepts exactly one target', () => {
    expect(parseArgs(tool, { pid: 4321 })).toEqual({ pid: 4321 });
    expect(parseArgs(tool, { port: 8080 })).toEqual({ port: 8080 });
    expect(parseArgs(tool, { task_id: 'bg_1' })).toEqual({ task_id: 'bg_1' });
  });
});

describe.runIf(process.platform === 'linux')('kill_shell with real processes', () => {
  it('stops a task by id as a whole, and says so when it had already settled', async () => {
    const { h, kill } = setup();
    const { task, match } = await taskPrinting(h, 'sleep 300 & echo "child $!"; wait', /child (\d+)/);
    const first = await kill({ task_id: task.id });
    expect(first.display).toMatchObject({ kind: 'killed', taskId: task.id, alreadySettled: false });
    expect(first.text).toContain(`Task ${task.id}: stopped the whole task`);
    expect(pidAlive(Number(match[1]))).toBe(false);
    const again = await kill({ task_id: task.id });
    expect(again.display).toMatchObject({ alreadySettled: true });
    expect(again.text).toMatch(/had already settled .*Nothing was stopped/);
    await expect(kill({ task_id: 'bg_99' })).rejects.toThrow(/No task "bg_99"/);
  });

  it('stops the whole task for the pid of one of its processes', async () => {
    const { h, kill } = setup();
    const { task, match } = await taskPrinting(h, 'sleep 300 & echo "child $!"; wait', /child (\d+)/);
    const leader = h.pool.row(h.sessionId, task.id).pid!;
    const outcome = await kill({ pid: Number(match[1]) });
    expect(outcome.taskId).toBe(task.id);
    expect(outcome.text).toMatch(
      new RegExp(`^Pid ${match[1]} belongs to task ${task.id} \\(in its (process group|cgroup)`),
    );
    expect(h.pool.row(h.sessionId, task.id).status).toBe('stopped');
    expect(groupRuns(leader)).toBe(false);
  });

  it('signals an untracked pid alone: it dies, its own child does not', async () => {
    const { kill } = setup();
    const { child, line } = await startNode(
      "const c = require('child_process').spawn('sleep', ['300'], { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1e6);",
      { detached: true },
    );
    const outcome = await kill({ pid: child.pid });
    expect(outcome.display).toMatchObject({ kind: 'killed', taskId: null, pid: child.pid, signal: 'SIGTERM' });
    expect(outcome.text).toMatch(/not a Drover task: it was signalled alone/);
    expect(await exited(child)).toBe('SIGTERM');
    expect(pidAlive(Number(line))).toBe(true);
    process.kill(Number(line), 'SIGKILL');
  });

  it("asks the gate before it ends a process that is not Drover's, and leaves it alone when the person says no", async () => {
    const asked: string[] = [];
    const { h, kill } = setup(async (command) => {
      asked.push(command);
      return { allowed: false, reason: 'rejected', rejected: true };
    });
    const { child } = await startNode('setInterval(() => {}, 1e6); console.log("up");', { detached: true });
    const outcome = await kill({ pid: child.pid });
    expect(asked).toEqual([`kill ${child.pid}`]);
    expect(outcome).toMatchObject({ failed: true, rejected: true, display: { kind: 'not_run', rejected: true } });
    expect(outcome.text).toContain(`Not run: the person rejected \`kill ${child.pid}\``);
    expect(pidAlive(child.pid!)).toBe(true);
    // A task of its own is Drover's to stop: no question.
    const task = await h.pool.start({ sessionId: h.sessionId, command: 'sleep 30', cwd: tmpdir() });
    await until(() => h.pool.row(h.sessionId, task.id).pid !== null, 'the start');
    await kill({ pid: h.pool.row(h.sessionId, task.id).pid! });
    expect(asked).toHaveLength(1);
    expect(h.pool.row(h.sessionId, task.id).status).toBe('stopped');
    // Refused or gone: said at once, the person never asked.
    await expect(kill({ pid: process.pid })).rejects.toThrow('is Drover itself');
    await expect(kill({ pid: 2_147_000_000 })).rejects.toThrow('no process has pid 2147000000');
    expect(asked).toHaveLength(1);
  });

  it("refuses Drover's own pid, its parent and its own group, with the reason", async () => {
    const { kill } = setup();
    await expect(kill({ pid: process.pid })).rejects.toThrow(`pid ${process.pid} is Drover itself`);
    await expect(kill({ pid: process.ppid })).rejects.toThrow('the process that started Drover');
    const sibling = await startNode("console.log('up'); setInterval(() => {}, 1e6);");
    await expect(kill({ pid: sibling.child.pid })).rejects.toThrow("in Drover's own process group");
    expect(pidAlive(sibling.child.pid!)).toBe(true);
  });

  it('stops the task that listens on a port', async () => {
    const { h, kill } = setup();
    const { task, match } = await taskPrinting(
      h,
      `node -e "require('net').createServer().listen(0, function () { console.log('port ' + this.address().port) })"`,
      /port (\d+)/,
    );
    const outcome = await kill({ port: Number(match[1]) });
    expect(outcome.display).toMatchObject({ kind: 'killed', taskId: task.id, port: Number(match[1]) });
    expect(outcome.text).toContain(`Port ${match[1]} is held by task ${task.id}`);
    expect(h.pool.row(h.sessionId, task.id).status).toBe('stopped');
  });

  it('says whose a foreign port is and stops only that process', async () => {
    const { kill } = setup();
    const { child, line } = await startNode(serverScript(), { detached: true });
    const outcome = await kill({ port: Number(line) });
    expect(outcome.display).toMatchObject({ kind: 'killed', taskId: null, pid: child.pid, port: Number(line) });
    expect(outcome.text).toContain(`pid ${child.pid} (${process.execPath} -e`);
    expect(await exited(child)).toBe('SIGTERM');
  });

  it('refuses a port Drover itself listens on', async () => {
    const { kill } = setup();
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    await expect(kill({ port })).rejects.toThrow(`pid ${process.pid} is Drover itself`);
    server.close();
  });

  it('says nothing listens on a free port', async () => {
    const { kill } = setup();
    const { child, line } = await startNode(serverScript(), { detached: true });
    child.kill('SIGKILL');
    await exited(child);
    await expect(kill({ port: Number(line) })).rejects.toThrow(
      `Nothing listens on TCP port ${line}; nothing was stopped.`,
    );
  });
});
