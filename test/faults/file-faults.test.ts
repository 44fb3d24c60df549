/**
 * The file system changed under a running host: a task's log deleted or truncated while the task
 * writes it, and the whole data folder renamed away. The host must keep answering, with clear
 * errors where it cannot do what is asked, and stop cleanly.
 */
import { renameSync, statSync, truncateSync, unlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hostCases } from './host-cases.js';
import { eventually, running } from './fault-kit.js';

const newCase = hostCases();

/** Prints a numbered tick until it finds the file `stop` in its folder, then says so and ends. */
const TICKER = 'i=0; while [ ! -e stop ]; do i=$((i+1)); echo "tick $i"; sleep 0.02; done; echo "saw stop"';

/** A clear answer: 2xx, or a 4xx/5xx other than 500 whose body names the error. */
function answersClearly(answer: { status: number; body: any }): boolean {
  if (answer.status < 300) return true;
  return (
    answer.status !== 500 && typeof answer.body?.error?.message === 'string' && answer.body.error.message.length > 0
  );
}

describe('the file system changed under a running host', () => {
  for (const change of ['deleted', 'truncated'] as const) {
    it(`keeps a task running when its output.log is ${change}, and answers reads and searches of it`, async () => {
      const fault = newCase();
      const host = await fault.start();
      const session = (await fault.ok('POST', '/sessions', { title: `log ${change}` })).id as string;
      const task = await fault.ok('POST', `/sessions/${session}/background-tasks`, { command: TICKER });
      const path = `/sessions/${session}/background-tasks/${task.id}`;
      await eventually(
        () => (statSync(task.log_path, { throwIfNoEntry: false })?.size ?? 0) > 2_000,
        'the log to grow',
      );

      if (change === 'deleted') unlinkSync(task.log_path);
      else truncateSync(task.log_path, 0);
      const bytesAtChange = (await fault.ok('GET', path)).output.total_bytes as number;
      // The task goes on: its output keeps arriving after the change.
      await eventually(
        async () => (await fault.ok('GET', path)).output.total_bytes > bytesAtChange + 2_000,
        'output to keep arriving',
      );
      expect((await fault.task(session, task.id)).status).toBe('running');
      expect(answersClearly(await host.call('GET', `${path}/search?q=tick`))).toBe(true);

      // Asked to stop by its own rule (the file), it ends normally, and its record says so.
      await fault.ok('POST', `/sessions/${session}/shell`, { command: 'touch stop', background: false });
      const ended = await eventually(async () => {
        const row = await fault.task(session, task.id);
        return row.status !== 'running' && row;
      }, 'the ticker to end');
      expect(ended).toMatchObject({ status: 'succeeded', exit_code: 0 });
      // Its row says the log is not all it printed, and why.
      expect(ended.log_note).toBe(
        change === 'deleted'
          ? 'Its log file was removed while it ran, so its output was not kept.'
          : 'Its log file was cut short while it ran, so it holds only part of its output.',
      );
      const read = await host.call('GET', path);
      expect(answersClearly(read), JSON.stringify(read.body).slice(0, 300)).toBe(true);
      const search = await host.call('GET', `${path}/search?q=saw%20stop`);
      expect(answersClearly(search), JSON.stringify(search.body).slice(0, 300)).toBe(true);
      if (change === 'truncated') expect(search.body.matches.length).toBe(1);
      expect((await host.call('GET', '/info')).status).toBe(200);

      expect(await fault.close()).toEqual({ exit: { code: 0, signal: null }, integrity: 'ok', lost: [], strays: [] });
    }, 120_000);
  }

  it('keeps answering when the data folder is renamed away, then stops cleanly with nothing left running', async () => {
    const fault = newCase();
    const host = await fault.start();
    const session = (await fault.ok('POST', '/sessions', { title: 'before the move' })).id as string;
    const sleeper = await fault.ok('POST', `/sessions/${session}/background-tasks`, {
      command: 'echo sleeping; exec sleep 600',
    });
    await eventually(async () => (await fault.task(session, sleeper.id)).status === 'running', 'the sleeper to run');

    const moved = `${fault.dataDir}-moved`;
    renameSync(fault.dataDir, moved);
    fault.dataDir = moved;

    // Whatever the host can still do, it does; what it cannot, it refuses in words. It never dies of it.
    const answers = [
      await host.call('GET', '/sessions'),
      await host.call('POST', '/sessions', { title: 'after the move' }),
      await host.call('PATCH', `/sessions/${session}`, { title: 'renamed after the move' }),
      await host.call('POST', `/sessions/${session}/background-tasks`, { command: 'echo after' }),
      await host.call('GET', `/sessions/${session}/background-tasks/${sleeper.id}`),
      await host.call('GET', `/sessions/${session}/background-tasks/${sleeper.id}/search?q=sleeping`),
    ];
    for (const answer of answers) expect(answersClearly(answer), JSON.stringify(answer).slice(0, 300)).toBe(true);
    if (answers[1]!.status < 300) fault.sessions.add(answers[1]!.body.id);
    if (answers[3]!.status < 300) fault.tasks.add(`${session}/${answers[3]!.body.id}`);
    expect(host.alive()).toBe(true);
    expect((await host.call('GET', '/info')).status).toBe(200);

    const closed = await fault.close();
    expect(closed).toEqual({ exit: { code: 0, signal: null }, integrity: 'ok', lost: [], strays: [] });
    expect(running(sleeper.pid)).toBe(false);
  }, 120_000);
});
