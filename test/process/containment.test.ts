import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cgroupDir, findCgroup2 } from '../../electron/process/cgroup.js';
import { unixContainers } from '../../electron/process/containers.js';
import { markFor } from '../../electron/process/identity.js';
import { currentUnixOs } from '../../electron/process/unix-os.js';
import { logText, makePool, pidAlive, type Harness, type HarnessOptions } from '../pool/pool-harness.js';
import { tempDir, until } from '../helpers.js';
import { spawnHost } from '../host/spawn-host.js';

const open: Harness[] = [];
function harness(policy: Parameters<typeof makePool>[0] = {}, options: HarnessOptions = {}): Harness {
  const h = makePool(policy, undefined, options);
  open.push(h);
  return h;
}
const strays: number[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone, as it should be */
    }
  }
});

const cwd = tmpdir();

/** Why cgroups cannot be tested here, or null when they can; printed once when the cgroup suite is left out. */
const cgroupUnavailable = (() => {
  const factory = unixContainers({ instanceId: 'probe0000000', os: currentUnixOs() });
  return factory.kind === 'cgroup' ? null : factory.description;
})();
if (cgroupUnavailable) console.warn(`[containment] cgroup tests not run on this machine: ${cgroupUnavailable}`);

const modes = (['cgroup', 'group'] as const).filter((mode) => mode === 'group' || cgroupUnavailable === null);

/** The pid a command printed as `NAME=pid`. */
async function printedPid(path: string, name: string): Promise<number> {
  await until(() => new RegExp(`${name}=\\d+`).test(logText(path)), `${name} to be printed`, 15_000);
  const pid = Number(new RegExp(`${name}=(\\d+)`).exec(logText(path))![1]);
  strays.push(pid);
  return pid;
}

