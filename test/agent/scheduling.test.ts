import { describe, expect, it } from 'vitest';
import type { Message } from '../../shared/schemas/message.js';
import { until } from '../helpers.js';
import { setupAgent } from './agent-harness.js';

const MINUTE = 60_000;

/** A clock the test moves; the scheduler looks only when the test calls tick. */
function manualClock(start = Date.parse('2026-06-10T10:07:20Z')) {
  const clock = { time: start, now: () => clock.time };
  return clock;
}

describe('scheduling through the fake model', () => {
  it('/loop 1m runs at once, then again a minute later, each pass fenced as task data and marked automated', async () => {
    const clock = manualClock();
    const { model, call, session, services, turnsEnded } = await setupAgent('openai-compatible', {
      scheduler: { clock },
    });
    model.enqueue({ text: 'Checked: the deploy is green.' }, { text: 'Checked again: still green.' });
    const started = await call<{ schedule: { id: string; cron: string }; confirmation: string }>('startLoop', {
      sessionId: session.id,
      args: '1m check the deploy',
    });
    expect(started.schedule.cron).toBe('* * * * *');
    expect(started.confirmation).toMatch(/first pass runs now/);
    await until(() => turnsEnded() === 1, 'the first pass');
    const first = model.requests[0]!.transcript;
    expect(first).toMatch(/Automated: the loop \w{8} \(every minute\), which the person started with \/loop, is due/);
    expect(first).toMatch(
      /<untrusted-output nonce="[^"]+" source="schedule_\w{8}">\s*check the deploy\s*<\/untrusted-output/,
    );

    // Not yet: the next pass is at the next minute (plus its late offset, at most 6 s here).
    clock.time += 20_000;
    await services.scheduler!.tick();
    expect(turnsEnded()).toBe(1);
    clock.time += MINUTE;
    await services.scheduler!.tick();
    await until(() => turnsEnded() === 2, 'the second pass');
    expect(model.requests).toHaveLength(2);
    // The first pass reads the same in the second request: its fence is stable, so a prompt cache holds.
    const fenceOf = (transcript: string) =>
      /<untrusted-output nonce="[^"]+" source="schedule_\w{8}">/.exec(transcript)![0];
    expect(fenceOf(model.requests[1]!.transcript)).toBe(fenceOf(first));

    const scheduled = services.sessions.messages(session.id).filter((message: Message) => message.schedule !== null);
    expect(scheduled).toHaveLength(2);
    expect(scheduled[0]).toMatchObject({
      role: 'user',
      automated: true,
      text: 'check the deploy',
      schedule: { id: started.schedule.id, kind: 'loop', label: 'every minute' },
    });
    // The transcript says what /loop started, for the person.
    expect(services.sessions.messages(session.id)[0]).toMatchObject({ role: 'system', text: started.confirmation });
  });

  it('a reminder the model sets fires once at its time, then is gone', async () => {
    const clock = manualClock(Date.parse('2026-06-10T10:07:20'));
    const { model, say, session, services, call, turnsEnded } = await setupAgent('openai-compatible', {
      scheduler: { clock },
    });
    model.enqueue(
      {
        toolCalls: [
          { name: 'cron_create', args: { cron: '15 10 * * *', prompt: 'Remind me to stretch', recurring: false } },
        ],
      },
      { text: 'I will remind you at 10:15.' },
      { text: 'Time to stretch!' },
    );
    await say('remind me to stretch at 10:15');
    const answer = model.requests[1]!.transcript;
    expect(answer).toMatch(
      /Scheduled \w{8}: cron "15 10 \* \* \*", next run .*10:15\. It runs once and is then deleted\./,
    );
    const listed = await call<{ schedules: { id: string }[] }>('listSchedules', { sessionId: session.id });
    expect(listed.schedules).toHaveLength(1);

    clock.time = Date.parse('2026-06-10T10:14:59');
    await services.scheduler!.tick();
    expect(turnsEnded()).toBe(1);
    clock.time = Date.parse('2026-06-10T10:15:00');
    await services.scheduler!.tick();
    await until(() => turnsEnded() === 2, 'the reminder');
    expect(model.requests[2]!.transcript).toMatch(
      /Automated: the schedule \w{8} \(once, 15 10 \* \* \*\), which you made earlier with cron_create, is due/,
    );
    expect(model.requests[2]!.transcript).toContain('Remind me to stretch');
    expect((await call<{ schedules: unknown[] }>('listSchedules', { sessionId: session.id })).schedules).toEqual([]);
  });

  it('a self-paced loop: the pass chooses its next check with loop_next, and the next pass runs then', async () => {
    const clock = manualClock();
    const { model, call, session, services, turnsEnded } = await setupAgent('openai-compatible', {
      scheduler: { clock },
    });
    model.enqueue(
      { toolCalls: [{ name: 'loop_next', args: { delay_seconds: 300, reason: 'CI takes five minutes' } }] },
      { text: 'CI is running; next check in five minutes.' },
      { toolCalls: [{ name: 'loop_stop', args: { reason: 'CI passed' } }] },
      { text: 'CI passed; the loop is done.' },
    );
    await call('startLoop', { sessionId: session.id, args: 'watch CI' });
    await until(() => turnsEnded() === 1, 'the first pass');
    expect(model.requests[0]!.transcript).toMatch(/call loop_next with the delay until the next pass/);
    expect(model.requests[1]!.transcript).toMatch(/Next check of loop \w{8} in 5m, .*\(CI takes five minutes\)/);
    clock.time += 5 * MINUTE;
    await services.scheduler!.tick();
    await until(() => turnsEnded() === 2, 'the second pass');
    expect(model.requests[3]!.transcript).toMatch(/Stopped the self-paced loop \w{8}: CI passed\./);
    expect((await call<{ schedules: unknown[] }>('listSchedules', { sessionId: session.id })).schedules).toEqual([]);
  });

  it('Esc (stopLoops) ends the loops and says so; nothing runs after', async () => {
    const clock = manualClock();
    const { model, call, session, services, turnsEnded } = await setupAgent('openai-compatible', {
      scheduler: { clock },
    });
    model.enqueue({ text: 'pass one' });
    await call('startLoop', { sessionId: session.id, args: '5m tidy up' });
    await until(() => turnsEnded() === 1, 'the first pass');
    const { stopped } = await call<{ stopped: { id: string }[] }>('stopLoops', { sessionId: session.id });
    expect(stopped).toHaveLength(1);
    expect(services.sessions.messages(session.id).at(-1)!.text).toMatch(/^Stopped the loop \w{8}\.$/);
    clock.time += 10 * MINUTE;
    await services.scheduler!.tick();
    expect(turnsEnded()).toBe(1);
  });
});

