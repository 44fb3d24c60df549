import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
import { linuxStat } from '../../electron/process/unix-os.js';
import { makePool, type Harness } from '../pool/pool-harness.js';
import { until } from '../helpers.js';
import { groupNice, hasAutogroup } from './autogroup.js';

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

  it("on cgroup v2 alone, holds unless cpu is among the controllers of the process's cgroup or any above it", () => {
    const procs = { ...on, '/proc/7/cgroup': '0::/user.slice/app.scope/drover-x/bg_1\n' };
    const below = (cpuAt: string | null) => {
      const files: Record<string, string> = { ...procs };
      for (const dir of [
        '/user.slice',
        '/user.slice/app.scope',
        '/user.slice/app.scope/drover-x',
        '/user.slice/app.scope/drover-x/bg_1',
      ])
        files[`${dir}/cgroup.controllers`] = dir === cpuAt ? 'cpu memory pids\n' : 'memory pids\n';
      return machine(files);
    };
    expect(sessionGroupsApply(7, below(null))).toBe(true);
    expect(sessionGroupsApply(7, below('/user.slice/app.scope/drover-x/bg_1'))).toBe(false);
    // The task's own cgroup has no controller, but the app's scope is weighed: so is the task, inside it.
    expect(sessionGroupsApply(7, below('/user.slice/app.scope'))).toBe(false);
    expect(sessionGroupsApply(7, below('/user.slice'))).toBe(false);
    expect(sessionGroupsApply(7, machine({ ...on, '/proc/7/cgroup': '0::/\n' }))).toBe(true);
  });

  it('does not where it cannot tell', () => {
    expect(sessionGroupsApply(7, machine(on))).toBe(false);
  });
});

/** A task whose CPU time, and the process its group is reached through, the test sets. */
function fakeTask(leader: number): WeighedTask & { used: number; through: number | null } {
  return {
    leader,
    used: 0,
    through: leader,
    cpuMicros() {
      return this.used;
    },
    via() {
      return this.through;
    },
  };
}

/** A weigher whose groups are a map the test reads: [pid written through, nice] for each write. */
function weigher(options: Partial<ConstructorParameters<typeof TaskWeigher>[0]> = {}) {
  const written: [number, number][] = [];
  const logged: string[] = [];
  const w = new TaskWeigher({
    floor: () => 0,
    share: () => true,
    log: (m) => logged.push(m),
    everyMs: 3_600_000, // counted by hand below
    write: (pid, _session, nice) => {
      written.push([pid, nice]);
      return true;
    },
    ...options,
  });
  weighers.push(w);
  return { w, written, logged };
}