describe.each(modes)('supervision with containment "%s"', (mode) => {
  const options = { containment: mode === 'group' ? ('group' as const) : ('auto' as const) };

  it('says which containment a task has', async () => {
    const { pool, sessionId } = harness({}, options);
    const task = await pool.start({ sessionId, command: 'true', cwd });
    await pool.waitFor(task.id, 10_000);
    expect(pool.row(sessionId, task.id)).toMatchObject({ containment: mode, containmentNote: null });
  });

  for (const [label, command] of [
    ['setsid', 'setsid sleep 600 & echo escaped=$!; sleep 0.3'],
    ['set -m', 'set -m; sleep 600 & echo escaped=$!; sleep 0.3'],
    ['a double fork', '(nohup sleep 600 >/dev/null 2>&1 & echo escaped=$!); sleep 0.3'],
  ] as const) {
    it(`keeps a task running while what it left behind (${label}) runs, says so, and stop ends it`, async () => {
      const { pool, sessionId, rows } = harness({ stopGraceMs: 2_000 }, options);
      const task = await pool.start({ sessionId, command, cwd });
      const escaped = await printedPid(task.logPath, 'escaped');
      await until(
        () => rows.some((row) => row.id === task.id && row.leaderExited),
        'the row to say its shell exited',
        15_000,
      );
      expect(pool.row(sessionId, task.id)).toMatchObject({ status: 'running', leaderExited: true });
      expect(pidAlive(escaped)).toBe(true);
      const { record, wasSettled } = await pool.stop(sessionId, task.id);
      expect(wasSettled).toBe(false);
      expect(record.status).toBe('stopped');
      await until(() => !pidAlive(escaped), 'the escapee to end');
    });
  }

  it('ends everything of a task on drain and on session delete', async () => {
    const { pool, sessionId } = harness({ stopGraceMs: 2_000 }, options);
    const a = await pool.start({ sessionId, command: 'setsid sleep 600 & echo a=$!; sleep 600', cwd });
    const b = await pool.start({
      sessionId,
      command: "trap '' TERM HUP; (sleep 600 & echo b=$!); echo ready; while :; do sleep 1; done",
      cwd,
    });
    const aPid = await printedPid(a.logPath, 'a');
    const bPid = await printedPid(b.logPath, 'b');
    await until(() => logText(b.logPath).includes('ready'), 'the trap');
    await pool.stopSession(sessionId);
    expect(pidAlive(aPid) || pidAlive(bPid) || pidAlive(a.pid!) || pidAlive(b.pid!)).toBe(false);
    const c = await pool.start({ sessionId, command: 'set -m; sleep 600 & echo c=$!; sleep 600', cwd });
    const cPid = await printedPid(c.logPath, 'c');
    await pool.drain();
    expect(pidAlive(cPid) || pidAlive(c.pid!)).toBe(false);
  });

  it('continues a stopped (SIGSTOP) task so SIGTERM can end it within the grace', async () => {
    const { pool, sessionId } = harness({ stopGraceMs: 5_000 }, options);
    const task = await pool.start({ sessionId, command: 'echo ready; exec sleep 600', cwd });
    // Started means its group exists; the output proves the shell is past its first line.
    await until(() => logText(task.logPath).includes('ready'), 'the task to print ready', 15_000);
    process.kill(-task.pid!, 'SIGSTOP');
    const began = Date.now();
    const { record } = await pool.stop(sessionId, task.id);
    expect(Date.now() - began).toBeLessThan(4_500);
    expect(record).toMatchObject({ status: 'stopped', signal: 'SIGTERM', exitCode: 143 });
  });

  // Descriptors are read from /proc (Linux); macOS and Windows take the same close-on-exec path untested here.
  it.runIf(process.platform === 'linux')(
    "gives a task no descriptor of another task and nothing of Drover's but its own terminal",
    async () => {
      const { pool, sessionId } = harness({}, options);
      const first = await pool.start({ sessionId, command: 'echo one; exec sleep 600', cwd });
      const second = await pool.start({ sessionId, command: 'echo two; exec sleep 600', cwd });
      await until(
        () => logText(first.logPath).includes('one') && logText(second.logPath).includes('two'),
        'both to start',
        15_000,
      );
      const inherited = new Set(descriptors('self').filter((target) => target.startsWith('pipe:')));
      for (const task of [first, second]) {
        const targets = descriptors(task.pid!);
        const own = readlinkSync(`/proc/${task.pid}/fd/0`);
        expect(own).toMatch(/^\/dev\/pts\/\d+$/);
        // Anything else would be another task's terminal, Drover's database, logs or sockets.
        const foreign = targets.filter((target) => target !== own && !inherited.has(target));
        expect(foreign, `descriptors of ${task.id}`).toEqual([]);
      }
    },
  );

  it('errors naming the pids and their state when SIGKILL does not take, and records the end when it comes', async (context) => {
    const freezer = v1Freezer();
    if (!freezer) {
      console.warn(
        '[containment] no cgroup v1 freezer to hold a process in uninterruptible sleep; SIGKILL-stuck test not run',
      );
      context.skip();
      return;
    }
    const { pool, sessionId } = harness({ stopGraceMs: 300 }, options);
    const task = await pool.start({ sessionId, command: 'echo ready; exec sleep 600', cwd });
    await until(() => logText(task.logPath).includes('ready'), 'the task to start', 15_000);
    const frozen = join(freezer, `drover-test-${process.pid}-${task.id}-${mode}`);
    mkdirSync(frozen);
    try {
      writeFileSync(join(frozen, 'cgroup.procs'), String(task.pid));
      writeFileSync(join(frozen, 'freezer.state'), 'FROZEN');
      await until(() => readFileSync(join(frozen, 'freezer.state'), 'utf8').trim() === 'FROZEN', 'the freeze');
      const began = Date.now();
      const error = await pool.stop(sessionId, task.id).then(
        () => null,
        (caught: unknown) => caught as Error & { code?: string },
      );
      expect(Date.now() - began).toBeLessThan(10_000);
      expect(error).toMatchObject({ code: 'conflict' });
      expect(error!.message).toMatch(
        new RegExp(
          `did not end: SIGKILL left 1 process running after \\d+ s: ${task.pid} \\(D \\(uninterruptible sleep\\)\\)`,
        ),
      );
      expect(pool.row(sessionId, task.id)).toMatchObject({
        status: 'running',
        error: expect.stringMatching(/It did not end/),
      });
    } finally {
      writeFileSync(join(frozen, 'freezer.state'), 'THAWED');
    }
    await until(
      () => pool.row(sessionId, task.id).status === 'stopped',
      'the end to be recorded after the thaw',
      15_000,
    );
    rmdirSync(frozen);
  });
});

