import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../../shared/schemas/permission.js';
import { setupAgent } from './agent-harness.js';

describe('plan mode through the fake model', () => {
  it('tells the model it is planning, runs read-only commands, asks for the rest whatever the allowlist, and ends by the person only', async () => {
    const { model, say, call, session, services } = await setupAgent();
    const asked: PermissionRequest[] = [];
    services.bus.subscribe((name, payload) => {
      if (name === 'permissionRequested') asked.push((payload as { request: PermissionRequest }).request);
    });
    await call('updateSettings', { commandAllowlist: ['touch'] });
    await call('setSessionMode', { id: session.id, mode: 'plan' });

    model.enqueue(
      { toolCalls: [{ name: 'run_command', args: { command: 'ls' } }] },
      { toolCalls: [{ name: 'run_command', args: { command: 'touch planned.txt' } }] },
      {
        toolCalls: [
          { name: 'todo_write', args: { todos: [{ content: 'Fix it', status: 'pending', activeForm: 'Fixing it' }] } },
        ],
      },
      { text: 'Here is the plan. Switch to agent mode to carry it out.' },
    );
    await say('Plan the fix');
    const first = model.requests[0]!.transcript;
    expect(first).toMatch(/system: [\s\S]*Plan mode is on: the person asked you to plan/);
    expect(first).toContain('You cannot leave plan mode.');
    expect(first).toContain('(Note from Drover: Plan mode is on.');
    // `ls` ran without asking; `touch` asked although the allowlist holds it (the harness allows it once).
    expect(asked.map((request) => [request.command, request.planMode])).toEqual([['touch planned.txt', true]]);
    expect(asked[0]!.reason).toMatch(/^plan mode: only read-only commands run without asking/);
    expect(model.requests[2]!.transcript).toMatch(/exit code 0/);

    // Back in agent mode the allowlist applies again, and the model is told of the switch.
    await call('setSessionMode', { id: session.id, mode: 'agent' });
    model.enqueue({ toolCalls: [{ name: 'run_command', args: { command: 'touch done.txt' } }] }, { text: 'Done.' });
    await say('Go ahead');
    expect(asked).toHaveLength(1);
    const later = model.requests.at(-1)!.transcript;
    expect(later).not.toContain('Plan mode is on: the person asked you to plan');
    expect(later).toContain('(Note from Drover: Plan mode is off');
  });
});
