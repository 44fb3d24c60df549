import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { lowerPriority } from '../../electron/process/priority.js';
import { unixContainers } from '../../electron/process/containers.js';
import { currentUnixOs } from '../../electron/process/unix-os.js';
import { makePool, type Harness, type HarnessOptions } from '../pool/pool-harness.js';
import { until } from '../helpers.js';
import { groupNice, hasAutogroup } from './autogroup.js';

const children: ChildProcess[] = [];
const open: Harness[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
});

/** This process's own nice value: a task never ends up above it, lowered or not. */
const own = getPriority();
/** The value these tests lower to: `nice`'s own default, below any test runner's. */
const NICE = 10;
const lowered = Math.max(own, NICE);

function sleeper(detached: boolean, prefix: string[] = []): ChildProcess {
  const [file, ...args] = [...prefix, 'sleep', '30'];
  const child = spawn(file!, args, { detached, stdio: 'ignore' });
  children.push(child);
  return child;
}

describe('lowerPriority', () => {
  it("lowers a process's nice value, and nothing else (its session's group is the weigher's)", () => {
    const child = sleeper(true);
    const group = hasAutogroup ? groupNice(child.pid!) : null;
    expect(lowerPriority(child.pid!, NICE)).toBeNull();
    expect(getPriority(child.pid!)).toBe(lowered);
    if (hasAutogroup) expect(groupNice(child.pid!)).toBe(group);
  });

  it('never raises a priority: a process already nicer keeps its value', async () => {
    const child = sleeper(true, ['nice', '-n', '15']);
    await until(() => readFileSync(`/proc/${child.pid}/comm`, 'utf8') === 'sleep\n', 'nice to run sleep', 5_000);
    const before = getPriority(child.pid!);
    expect(before).toBeGreaterThan(10);
    expect(lowerPriority(child.pid!, 10)).toBeNull();
    expect(getPriority(child.pid!)).toBe(before);
  });

  it('a process already gone is no failure', async () => {
    const child = spawn('true', [], { stdio: 'ignore' });
    await new Promise((done) => child.once('exit', done));
    expect(lowerPriority(child.pid!, NICE)).toBeNull();
  });
});

const cgroups = unixContainers({ instanceId: 'probe0000000', os: currentUnixOs() }).kind === 'cgroup';
const modes = cgroups ? (['cgroup', 'group'] as const) : (['group'] as const);

describe.each(modes)('tasks in a %s', (mode) => {
  function harness(options: HarnessOptions): Harness {
    const h = makePool({}, undefined, { containment: mode === 'group' ? 'group' : 'auto', ...options });
    open.push(h);
    return h;
  }
  /** Types a line into the task once its start is complete (a write is refused until then). */
  async function goOn(h: Harness, taskId: string): Promise<void> {
    await until(
      () => {
        try {
          h.pool.write(h.sessionId, taskId, 'go\n');
          return true;
        } catch {
          return false;
        }
      },
      'the task to have started',
      10_000,
    );
  }
  // The command waits for a line, so what it starts comes after its start is complete (the shell
  // may fork before Drover lowers it: see the next test). `nice` alone prints the value it runs at;
  // the inner sh shows what a grandchild gets.
  const command = 'read -r go; echo start; nice; sh -c nice; cat /proc/self/autogroup 2>/dev/null || true';
  /** What the command printed after `start`. */
  const printed = (path: string) => {
    const lines = readFileSync(path, 'utf8').split(/\r?\n/);
    return lines.slice(lines.indexOf('start') + 1);
  };

  for (const tty of [false, true]) {
    it(`on ${tty ? 'a terminal' : 'pipes'}: started at the nice value set, at Drover's own with 0`, async () => {
      let nice = NICE;
      const h = harness({ taskNice: () => nice });
      const { pool, sessionId } = h;
      const low = await pool.start({ sessionId, command, cwd: tmpdir(), tty });
      await goOn(h, low.id);
      expect((await pool.waitFor(low.id, 10_000))?.status).toBe('succeeded');
      nice = 0;
      const normal = await pool.start({ sessionId, command, cwd: tmpdir(), tty });
      await goOn(h, normal.id);
      expect((await pool.waitFor(normal.id, 10_000))?.status).toBe('succeeded');
      expect(printed(low.logPath).slice(0, 2)).toEqual([String(lowered), String(lowered)]);
      expect(printed(normal.logPath).slice(0, 2)).toEqual([String(own), String(own)]);
      if (hasAutogroup) {
        expect(printed(low.logPath)[2]).toMatch(new RegExp(`nice ${NICE}$`));
        expect(printed(normal.logPath)[2]).toMatch(/nice 0$/);
      }
    });
  }

  if (mode === 'cgroup')
    it('a process the shell started before it was lowered is lowered too once the task has started', async () => {
      const h = harness({ taskNice: () => NICE });
      const task = await h.pool.start({
        sessionId: h.sessionId,
        command: 'sleep 30 & echo "child=$!"; read -r go; kill $!',
        cwd: tmpdir(),
        tty: false,
      });
      await goOn(h, task.id);
      await until(() => /child=\d+/.test(readFileSync(task.logPath, 'utf8')), 'the child to be printed', 10_000);
      const child = Number(/child=(\d+)/.exec(readFileSync(task.logPath, 'utf8'))![1]);
      expect(getPriority(child)).toBe(lowered);
      expect((await h.pool.waitFor(task.id, 10_000))?.status).toBe('succeeded');
    });
});