describe.skipIf(cgroupUnavailable !== null)('the cgroup path', () => {
  it('runs each task in a cgroup of its own, created before it runs and removed once empty', async () => {
    const hierarchy = findCgroup2()!;
    const { pool, sessionId, instanceId } = harness();
    const task = await pool.start({ sessionId, command: 'cat /proc/self/cgroup; echo done', cwd });
    await pool.waitFor(task.id, 10_000);
    const path = /^0::(\S+)$/m.exec(logText(task.logPath))![1]!;
    expect(path).toMatch(new RegExp(`/drover-${instanceId}/${task.id}$`));
    expect(existsSync(cgroupDir(hierarchy, path)!)).toBe(false);
  });

  it("makes and removes a task's cgroup off the event loop: the call returns before the folder is made or gone", async () => {
    const hierarchy = findCgroup2()!;
    const instanceId = `async${Date.now().toString(36).slice(-7)}`;
    const factory = unixContainers({ instanceId, os: currentUnixOs() });
    try {
      const making = factory.create('bg_1', markFor(instanceId, 'bg_1'));
      const own = /^0::(\S+)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))![1]!;
      const dir = cgroupDir(hierarchy, `${own === '/' ? '' : own}/drover-${instanceId}/bg_1`)!;
      // Done synchronously, this waited for the kernel's cgroup lock, which a shell entering its cgroup
      // holds for an RCU grace period: the event loop stalled.
      expect(existsSync(dir)).toBe(false);
      const container = await making;
      expect(container.kind).toBe('cgroup');
      expect(existsSync(dir)).toBe(true);
      const removing = container.dispose();
      expect(existsSync(dir)).toBe(true);
      await removing;
      expect(existsSync(dir)).toBe(false);
      // The instance's own cgroup removed under it (only the first task's start makes it): made again.
      factory.dispose();
      expect(existsSync(dirname(dir))).toBe(false);
      const next = await factory.create('bg_2', markFor(instanceId, 'bg_2'));
      expect(next.kind).toBe('cgroup');
      expect(existsSync(join(dirname(dir), 'bg_2'))).toBe(true);
      await next.dispose();
    } finally {
      factory.dispose();
    }
  });

  // Where the shell runs nothing of the person's before its command, it enters the cgroup itself
  // (containers.ts, POSIX_SHELLS): no `sh` stage in front, and the command must not notice.
  for (const [shell, tty] of [
    ['/bin/bash', false],
    ['/bin/bash', true],
    ['/bin/sh', false],
    ['/bin/sh', true],
  ] as const) {
    it(`${shell} on ${tty ? 'a terminal' : 'pipes'} enters the cgroup itself: the command inside from its first line, $0 and $@ as with -c alone`, async () => {
      const { pool, sessionId, instanceId } = harness({}, { shell });
      const task = await pool.start({
        sessionId,
        command: 'echo "zero=$0 count=$# args=[$*]"; cat /proc/self/cgroup; printf "a\\nb\\n"',
        cwd,
        tty,
      });
      expect((await pool.waitFor(task.id, 10_000))?.status).toBe('succeeded');
      const log = readFileSync(task.logPath, 'latin1');
      expect(log).toContain(`zero=${shell} count=0 args=[]\n`);
      expect(/^0::(\S+)$/m.exec(log)![1]).toMatch(new RegExp(`/drover-${instanceId}/${task.id}$`));
      // On a terminal too: the LF → CR LF translation was off before the command wrote anything.
      expect(log).toContain('a\nb\n');
      expect(log).not.toContain('\r');
    });
  }

  it("with bash doing the work itself, the process tree is what `bash -c` alone gives, and a syntax error is only the command's", async () => {
    const { pool, sessionId } = harness({ stopGraceMs: 2_000 }, { shell: '/bin/bash' });
    // bash execs the last command of its script in place of itself: the task's pid is the sleep's.
    for (const tty of [true, false]) {
      const task = await pool.start({ sessionId, command: 'cd / && exec_me=1 sleep 30', cwd, tty });
      await until(() => readFileSync(`/proc/${task.pid}/comm`, 'utf8').trim() === 'sleep', 'the leader to be sleep');
      await pool.stop(sessionId, task.id);
    }
    const broken = await pool.start({ sessionId, command: 'echo (', cwd, tty: false });
    const done = await pool.waitFor(broken.id, 10_000);
    expect(done).toMatchObject({ status: 'failed', exitCode: 2 });
    const log = logText(broken.logPath);
    expect(log).toMatch(/syntax error/);
    expect(log).not.toMatch(/cgroup|shift|drover/);
  });

  it('keeps the sh stage when the environment carries bash code (an exported function, SHELLOPTS)', async () => {
    const dir = tempDir();
    const { pool, sessionId, instanceId } = harness(
      {},
      {
        shell: '/bin/bash',
        baseEnv: { ...process.env, 'BASH_FUNC_echo%%': '() { builtin echo "$@" > /dev/null; }', SHELLOPTS: 'xtrace' },
      },
    );
    const task = await pool.start({
      sessionId,
      command: `cat /proc/self/cgroup > '${join(dir, 'cg')}'`,
      cwd,
      tty: false,
    });
    expect((await pool.waitFor(task.id, 10_000))?.status).toBe('succeeded');
    expect(readFileSync(join(dir, 'cg'), 'utf8')).toMatch(new RegExp(`^0::.*/drover-${instanceId}/${task.id}$`, 'm'));
    // xtrace shows the command, not Drover's work before it.
    expect(logText(task.logPath)).not.toMatch(/cgroup\.procs|shift/);
  });

  it('keeps the sh stage when BASH_ENV names a startup file: what that file starts is inside the cgroup too', async () => {
    const dir = tempDir();
    const startup = join(dir, 'startup.sh');
    writeFileSync(startup, `sleep 600 & echo $! > '${join(dir, 'startup.pid')}'\n`);
    const { pool, sessionId, instanceId } = harness(
      { stopGraceMs: 2_000 },
      { shell: '/bin/bash', baseEnv: { ...process.env, BASH_ENV: startup } },
    );
    // On pipes: a terminal's hangup would end the background sleep when the shell exits.
    const task = await pool.start({ sessionId, command: 'echo started', cwd, tty: false });
    await until(() => existsSync(join(dir, 'startup.pid')) && logText(task.logPath).includes('started'), 'the start');
    const pid = Number(readFileSync(join(dir, 'startup.pid'), 'utf8'));
    strays.push(pid);
    expect(readFileSync(`/proc/${pid}/cgroup`, 'utf8')).toMatch(
      new RegExp(`^0::.*/drover-${instanceId}/${task.id}$`, 'm'),
    );
    await pool.stop(sessionId, task.id);
    await until(() => !pidAlive(pid), "the startup file's process to end with the task");
  });

  it('catches a process that drops its mark and leaves its session', async () => {
    const { pool, sessionId, rows, instanceId } = harness({ stopGraceMs: 2_000 });
    const task = await pool.start({
      sessionId,
      command: `env -u DROVER_TASK_${instanceId} -u DROVER_TASK_ID setsid sleep 600 & echo escaped=$!; sleep 0.3`,
      cwd,
    });
    const escaped = await printedPid(task.logPath, 'escaped');
    await until(() => rows.some((row) => row.id === task.id && row.leaderExited), 'the shell to exit', 15_000);
    expect(readFileSync(`/proc/${escaped}/environ`, 'utf8')).not.toContain('DROVER_TASK');
    await pool.stop(sessionId, task.id);
    await until(() => !pidAlive(escaped), 'the unmarked escapee to end');
  });

  it('falls back to a process group, and says why on the row, when its cgroup cannot be created', async () => {
    const hierarchy = findCgroup2()!;
    const { pool, sessionId, instanceId } = harness();
    const first = await pool.start({ sessionId, command: 'true', cwd });
    await pool.waitFor(first.id, 10_000);
    const own = /^0::(\S+)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))![1]!;
    const instanceDir = cgroupDir(hierarchy, `${own === '/' ? '' : own}/drover-${instanceId}`)!;
    // As though delegation were taken away mid-run: no further cgroup may be made below it.
    writeFileSync(join(instanceDir, 'cgroup.max.descendants'), '0');
    try {
      const second = await pool.start({ sessionId, command: 'echo still runs', cwd });
      const done = await pool.waitFor(second.id, 10_000);
      expect(done).toMatchObject({
        status: 'succeeded',
        containment: 'group',
        containmentNote: expect.stringMatching(/its cgroup could not be created \(EAGAIN/),
      });
      expect(pool.row(sessionId, second.id)).toMatchObject({
        containment: 'group',
        containmentNote: expect.stringMatching(/runs in a process group/),
      });
    } finally {
      writeFileSync(join(instanceDir, 'cgroup.max.descendants'), 'max');
    }
  });
});

