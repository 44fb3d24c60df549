import { readFileSync, readlinkSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { groupRuns, logText, makePool, pidAlive, type Harness } from './pool-harness.js';
import { until } from '../helpers.js';

const open: Harness[] = [];
function harness(...args: Parameters<typeof makePool>): Harness {
  const h = makePool(...args);
  open.push(h);
  return h;
}
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
});

const cwd = tmpdir();

/** Where a process's descriptor points (`pipe:[123]`, `/dev/pts/4`), or null when it is gone. */
function fdTarget(pid: number, fd: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return null;
  }
}

describe('pipe tasks (tty: false)', () => {
  it('merge stdout and stderr into one stream in the order they were printed', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({
      sessionId,
      command: 'for i in 1 2 3 4 5 6 7 8; do echo out$i; echo err$i >&2; done; printf tail >&2',
      cwd,
      tty: false,
    });
    const done = await pool.waitFor(task.id, 10_000);
    expect(done!.status).toBe('succeeded');
    const expected = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `out${i}\nerr${i}\n`).join('') + 'tail';
    expect(readFileSync(task.logPath, 'utf8')).toBe(expected);
    expect(pool.row(sessionId, task.id).tty).toBe(false);
  });

  it('are not terminals, and a tty: true task is; fds 1 and 2 are one real pipe, so /dev/stdout opens', async () => {
    const { pool, sessionId } = harness();
    const probe =
      'test -t 1 && echo stdout=tty || echo stdout=not-tty; test -t 0 && echo stdin=tty || echo stdin=not-tty; ' +
      'echo "term=$TERM no_color=${NO_COLOR:-unset}"; ' +
      'echo "fd1=$(readlink /proc/$$/fd/1) fd2=$(readlink /proc/$$/fd/2)"; echo via-dev-stdout > /dev/stdout';
    const pipe = await pool.start({ sessionId, command: probe, cwd, tty: false });
    const pty = await pool.start({ sessionId, command: probe, cwd, tty: true });
    await pool.waitFor(pipe.id, 10_000);
    await pool.waitFor(pty.id, 10_000);
    const piped = readFileSync(pipe.logPath, 'utf8');
    expect(piped).toContain('stdout=not-tty\nstdin=not-tty\nterm=dumb no_color=1\n');
    const [, fd1, fd2] = /fd1=(\S+) fd2=(\S+)/.exec(piped)!;
    expect(fd1).toMatch(/^pipe:\[\d+\]$/);
    expect(fd2).toBe(fd1);
    expect(piped).toContain('via-dev-stdout\n');
    const terminal = readFileSync(pty.logPath, 'utf8');
    expect(terminal).toContain('stdout=tty\nstdin=tty\nterm=xterm-256color no_color=unset\n');
    expect(pool.row(sessionId, pty.id).tty).toBe(true);
  });

  it('take typed input on stdin, and Ctrl-D ends it', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({
      sessionId,
      command: 'read line; echo "got $line"; cat; echo eof',
      cwd,
      tty: false,
    });
    await until(() => pool.row(sessionId, task.id).status === 'running', 'the task to run');
    pool.write(sessionId, task.id, 'hello\n');
    await until(() => logText(task.logPath).includes('got hello'), 'the answer');
    pool.write(sessionId, task.id, 'rest\x04');
    const done = await pool.waitFor(task.id, 10_000);
    expect(done!.status).toBe('succeeded');
    expect(readFileSync(task.logPath, 'utf8')).toBe('got hello\nresteof\n');
  });

  it('Ctrl-C interrupts the task as a terminal would', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({
      sessionId,
      command: "trap 'echo interrupted; exit 7' INT; echo ready; while :; do sleep 0.05; done",
      cwd,
      tty: false,
    });
    await until(() => logText(task.logPath).includes('ready'), 'the trap to be set');
    pool.write(sessionId, task.id, '\x03');
    const done = await pool.waitFor(task.id, 10_000);
    expect(done!.exitCode).toBe(7);
    expect(logText(task.logPath)).toContain('interrupted');
  });

  for (const containment of ['auto', 'group'] as const) {
    it(`stop ends the whole task, a child sleep included (containment ${containment})`, async () => {
      const { pool, sessionId } = harness({}, undefined, { containment });
      const task = await pool.start({ sessionId, command: 'sleep 300 & echo child=$!; wait', cwd, tty: false });
      await until(() => logText(task.logPath).includes('child='), 'the child pid');
      const childPid = Number(/child=(\d+)/.exec(logText(task.logPath))![1]);
      const pgid = pool.row(sessionId, task.id).pid!;
      expect(pidAlive(childPid)).toBe(true);
      const { record } = await pool.stop(sessionId, task.id);
      expect(record.status).toBe('stopped');
      await until(() => !pidAlive(childPid), 'the child to end');
      expect(groupRuns(pgid)).toBe(false);
    });
  }

  it('runs until a child that outlives the shell ends, with its output', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({ sessionId, command: '(sleep 0.4; echo late) & echo early', cwd, tty: false });
    const done = await pool.waitFor(task.id, 10_000);
    expect(done!.status).toBe('succeeded');
    expect(readFileSync(task.logPath, 'utf8')).toBe('early\nlate\n');
  });

  it('hold no descriptor of another task: each pipe is close-on-exec', async () => {
    const { pool, sessionId } = harness();
    const first = await pool.start({ sessionId, command: 'sleep 30', cwd, tty: false });
    await until(() => pool.row(sessionId, first.id).pid !== null, 'the first task to start');
    const firstPid = pool.row(sessionId, first.id).pid!;
    const firstPipes = [0, 1].map((fd) => fdTarget(firstPid, fd));
    expect(firstPipes.every((target) => target?.startsWith('pipe:'))).toBe(true);
    const second = await pool.start({ sessionId, command: 'ls -l /proc/$$/fd; sleep 30', cwd, tty: false });
    await until(() => logText(second.logPath).includes('pipe:'), 'the second task to list its descriptors');
    const secondPid = pool.row(sessionId, second.id).pid!;
    const held = readdirSync(`/proc/${secondPid}/fd`).map((fd) => fdTarget(secondPid, Number(fd)));
    for (const target of firstPipes) expect(held).not.toContain(target);
    // The pool's own ends are not left open in the task either: its output pipe has one writer end per fd it uses.
    expect(held.filter((target) => target === fdTarget(secondPid, 1))).toHaveLength(2);
  });

  it('keep every byte of a command that prints a lot and exits at once', async () => {
    const { pool, sessionId } = harness({ maxConcurrent: 5 });
    const tasks = await Promise.all(
      Array.from({ length: 10 }, () => pool.start({ sessionId, command: 'seq 1 30000', cwd, tty: false })),
    );
    for (const task of tasks) {
      await pool.waitFor(task.id, 20_000);
      expect(statSync(task.logPath).size, task.id).toBe(168_894);
    }
  });

  it('keep every byte in order across many reads into the same buffer (the log and the window copy what they keep)', async () => {
    const { pool, sessionId } = harness();
    const count = 1_500_000;
    const task = await pool.start({ sessionId, command: `seq 1 ${count}`, cwd, tty: false });
    const done = await pool.waitFor(task.id, 60_000);
    expect(done!.status).toBe('succeeded');
    const expected = Array.from({ length: count }, (_, i) => `${i + 1}\n`).join('');
    const log = readFileSync(task.logPath, 'latin1');
    expect(log.length).toBe(expected.length);
    // Compared whole: a chunk kept by reference would show as a stretch overwritten by a later read.
    expect(log === expected).toBe(true);
    const { text } = await pool.output(sessionId, task.id, 3);
    expect(text).toBe(`${count - 2}\n${count - 1}\n${count}`);
  });

  it('read as plain text: lines kept, progress redraws folded to their last state', async () => {
    const { pool, sessionId } = harness();
    const task = await pool.start({
      sessionId,
      command: "echo building; printf '10%%\\r50%%\\r100%%\\n'; echo done >&2",
      cwd,
      tty: false,
    });
    await pool.waitFor(task.id, 10_000);
    expect((await pool.output(sessionId, task.id)).text).toBe('building\n100%\ndone');
  });
});
