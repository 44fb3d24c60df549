import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Scheduler } from '../../electron/scheduler/scheduler.js';
import { ScheduleStore } from '../../electron/scheduler/schedule-store.js';
import { tempDir } from '../helpers.js';
import { schedulerDeps } from './scheduler-deps.js';

/**
 * Two real processes share one scheduler.sqlite (issue #16: "two Drover processes … never fire a
 * durable job twice in 200 due events"). The data folder's lock aside, the lease is tested
 * directly: for each of 200 due times both processes are told to look at once, so both race for
 * the same run every time. Nothing waits for time.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const RUNNER = resolve(import.meta.dirname, 'fixtures/lease-runner.ts');
const EVENTS = 200;
const MINUTE = 60_000;
const running: ChildProcessWithoutNullStreams[] = [];

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startRunner(dataDir: string, holder: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, dataDir, holder], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  let waiting: { count: number; resolve: () => void } | null = null;
  const seen = () => (stdout.match(/^(ready|ticked)$/gm) ?? []).length;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (waiting && seen() >= waiting.count) waiting.resolve();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<{ ran: number[] }>((resolveDone, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const line = /^result (.*)$/m.exec(stdout)?.[1];
      if (code !== 0 || !line) reject(new Error(`${holder} exited with ${code}: ${stderr || stdout}`));
      else resolveDone(JSON.parse(line) as { ran: number[] });
    });
  });
  /** Resolves once the process has answered `count` lines in all (its "ready", then each "ticked"). */
  const answered = (count: number) =>
    Promise.race([
      new Promise<void>((resolveAnswer) => {
        if (seen() >= count) return resolveAnswer();
        waiting = { count, resolve: resolveAnswer };
      }),
      done.then(() => {
        throw new Error(`${holder} ended early: ${stderr || stdout}`);
      }),
    ]);
  return { answered, send: (line: string) => child.stdin.write(`${line}\n`), done };
}

describe('durable jobs: the lease between two processes', () => {
  it(`never runs a durable job twice in ${EVENTS} due events, and misses none`, { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const start = Date.parse('2026-06-10T10:00:30Z');
    const store = ScheduleStore.open(dataDir);
    const scheduler = new Scheduler(schedulerDeps(store, { now: () => start }, { holder: 'maker' }));
    const job = scheduler.create('s1', { cron: '* * * * *', prompt: 'job', recurring: true, durable: true });
    scheduler.pause(job.id, false);
    store.close();
    const first = job.nextFireAt!;

    const runners = ['a', 'b'].map((holder) => startRunner(dataDir, holder));
    await Promise.all(runners.map((runner) => runner.answered(1)));
    // Lockstep: both processes look at the same due time, each event, the order of the two lines alternating.
    for (let event = 0; event < EVENTS; event++) {
      const order = event % 2 === 0 ? runners : [...runners].reverse();
      for (const runner of order) runner.send(`tick ${first + event * MINUTE}`);
      await Promise.all(runners.map((runner) => runner.answered(event + 2)));
    }
    for (const runner of runners) runner.send('end');
    const [a, b] = await Promise.all(runners.map((runner) => runner.done));

    const all = [...a!.ran, ...b!.ran].sort((x, y) => x - y);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(Array.from({ length: EVENTS }, (_, index) => first + index * MINUTE));
    // Both took part: the race was real.
    expect(a!.ran.length).toBeGreaterThan(0);
    expect(b!.ran.length).toBeGreaterThan(0);
  });
});