describe('faults', () => {
  it("says clearly why a task cannot start when the process limit of Drover's cgroup is full, and keeps serving", async (context) => {
    const pids = v1Controller('pids');
    if (!pids) {
      console.warn('[containment] no writable pids controller to fill; process-limit test not run');
      context.skip();
      return;
    }
    const host = await spawnHost(tempDir());
    const limited = join(pids, `drover-test-${process.pid}`);
    mkdirSync(limited);
    try {
      const session = (await host.call('POST', '/sessions', {})).id;
      writeFileSync(join(limited, 'cgroup.procs'), String(host.child.pid));
      writeFileSync(join(limited, 'pids.max'), readFileSync(join(limited, 'pids.current'), 'utf8').trim());
      const refused = await host.call('POST', `/sessions/${session}/background-tasks`, { command: 'echo never' });
      expect(refused).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(
          /could not start .*: the process limit of Drover's cgroup is reached \(\d+ of \d+ in /,
        ),
      });
      writeFileSync(join(limited, 'pids.max'), 'max');
      const next = await host.call('POST', `/sessions/${session}/background-tasks`, { command: 'echo fine' });
      expect(next.status).not.toBe('failed');
    } finally {
      writeFileSync(join(limited, 'pids.max'), 'max');
      writeFileSync(join(pids, 'cgroup.procs'), String(host.child.pid));
      await host.stop();
      rmdirSync(limited);
    }
  }, 60_000);

  it('records a working directory removed while the task ran, without a crash', async () => {
    const { pool, sessionId } = harness();
    const dir = join(tmpdir(), `drover-vanishing-${process.pid}-${Date.now()}`);
    mkdirSync(dir);
    const task = await pool.start({
      sessionId,
      command: 'echo in; sleep 0.5; ls . >/dev/null 2>&1; echo out',
      cwd: dir,
    });
    await until(() => logText(task.logPath).includes('in'), 'the task to start');
    rmSync(dir, { recursive: true });
    const done = await pool.waitFor(task.id, 10_000);
    expect(done).toMatchObject({
      status: 'succeeded',
      exitNote: `its working directory ${dir} was removed while it ran`,
    });
  });
});

function descriptors(pid: number | 'self'): string[] {
  const dir = `/proc/${pid}/fd`;
  return readdirSync(dir).flatMap((fd) => {
    try {
      return [readlinkSync(join(dir, fd))];
    } catch {
      return [];
    }
  });
}

/** A writable cgroup v1 freezer hierarchy, where a frozen process sits in uninterruptible sleep. */
function v1Freezer(): string | null {
  return v1Controller('freezer');
}

/** The mount of a writable cgroup v1 hierarchy with this controller. */
function v1Controller(controller: string): string | null {
  if (process.platform !== 'linux') return null;
  const line = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .find((entry) => new RegExp(` - cgroup \\S+ \\S*\\b${controller}\\b`).test(entry));
  const point = line?.slice(0, line.indexOf(' - ')).split(' ')[4];
  if (!point) return null;
  try {
    const probe = join(point, `drover-probe-${process.pid}`);
    mkdirSync(probe);
    rmdirSync(probe);
    return point;
  } catch {
    return null;
  }
}