describe('the budget for unattended turns, through the fake model', () => {
  it('counts each pass after the first and its tokens; once spent, the next due pass waits until the person resumes', async () => {
    const clock = manualClock();
    const { model, call, session, services, turnsEnded } = await setupAgent('openai-compatible', {
      scheduler: { clock },
    });
    await call('updateSettings', { budget: { turns: 2 } });
    model.enqueue({ text: 'pass one' }, { text: 'pass two' }, { text: 'pass three' }, { text: 'pass four' });
    await call('startLoop', { sessionId: session.id, args: '1m tidy' });
    await until(() => turnsEnded() === 1, 'the first pass');
    // The first pass is the person's own: typed /loop, it draws nothing.
    expect(await call('getBudget', { sessionId: session.id })).toMatchObject({ turnsUsed: 0, tokensUsed: 0 });

    clock.time += 2 * MINUTE;
    await services.scheduler!.tick();
    await until(() => turnsEnded() === 2, 'the second pass');
    const second = await call<{ turnsUsed: number; tokensUsed: number; spent: boolean }>('getBudget', {
      sessionId: session.id,
    });
    expect(second).toMatchObject({ turnsUsed: 1, spent: false });
    expect(second.tokensUsed).toBeGreaterThan(0);

    clock.time += 2 * MINUTE;
    await services.scheduler!.tick();
    await until(() => turnsEnded() === 3, 'the third pass');
    expect(await call('getBudget', { sessionId: session.id })).toMatchObject({ turnsUsed: 2, spent: true });
    const notes = services.sessions.messages(session.id).filter((message: Message) => message.role === 'system');
    expect(notes.at(-1)!.text).toMatch(/budget for unattended turns is spent/);

    // Due again, but the budget is spent: nothing runs, however often the scheduler looks.
    clock.time += 2 * MINUTE;
    await services.scheduler!.tick();
    await services.scheduler!.tick();
    expect(turnsEnded()).toBe(3);
    expect(model.requests).toHaveLength(3);

    expect(await call('resumeBudget', { sessionId: session.id })).toMatchObject({ turnsUsed: 0, spent: false });
    await until(() => turnsEnded() === 4, 'the pass that waited');
    expect(model.requests).toHaveLength(4);
  });

  it('with the budget spent, the person’s Run now and Retry still run; raising the limit lets the waiting pass run and re-arms the notes', async () => {
    const clock = manualClock();
    const { model, call, session, services, turnsEnded } = await setupAgent('openai-compatible', {
      scheduler: { clock },
    });
    await call('updateSettings', { budget: { turns: 1 } });
    model.enqueue({ text: 'first pass' }, { status: 400 }, { text: 'run now' }, { status: 400 });
    const { schedule } = await call<{ schedule: { id: string } }>('startLoop', {
      sessionId: session.id,
      args: '1m tidy',
    });
    await until(() => turnsEnded() === 1, 'the first pass');
    clock.time += 2 * MINUTE;
    await services.scheduler!.tick();
    await until(() => turnsEnded() === 2, 'the failing pass');
    expect(await call('getBudget', { sessionId: session.id })).toMatchObject({ turnsUsed: 1, spent: true });

    // Run now is the person's: it runs although the budget is spent, and draws nothing.
    await call('runScheduleNow', { id: schedule.id });
    await services.scheduler!.tick();
    await until(() => turnsEnded() === 3, 'the run the person asked for');
    expect(model.requests.at(-1)!.transcript).toContain('tidy');
    expect(await call('getBudget', { sessionId: session.id })).toMatchObject({ turnsUsed: 1 });

    // The next due pass waits for the budget.
    clock.time += 2 * MINUTE;
    await services.scheduler!.tick();
    expect(turnsEnded()).toBe(3);

    // A person's message that fails, then their Retry: runs although the budget is spent.
    model.enqueue({ text: 'retried' });
    await call('postMessage', { sessionId: session.id, text: 'hello' });
    await until(() => turnsEnded() === 4, 'the failed turn');
    expect(services.agent.failure(session.id)).toMatch(/HTTP 400/);
    await call('retryTurn', { sessionId: session.id });
    await until(() => turnsEnded() === 5, 'the retry');
    expect(services.agent.failure(session.id)).toBeNull();
    expect(await call('getBudget', { sessionId: session.id })).toMatchObject({ turnsUsed: 1, spent: true });

    // Raised above what was used: the budget opens, the pass that waited runs, and 80 % is told again.
    const notesBefore = services.sessions.messages(session.id).filter((m: Message) => m.role === 'system').length;
    model.enqueue({ text: 'the waiting pass' });
    await call('updateSettings', { budget: { turns: 3 } });
    await until(() => turnsEnded() === 6, 'the pass that waited for the budget');
    expect(await call('getBudget', { sessionId: session.id })).toMatchObject({
      turnsUsed: 2,
      turnsMax: 3,
      spent: false,
      warned: false,
    });
    // Lowered below what was used: told at once.
    await call('updateSettings', { budget: { turns: 2 } });
    const notes = services.sessions.messages(session.id).filter((m: Message) => m.role === 'system');
    expect(notes.length).toBeGreaterThan(notesBefore);
    expect(notes.at(-1)!.text).toMatch(/budget for unattended turns is spent \(2 of 2 turns/);
    expect(await call('getBudget', { sessionId: session.id })).toMatchObject({ spent: true, warned: true });
  });

  it('counts the tokens of a pass that fails after a step', async () => {
    const clock = manualClock();
    const { model, call, session, services, turnsEnded } = await setupAgent('openai-compatible', {
      scheduler: { clock },
    });
    model.enqueue({ text: 'first pass' }, { toolCalls: [{ name: 'cron_list', args: {} }] }, { status: 400 });
    await call('startLoop', { sessionId: session.id, args: '1m tidy' });
    await until(() => turnsEnded() === 1, 'the first pass');
    clock.time += 2 * MINUTE;
    await services.scheduler!.tick();
    await until(() => turnsEnded() === 2, 'the pass that fails');
    expect(services.agent.failure(session.id)).toMatch(/HTTP 400/);
    const used = await call<{ turnsUsed: number; tokensUsed: number }>('getBudget', { sessionId: session.id });
    expect(used.turnsUsed).toBe(1);
    expect(used.tokensUsed).toBeGreaterThan(0);
  });

  it('counts the tokens of a pass stopped while a tool runs (streaming)', async () => {
    const clock = manualClock();
    const { model, call, session, services, turnsEnded } = await setupAgent('openai-compatible', {
      scheduler: { clock },
    });
    model.enqueue({ text: 'first pass' }, { toolCalls: [{ name: 'sleep', args: { seconds: 60, reason: 'wait' } }] });
    await call('startLoop', { sessionId: session.id, args: '1m tidy' });
    await until(() => turnsEnded() === 1, 'the first pass');
    clock.time += 2 * MINUTE;
    await services.scheduler!.tick();
    await until(() => model.requests.length === 2 && services.agent.isBusy(session.id), 'the sleeping pass');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await call('cancelTurn', { sessionId: session.id });
    await until(() => turnsEnded() === 2, 'the stopped pass');
    const used = await call<{ turnsUsed: number; tokensUsed: number }>('getBudget', { sessionId: session.id });
    expect(used.turnsUsed).toBe(1);
    expect(used.tokensUsed).toBeGreaterThan(0);
  });

  it('a wake-up while the budget is spent waits, and is told in one turn when the person resumes', async () => {
    const { model, call, session, say, services, turnsEnded } = await setupAgent();
    await call('updateSettings', { budget: { turns: 1 } });
    model.enqueue(
      {
        toolCalls: [
          { name: 'run_command', args: { command: 'exit 0', background: true, notify_on_finish: true } },
          { name: 'run_command', args: { command: 'sleep 2; exit 3', background: true, notify_on_finish: true } },
        ],
      },
      { text: 'Both started.' },
      { text: 'The first ended.' },
      { text: 'The second ended too.' },
    );
    await say('start two');
    await until(() => turnsEnded() === 2, 'the first wake-up');
    expect(model.requests[2]!.transcript).toMatch(/bg_1 \(exit 0\): succeeded/);
    expect(await call('getBudget', { sessionId: session.id })).toMatchObject({ turnsUsed: 1, spent: true });
    // The second ends while the budget is spent: no turn.
    await until(() => services.pool.row(session.id, 'bg_2').status === 'failed', 'the second task to end', 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(turnsEnded()).toBe(2);
    expect(model.requests).toHaveLength(3);
    await call('resumeBudget', { sessionId: session.id });
    await until(() => turnsEnded() === 3, 'the wake-up that waited');
    expect(model.requests[3]!.transcript).toMatch(/bg_2 \(sleep 2; exit 3\): failed, exit code 3/);
  });
});