const pause = () => new Promise((done) => setTimeout(done, 20));

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
    await pause();
    for (const t of tasks) t.used += 1_000_000; // a whole second each: busy
    w.weigh();
    expect(written).toEqual([
      [1, 6],
      [2, 6],
      [3, 6],
    ]);
    expect(w.snapshot().map((s) => s.nice)).toEqual([6, 6, 6, 6]);
    written.length = 0;
    await pause();
    tasks[0]!.used += 1_000_000; // the first still works, the second a little, the others not at all
    tasks[1]!.used += 100;
    w.weigh();
    expect(w.snapshot().map((s) => s.busy)).toEqual([true, false, false, false]);
    expect(written).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 0],
    ]);
  });

  it('gives each group the floor its task started with (taskNice), and only that with sharing off', async () => {
    let share = true;
    let floor = 12;
    const { w, written } = weigher({ floor: () => floor, share: () => share });
    const [a, b] = [fakeTask(1), fakeTask(2)];
    w.track(a);
    floor = 0; // a later change is for tasks started afterwards
    w.track(b);
    expect(written).toEqual([
      [1, 12],
      [2, 3],
    ]);
    share = false;
    await pause();
    w.weigh();
    expect(w.snapshot().map((s) => s.nice)).toEqual([12, 0]);
  });

  it('reaches a group through another process of the session once the shell has gone, and stops counting a task with none left there', async () => {
    const { w, written } = weigher();
    const [a, b, c] = [fakeTask(1), fakeTask(2), fakeTask(3)];
    for (const t of [a, b, c]) w.track(t);
    written.length = 0;
    a.through = 41; // its shell exited; `nohup server &` runs on in its session
    c.through = null; // nothing of it is left in its session
    await pause();
    for (const t of [a, b, c]) t.used += 1_000_000;
    w.weigh();
    // Two weighed and busy: nice 3 (b's already), a's through its server; c is neither counted nor written.
    expect(written).toEqual([[41, 3]]);
    expect(w.snapshot().map((s) => [s.nice, s.weighed])).toEqual([
      [3, true],
      [3, true],
      [5, false],
    ]);
  });

  it('leaves alone a group something else has changed since Drover set it, and stops counting it', async () => {
    const groups = new Map<number, number>();
    const { w } = weigher({
      write: (pid, _session, nice, expected) => {
        if ((groups.get(pid) ?? 0) !== expected) return false;
        groups.set(pid, nice);
        return true;
      },
    });
    const [a, b, c] = [fakeTask(1), fakeTask(2), fakeTask(3)];
    for (const t of [a, b, c]) w.track(t);
    expect([...groups]).toEqual([
      [2, 3],
      [3, 5],
    ]);
    groups.set(3, 19); // the person reniced it by hand
    await pause();
    c.used += 1_000_000;
    w.weigh(); // c alone busy: nice 0 asked of each, and c's found changed at its turn
    expect(groups.get(3)).toBe(19);
    expect(w.snapshot().map((s) => s.weighed)).toEqual([true, true, false]);
    await pause();
    for (const t of [a, b, c]) t.used += 1_000_000;
    w.weigh(); // c no longer counted: a and b share one weight
    expect([...groups].sort()).toEqual([
      [1, 3],
      [2, 3],
      [3, 19],
    ]);
    expect(w.snapshot().map((s) => s.busy)).toEqual([true, true, true]);
  });

  it('writes nothing for a task once it is untracked', () => {
    const { w, written } = weigher();
    const [a, b] = [fakeTask(1), fakeTask(2)];
    const untrackA = w.track(a);
    w.track(b);
    untrackA();
    written.length = 0;
    b.used += 10_000_000;
    w.weigh();
    expect(w.snapshot().map((s) => s.leader)).toEqual([2]);
    expect(written).toEqual([[2, 0]]);
  });

  it("follows the kernel's pace for unprivileged changes: on EAGAIN the rest wait and are all written", async () => {
    const landed: [number, number][] = [];
    let lastAt = 0;
    const { w } = weigher({
      write: (pid, _session, nice) => {
        // The kernel's rule: one change per 100 ms.
        if (Date.now() - lastAt < 100) throw Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' });
        lastAt = Date.now();
        landed.push([pid, nice]);
        return true;
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

  it('a task asked again while its change waits keeps its place in the queue', async () => {
    const landed: number[] = [];
    let open = false;
    const { w } = weigher({
      write: (pid) => {
        if (!open) throw Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' });
        landed.push(pid);
        return true;
      },
    });
    const tasks = [1, 2, 3, 4, 5].map(fakeTask);
    for (const t of tasks) w.track(t); // 2 to 5 wait, in that order
    await pause();
    for (const t of tasks) t.used += 1_000_000;
    w.weigh(); // every group is asked again, 1 for the first time
    open = true;
    await until(() => landed.length === 5, 'every change to land', 5_000);
    expect(landed).toEqual([2, 3, 4, 5, 1]);
  });

  it('says once, in words, when a group cannot be changed, and goes on with the others', () => {
    const tried: number[] = [];
    const { w, logged } = weigher({
      write: (pid) => {
        tried.push(pid);
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      },
    });
    for (const t of [1, 2, 3].map(fakeTask)) w.track(t);
    expect(tried).toEqual([2, 3]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/could not weigh the scheduling group of task process 2: EACCES.*said once per run/);
  });
});

/** writeSessionGroup, tried again while the kernel paces unprivileged changes (EAGAIN). */
async function setGroup(pid: number, session: number, nice: number, expected: number): Promise<boolean> {
  for (;;) {
    try {
      return writeSessionGroup(pid, session, nice, expected);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      await new Promise((done) => setTimeout(done, GROUP_WRITE_PAUSE_MS));
    }
  }
}

describe.runIf(hasAutogroup)('session groups on this machine', () => {
  it("writes a task's session group, never one of another session (Drover's own, here), and leaves one changed by something else", async () => {
    const leader = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    const member = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(leader, member);
    const own = readFileSync('/proc/self/autogroup', 'utf8');
    expect(await setGroup(leader.pid!, leader.pid!, 7, 0)).toBe(true);
    expect(groupNice(leader.pid!)).toBe(7);
    // Not at 0 as expected: changed by something else since, so left as it is.
    expect(await setGroup(leader.pid!, leader.pid!, 3, 0)).toBe(false);
    expect(groupNice(leader.pid!)).toBe(7);
    // A process of Drover's own session, named as if it were the task's: nothing is written.
    expect(await setGroup(member.pid!, leader.pid!, 7, 0)).toBe(true);
    expect(await setGroup(member.pid!, member.pid!, 7, 0)).toBe(true);
    expect(readFileSync('/proc/self/autogroup', 'utf8')).toBe(own);
    expect(readFileSync(`/proc/${member.pid}/autogroup`, 'utf8')).toBe(own);
  });

  it("reads a process-group task's CPU time from its shell, the children it waited for included", async () => {
    // The loop runs in a child the shell waits for: its time reaches the shell's cutime when it ends.
    const child = spawn('sh', ['-c', "sh -c 'i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done'; sleep 30"], {
      stdio: 'ignore',
    });
    children.push(child);
    const own = (pid: number) =>
      linuxStat(pid)!
        .slice(11, 13)
        .reduce((sum, t) => sum + Number(t), 0) * 10_000;
    const first = taskCpuMicros(child.pid!, null)!;
    await until(() => taskCpuMicros(child.pid!, null)! - first >= 50_000, 'the child to end with its CPU time', 60_000);
    expect(own(child.pid!)).toBeLessThan(50_000); // the shell itself did not use it
    expect(taskCpuMicros(999_999_999, null)).toBeNull();
  });

  it.runIf(sessionGroupsApply('self'))(
    'pool tasks: three busy ones share one weight; once two have ended, the one left has the full weight back',
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
