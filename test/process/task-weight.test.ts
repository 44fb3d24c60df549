import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import {
  GROUP_WRITE_PAUSE_MS,
  sessionGroupsApply,
  sharedNice,
  taskCpuMicros,
  TaskWeigher,
  writeSessionGroup,
  type WeighedTask,
} from '../../electron/process/task-weight.js';
import { makePool, type Harness } from '../pool/pool-harness.js';
import { until } from '../helpers.js';

const children: ChildProcess[] = [];
const weighers: TaskWeigher[] = [];
const open: Harness[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const w of weighers.splice(0)) w.stop();
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
});

const hasAutogroup = existsSync('/proc/self/autogroup');
const groupNice = (pid: number | 'self') =>
  Number(/nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))![1]);

describe('sharedNice', () => {
  it('gives n groups the nice value whose weights add up nearest one group at nice 0', () => {
    expect(sharedNice(0)).toBe(0);
    expect(sharedNice(1)).toBe(0);
    expect(sharedNice(2)).toBe(3); // 526 each
    expect(sharedNice(3)).toBe(5); // 335 each
    expect(sharedNice(10)).toBe(10); // 110 each
    expect(sharedNice(50)).toBe(17); // 23 each
    expect(sharedNice(10_000)).toBe(19);
    for (let n = 1; n < 200; n++) expect(sharedNice(n + 1)).toBeGreaterThanOrEqual(sharedNice(n));
  });
});

describe('sessionGroupsApply', () => {
  const machine =
    (files: Record<string, string>) =>
    (file: string): string | null => {
      for (const [name, text] of Object.entries(files)) if (file === name || file.endsWith(name)) return text;
      return null;
    };
  const on = { '/proc/sys/kernel/sched_autogroup_enabled': '1\n' };

  it('holds with autogroup on and the cpu controller of cgroup v1 at its root', () => {
    const read = machine({ ...on, '/proc/7/cgroup': '4:memory:/x\n1:cpu,cpuacct:/\n0::/\n' });
    expect(sessionGroupsApply(7, read)).toBe(true);
  });

  it('does not with autogroup off, or under a cgroup v1 cpu controller below its root', () => {
    expect(sessionGroupsApply(7, machine({ '/proc/sys/kernel/sched_autogroup_enabled': '0\n' }))).toBe(false);
    expect(sessionGroupsApply(7, machine({ ...on, '/proc/7/cgroup': '1:cpu,cpuacct:/user.slice\n0::/\n' }))).toBe(
      false,
    );
  });

  it("on cgroup v2 alone, holds unless cpu is among the process's cgroup's controllers", () => {
    const procs = { ...on, '/proc/7/cgroup': '0::/user.slice/app.scope\n' };
    expect(sessionGroupsApply(7, machine({ ...procs, '/cgroup.controllers': 'memory pids\n' }))).toBe(true);
    expect(sessionGroupsApply(7, machine({ ...procs, '/cgroup.controllers': 'cpuset cpu io memory pids\n' }))).toBe(
      false,
    );
    expect(sessionGroupsApply(7, machine({ ...on, '/proc/7/cgroup': '0::/\n' }))).toBe(true);
  });

  it('does not where it cannot tell', () => {
    expect(sessionGroupsApply(7, machine(on))).toBe(false);
  });
});

/** A task whose CPU time the test sets. */
function fakeTask(leader: number): WeighedTask & { used: number; living: boolean } {
  return {
    leader,
    used: 0,
    living: true,
    cpuMicros() {
      return this.used;
    },
    alive() {
      return this.living;
    },
  };
}

function weigher(options: Partial<ConstructorParameters<typeof TaskWeigher>[0]> = {}) {
  const written: [number, number][] = [];
  const logged: string[] = [];
  const w = new TaskWeigher({
    floor: () => 0,
    share: () => true,
    log: (m) => logged.push(m),
    everyMs: 3_600_000, // counted by hand below
    write: (leader, nice) => void written.push([leader, nice]),
    ...options,
  });
  weighers.push(w);
  return { w, written, logged };
}

