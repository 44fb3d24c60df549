import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../shared/schemas/message.js';
import type { SleepSettings } from '../../shared/schemas/settings.js';
import { until } from '../helpers.js';
import { setupAgent } from './agent-harness.js';

type Agent = Awaited<ReturnType<typeof setupAgent>>;

/** Every progress line a row showed, with when it was written, in order. */
function progressOf(services: Agent['services'], toolName: string) {
  const lines: { text: string; at: number }[] = [];
  services.bus.subscribe((name, payload) => {
    if (name !== 'messageUpdated') return;
    const { message } = payload as { message: Message };
    if (message.toolName === toolName && message.status === 'running' && message.display?.kind === 'text')
      lines.push({ text: message.display.text, at: Date.now() });
  });
  return lines;
}

/**
 * The sleep settings as a person edits them into settings.json by hand (the Settings page has no
 * fields for them): the next save reads the file's sections back, so they apply from then on.
 */
async function setSleep(agent: Agent, sleep: SleepSettings): Promise<void> {
  const file = join(dirname(agent.services.databaseFile), 'settings.json');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), sleep }));
  await agent.call('updateSettings', { notifications: { enabled: true } });
  expect(agent.services.settings.current.sleep).toEqual(sleep);
}

const sleepRow = (messages: Agent['messages']) => messages().find((m) => m.toolName === 'sleep');

describe('the sleep tool through the fake model', () => {
  it('streams its progress once a second, and Stop ends it at once', async () => {
    const { model, services, session, call, messages } = await setupAgent();
    const lines = progressOf(services, 'sleep');
    model.enqueue({ toolCalls: [{ name: 'sleep', args: { seconds: 300, reason: 'waiting for CI' } }] });
    await call('postMessage', { sessionId: session.id, text: 'wait for CI' });
    await until(() => new Set(lines.map((line) => line.text)).size >= 3, 'the progress line to change twice', 15_000);
    for (const line of lines) expect(line.text).toMatch(/^Sleeping \d+s of 5m: waiting for CI$/);
    // Never more often than once a second (a busy machine only spaces them further).
    for (let index = 1; index < lines.length; index++)
      expect(lines[index]!.at - lines[index - 1]!.at).toBeGreaterThanOrEqual(990);
    expect(sleepRow(messages)!.status).toBe('running');

    const stoppedAt = Date.now();
    await call('cancelTurn', { sessionId: session.id });
    await until(() => !services.agent.isBusy(session.id), 'the turn to end', 10_000);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    const row = sleepRow(messages)!;
    expect(row.toolResult).toMatch(/^Stopped by the person after \d+s of 5m\.$/);
    expect(row.display).toMatchObject({ kind: 'text', text: expect.stringMatching(/^Stopped after \d+s of 5m\.$/) });
    expect(model.requests).toHaveLength(1);
  });

  it("wakes for a message from the person, and the model's next request holds the interruption and the message", async () => {
    const { model, services, session, call, messages, turnsEnded } = await setupAgent();
    const lines = progressOf(services, 'sleep');
    model.enqueue(
      { toolCalls: [{ name: 'sleep', args: { seconds: 300, reason: 'waiting for the deploy' } }] },
      { text: 'Starting the smoke test.' },
    );
    const startedAt = Date.now();
    await call('postMessage', { sessionId: session.id, text: 'Wait for the deploy, then smoke test it.' });
    await until(() => lines.length >= 1, 'the sleep to show its progress', 15_000);
    await call('postMessage', { sessionId: session.id, text: 'It is done early.' });
    await until(() => turnsEnded() >= 2, 'both turns to end', 30_000);
    // Far less than the 5 minutes asked for.
    expect(Date.now() - startedAt).toBeLessThan(60_000);

    expect(model.requests).toHaveLength(2);
    const next = model.requests[1]!.transcript;
    const interrupted = next.indexOf('Interrupted by a message from the person after');
    expect(interrupted).toBeGreaterThan(-1);
    expect(next).toMatch(/Interrupted by a message from the person after \d+s of 5m/);
    expect(next.indexOf('user: It is done early.')).toBeGreaterThan(interrupted);
    expect(sleepRow(messages)!.display).toMatchObject({
      kind: 'text',
      text: expect.stringMatching(/^Woke after \d+s of 5m: you sent a message\.$/),
    });
    expect(messages().at(-1)).toMatchObject({ role: 'assistant', text: 'Starting the smoke test.' });
  });

  it('two sleeps in one step: one raised to the minimum, one capped with the remainder named', async () => {
    const agent = await setupAgent();
    await setSleep(agent, { minSeconds: 2, maxSeconds: 3 });
    agent.model.enqueue(
      {
        toolCalls: [
          { name: 'sleep', args: { seconds: 1 } },
          { name: 'sleep', args: { seconds: 5, reason: 'the rest' } },
        ],
      },
      { text: 'ok' },
    );
    await agent.say('nap twice');
    const next = agent.model.requests[1]!.transcript;
    expect(next).toContain('Slept 2s (raised from 1s to the 2s minimum).');
    expect(next).toContain(
      'Slept 3s of 5s (capped at the 3s maximum per call); 2s remain: call sleep again with seconds: 2 to go on.',
    );
  });

  it('run_command refuses a foreground shell sleep without asking, and runs a background one', async () => {
    const { model, services, session, say } = await setupAgent();
    const foregroundAsks: string[] = [];
    services.bus.subscribe((name, payload) => {
      const { request } = payload as { request: { command: string; background: boolean } };
      if (name === 'permissionRequested' && !request.background) foregroundAsks.push(request.command);
    });
    model.enqueue(
      { toolCalls: [{ name: 'run_command', args: { command: 'sleep 5' } }] },
      { toolCalls: [{ name: 'run_command', args: { command: 'sleep 5 && echo after' } }] },
      { toolCalls: [{ name: 'run_command', args: { command: 'sleep 5; echo after' } }] },
      { toolCalls: [{ name: 'run_command', args: { command: 'sleep 5', background: true } }] },
      { text: 'done' },
    );
    await say('wait a little');
    for (const request of model.requests.slice(1, 4))
      expect(request.transcript).toMatch(
        /Not run: a foreground shell sleep of 2 seconds or more is refused\. To wait, call sleep with seconds: 5/,
      );
    expect(model.requests[4]!.transcript).toContain('Started background task bg_1');
    // Nobody was asked about the refused ones, and only the background one became a task.
    expect(foregroundAsks).toEqual([]);
    expect(services.pool.list(session.id).map((task) => [task.id, task.command])).toEqual([['bg_1', 'sleep 5']]);
  });
});
