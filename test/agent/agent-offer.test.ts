import { describe, expect, it } from 'vitest';
import { until } from '../helpers.js';
import { ALL_TOOLS, setupAgent } from './agent-harness.js';

const setup = () => setupAgent();

/** The JSON Schema properties of a tool as the request offered it (OpenAI's wire format). */
function offeredProperties(body: { tools: { function: { name: string; parameters: { properties: object } } }[] }) {
  const tool = body.tools.find((entry) => entry.function.name === 'run_command')!;
  return Object.keys(tool.function.parameters.properties);
}

describe('the tools the model is offered follow the background setting', () => {
  it('background.enabled: false offers run_command without the background option, no task tools; the planning and scheduling tools and sleep', async () => {
    const { model, call, say } = await setup();
    await call('updateSettings', { background: { enabled: false } });
    model.enqueue(
      { toolCalls: [{ name: 'run_command', args: { command: 'echo fore$((1+1))', background: true } }] },
      { toolCalls: [{ name: 'run_command', args: { command: 'echo fore$((1+1))' } }] },
      { text: 'done' },
    );
    await say('run it');
    // The planning and scheduling tools and sleep start no process, so they stay.
    expect(model.requests[0]!.tools.sort()).toEqual([
      'cron_create',
      'cron_delete',
      'cron_list',
      'loop_next',
      'loop_stop',
      'run_command',
      'sleep',
      'task_create',
      'task_get',
      'task_list',
      'task_update',
      'todo_write',
    ]);
    expect(offeredProperties(model.requests[0]!.body)).not.toContain('background');
    expect(offeredProperties(model.requests[0]!.body)).not.toContain('notify_on_finish');
    expect(model.requests[0]!.transcript).toContain('Background work is turned off in the settings');
    expect(model.requests[1]!.transcript).toMatch(/Invalid arguments for run_command: .*background/);
    expect(model.requests[2]!.transcript).toMatch(/Task bg_1: succeeded[\s\S]*fore2/);

    // Turned back on, the next turn offers everything again.
    await call('updateSettings', { background: { enabled: true } });
    model.enqueue({ text: 'back' });
    await say('again');
    expect(model.requests[3]!.tools.sort()).toEqual(ALL_TOOLS);
    expect(offeredProperties(model.requests[3]!.body)).toContain('background');
  });

  it('a wake for grep finding nothing states "exit code 1 (no matches found)" without "did NOT succeed"', async () => {
    const { model, say, turnsEnded } = await setup();
    model.enqueue(
      {
        toolCalls: [
          {
            name: 'run_command',
            args: { command: 'grep -q zz-no-such-text /dev/null', background: true, notify_on_finish: true },
          },
          { name: 'run_command', args: { command: 'exit 4', background: true, notify_on_finish: true } },
        ],
      },
      { text: 'waiting' },
      { text: 'told' },
    );
    await say('search');
    await until(() => turnsEnded() >= 2, 'the wake turn', 15_000);
    const wake = model.requests[2]!.transcript;
    expect(wake).toMatch(
      /bg_1 \(grep -q zz-no-such-text \/dev\/null\): failed, exit code 1 \(no matches found\), runtime [^\n]*\n/,
    );
    expect(wake).not.toMatch(/bg_1 [^\n]*did NOT succeed/);
    expect(wake).toMatch(/bg_2 \(exit 4\): failed, exit code 4, runtime [^\n]*did NOT succeed/);
  });
});