describe('TaskWeigher', () => {
  it('gives busy tasks one program weight between them, and a task busy alone the full weight', async () => {
    const { w, written } = weigher();
    const tasks = [1, 2, 3, 4].map(fakeTask);
    w.track(tasks[0]!);
    expect(written).toEqual([]); // alone: nice 0, as a new session's group already is
    for (const t of tasks.slice(1)) w.track(t);
    // Each new task is counted busy and weighed at once; the earlier ones at the next count.
    expect(written).toEqual([
      [2, 3],
      [3, 5],
      [4, 6],
    ]);
    written.length = 0;
    await new Promise((done) => setTimeout(done, 20));
    for (const t of tasks) t.used += 1_000_000; // a whole second each: busy
    w.weigh();
    expect(written).toEqual([
      [1, 6],
      [2, 6],
      [3, 6],
    ]);
    expect(w.snapshot().map((s) => s.nice)).toEqual([6, 6, 6, 6]);
    written.length = 0;
    await new Promise((done) => setTimeout(done, 20));
    tasks[0]!.used += 1_000_000; // only the first still works
    w.weigh();
    expect(w.snapshot().map((s) => s.busy)).toEqual([true, false, false, false]);
    expect(written).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 0],
    ]);
  });

  it('keeps every group at the floor, and only the floor with sharing off', () => {
    let share = true;
    const { w, written } = weigher({ floor: () => 12, share: () => share });
    const [a, b] = [fakeTask(1), fakeTask(2)];
    w.track(a);
    w.track(b);
    expect(written).toEqual([
      [1, 12],
      [2, 12],
    ]);
    share = false;
    w.weigh();
    expect(w.snapshot().map((s) => s.nice)).toEqual([12, 12]);
  });

  it('writes nothing for a task whose shell has gone, or once it is untracked, and stops its clock with the last task', () => {
    const { w, written } = weigher();
    const [a, b] = [fakeTask(1), fakeTask(2)];
    const untrackA = w.track(a);
    a.living = false;
    w.track(b);
    expect(written).toEqual([[2, 3]]);
    untrackA();
    w.weigh();
    expect(w.snapshot().map((s) => s.leader)).toEqual([2]);
  });

  it("follows the kernel's pace for unprivileged changes: on EAGAIN the rest wait and are all written", async () => {
    const landed: [number, number][] = [];
    let lastAt = 0;
    const { w } = weigher({
      write: (leader, nice) => {
        // The kernel's rule: one change per 100 ms.
        if (Date.now() - lastAt < 100) throw Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' });
        lastAt = Date.now();
        landed.push([leader, nice]);
      },
    });
    const tasks = [1, 2, 3, 4].map(fakeTask);
    const started = Date.now();
    for (const t of tasks) w.track(t);
    await until(() => landed.length === 3, 'the three changes to land', 5_000);
    expect(landed).toEqual([
      [2, 3],
      [3, 5],
      [4, 6],
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * GROUP_WRITE_PAUSE_MS - 20);
  });

  it('says once, in words, when a group cannot be changed, and goes on with the others', () => {
    const tried: number[] = [];
    const { w, logged } = weigher({
      write: (leader) => {
        tried.push(leader);
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    });
    for (const t of [1, 2, 3].map(fakeTask)) w.track(t);
    expect(tried).toEqual([2, 3]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/could not weigh the scheduling group of task process 2: EACCES.*said once per run/);
  });
});

describe.runIf(hasAutogroup)('session groups on this machine', () => {
  it("writes a session leader's group, and never the group of a process that does not lead its session", () => {
    const leader = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const member = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(leader, member);
    const own = readFileSync('/proc/self/autogroup', 'utf8');
    writeSessionGroup(leader.pid!, 7);
    expect(groupNice(leader.pid!)).toBe(7);
    writeSessionGroup(member.pid!, 7);
    expect(readFileSync('/proc/self/autogroup', 'utf8')).toBe(own);
    expect(readFileSync(`/proc/${member.pid}/autogroup`, 'utf8')).toBe(own);
  });

  it("reads a process-group task's CPU time from its shell, the children it waited for included", async () => {
    const child = spawn('sh', ['-c', 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; sleep 30'], {
      stdio: 'ignore',
    });
    children.push(child);
    const first = taskCpuMicros(child.pid!, null)!;
    await until(() => taskCpuMicros(child.pid!, null)! - first >= 100_000, 'a tenth of a second of CPU', 20_000);
    expect(taskCpuMicros(999_999_999, null)).toBeNull();
  });

  it.runIf(sessionGroupsApply('self'))(
    'pool tasks: three busy ones share one weight, the one left busy is given the full weight back',
    async () => {
      const h = makePool({}, undefined, { shareTaskCpu: () => true });
      open.push(h);
      const { pool, sessionId } = h;
      const start = () =>
        pool.start({ sessionId, command: 'echo "pid=$$"; while :; do :; done', cwd: tmpdir(), tty: false });
      const tasks = [await start(), await start(), await start()];
      const leaders: number[] = [];
      for (const task of tasks) {
        await until(() => /pid=\d+/.test(readFileSync(task.logPath, 'utf8')), 'the shell to print its pid', 10_000);
        leaders.push(Number(/pid=(\d+)/.exec(readFileSync(task.logPath, 'utf8'))![1]));
      }
      await until(() => leaders.every((pid) => groupNice(pid) === sharedNice(3)), 'three groups at one share', 10_000);
      await pool.stop(sessionId, tasks[1]!.id);
      await pool.stop(sessionId, tasks[2]!.id);
      await until(() => groupNice(leaders[0]!) === 0, 'the last busy task back at the full weight', 10_000);
      await pool.stop(sessionId, tasks[0]!.id);
    },
  );
});
