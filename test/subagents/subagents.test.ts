import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enqueueRouted, parentRequests } from '../../e2e/fake-model/index.js';
import { AgentEventSchema } from '../../shared/schemas/subagent.js';
import { until } from '../helpers.js';
import { setupAgent, type Kind } from '../agent/agent-harness.js';

const start = (marker: string, extra: Record<string, unknown> = {}) => ({
  name: 'agent',
  args: { description: `Work on ${marker}`, prompt: `${marker}: do the thing`, run_in_background: true, ...extra },
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.each<Kind>(['openai-compatible', 'anthropic'])('background sub-agents (%s)', (kind) => {
  it('runs beside the conversation: done after the spawning turn ended, wakes it once, agent_output returns the result', async () => {
    const { model, say, session, services, turnsEnded } = await setupAgent(kind);
    enqueueRouted(model, {
      parent: [
        { toolCalls: [start('TASK-A')] },
        { text: 'It is working; I will be told.' },
        { toolCalls: [{ name: 'agent_output', args: { task_id: 'agt_1', wait: true } }] },
        { text: 'The agent counted 42 files.' },
      ],
      'TASK-A': [{ text: 'A-RESULT: 42 files', delayMs: 400 }],
    });
    await say('count the files with an agent');
    expect(services.pool.row(session.id, 'agt_1')).toMatchObject({ kind: 'agent', running: true, pid: null });
    expect(parentRequests(model.requests)[1]!.transcript).toMatch(
      /Started agent agt_1 \(general-purpose\) in the background/,
    );

    await until(() => turnsEnded() === 2, 'the wake-up', 15_000);
    const wake = model.requests.find((request) => /Automated notice/.test(request.transcript))!.transcript;
    expect(wake).toMatch(/agt_1 \(agent general-purpose: Work on TASK-A\): completed, runtime .*agent_output/);
    expect(wake).not.toContain('A-RESULT');
    const collected = parentRequests(model.requests).at(-1)!.transcript;
    expect(collected).toMatch(/retrieval_status: success/);
    expect(collected).toMatch(/agent_status: completed/);
    expect(collected).toMatch(/<untrusted-output nonce="[^"]+" source="agt_1">\s*A-RESULT: 42 files/);

    // Its log is its transcript as JSON lines.
    const row = services.pool.row(session.id, 'agt_1');
    expect(row).toMatchObject({ status: 'succeeded', agent: { name: 'general-purpose', steps: 1, depth: 1 } });
    const events = readFileSync(row.logPath, 'utf8')
      .trim()
      .split('\n')
      .map((line) => AgentEventSchema.parse(JSON.parse(line)));
    expect(events.map((event) => event.type)).toEqual(['start', 'text', 'usage', 'end']);
    expect(events.at(-1)).toMatchObject({ outcome: 'completed', result: 'A-RESULT: 42 files' });
  });
});

describe.each<Kind>(['openai-compatible', 'anthropic'])('background sub-agents, more (%s)', (kind) => {
  it('three in parallel finish within moments of each other: one wake-up names all three', async () => {
    const { model, say, turnsEnded } = await setupAgent(kind);
    enqueueRouted(model, {
      parent: [
        { toolCalls: [start('TASK-A'), start('TASK-B'), start('TASK-C')] },
        { text: 'Three agents are working.' },
        { text: 'All three are done.' },
      ],
      'TASK-A': [{ text: 'A done', delayMs: 200 }],
      'TASK-B': [{ text: 'B done', delayMs: 300 }],
      'TASK-C': [{ text: 'C done', delayMs: 400 }],
    });
    await say('fan out');
    await until(() => turnsEnded() === 2, 'the wake-up', 15_000);
    const wake = parentRequests(model.requests).at(-1)!.transcript;
    for (const id of ['agt_1', 'agt_2', 'agt_3']) expect(wake).toMatch(new RegExp(`${id} \\(agent .*\\): completed`));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(turnsEnded()).toBe(2);
  });

  it('cancelling the spawning turn leaves a background agent running to its end', async () => {
    const { model, call, session, services, turnsEnded } = await setupAgent(kind);
    enqueueRouted(model, {
      parent: [
        { toolCalls: [start('TASK-A', { notify_on_finish: false })] },
        { toolCalls: [{ name: 'sleep', args: { seconds: 60, reason: 'waiting' } }] },
      ],
      'TASK-A': [{ text: 'finished anyway', delayMs: 1500 }],
    });
    await call('postMessage', { sessionId: session.id, text: 'start it and wait' });
    await until(() => services.pool.has(session.id, 'agt_1'), 'the agent to start');
    await until(() => model.requests.length >= 3, 'the sleep');
    await call('cancelTurn', { sessionId: session.id });
    await until(() => turnsEnded() === 1, 'the cancelled turn');
    expect(services.pool.row(session.id, 'agt_1').running).toBe(true);
    await until(() => services.pool.row(session.id, 'agt_1').status === 'succeeded', 'the agent to finish', 10_000);
  });

  it('kill stops the agent and the background tasks it started: no process is left', async () => {
    const { model, say, session, services } = await setupAgent(kind);
    enqueueRouted(model, {
      parent: [
        { toolCalls: [start('TASK-A', { notify_on_finish: false })] },
        { text: 'Started.' },
        { toolCalls: [{ name: 'agent_output', args: { task_id: 'agt_1', action: 'kill' } }] },
        { text: 'Killed it.' },
      ],
      'TASK-A': [
        { toolCalls: [{ name: 'run_command', args: { command: 'sleep 60', background: true } }] },
        { hangMs: 60_000 },
      ],
    });
    await say('start a slow agent');
    await until(() => services.pool.has(session.id, 'bg_2'), 'the agent’s own task');
    const owned = services.pool.row(session.id, 'bg_2');
    expect(owned.ownerTaskId).toBe('agt_1');
    await until(() => services.pool.row(session.id, 'bg_2').pid !== null, 'its process');
    const pid = services.pool.row(session.id, 'bg_2').pid!;
    expect(alive(pid)).toBe(true);

    await say('kill it');
    expect(parentRequests(model.requests).at(-1)!.transcript).toMatch(/Killed agt_1\.[\s\S]*agent_status: killed/);
    expect(services.pool.row(session.id, 'agt_1').status).toBe('stopped');
    expect(services.pool.row(session.id, 'bg_2')).toMatchObject({ status: 'stopped', running: false });
    expect(services.pool.row(session.id, 'bg_2').exitNote).toMatch(/its agent agt_1 ended/);
    await until(() => !alive(pid), 'the process to be gone');
  });

  it('a sub-agent’s command asks the person in the agent’s name; its tasks never wake the parent', async () => {
    const { model, say, session, services } = await setupAgent(kind);
    const asked: unknown[] = [];
    services.bus.subscribe((name, payload) => {
      if (name === 'permissionRequested') asked.push((payload as { request: { agent: unknown } }).request.agent);
    });
    enqueueRouted(model, {
      parent: [{ toolCalls: [start('TASK-A', { run_in_background: false })] }, { text: 'It ran the command.' }],
      'TASK-A': [
        {
          toolCalls: [
            { name: 'run_command', args: { command: 'touch made-by-agent && echo made', notify_on_finish: true } },
          ],
        },
        { text: 'Made the file.' },
      ],
    });
    await say('have an agent make a file');
    expect(asked).toEqual([{ taskId: 'agt_1', name: 'general-purpose' }]);
    // Foreground: the answer is the agent's result, fenced.
    expect(parentRequests(model.requests).at(-1)!.transcript).toMatch(/source="agt_1">\s*Made the file\./);
    expect(services.pool.row(session.id, 'agt_1').notifyOnFinish).toBe(false);
  });

  it('a definition that names its tools gets only those; a malformed one is skipped and reported', async () => {
    const { model, say, call, dataDir } = await setupAgent(kind);
    const folder = join(dataDir, '.drover', 'agents');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'lister.md'),
      '---\nname: lister\ndescription: Lists tasks only\ntools: [list_tasks]\n---\nYou list tasks.\n',
    );
    writeFileSync(join(folder, 'broken.md'), '---\nname: Broken Name\ndescription: x\n---\nbody\n');
    const listed = await call<{ agents: { name: string }[]; problems: { file: string; field: string | null }[] }>(
      'listAgentDefinitions',
      {},
    );
    expect(listed.agents.map((agent) => agent.name)).toEqual(['general-purpose', 'researcher', 'lister']);
    expect(listed.problems).toEqual([expect.objectContaining({ file: join(folder, 'broken.md'), field: 'name' })]);

    enqueueRouted(model, {
      parent: [{ toolCalls: [start('TASK-L', { agent: 'lister', run_in_background: false })] }, { text: 'ok' }],
      'TASK-L': [{ text: 'no tasks' }],
    });
    await say('list with the lister');
    const sub = model.requests.find((request) => /You are a sub-agent \(lister\)/.test(request.transcript))!;
    expect(sub.tools).toEqual(['list_tasks']);
    // The model is offered the agents there are, the broken one not among them.
    const offered = JSON.stringify(parentRequests(model.requests)[0]!.body);
    expect(offered).toContain('lister: Lists tasks only');
    expect(offered).not.toContain('Broken Name');
  });

  it('beyond the session’s limit of agents they queue, and start as others end', async () => {
    const { model, say, call, session, services } = await setupAgent(kind);
    await call('updateSettings', { background: { maxAgents: 1 } });
    enqueueRouted(model, {
      parent: [
        { toolCalls: [start('TASK-A', { notify_on_finish: false }), start('TASK-B', { notify_on_finish: false })] },
        { text: 'Two started.' },
      ],
      'TASK-A': [{ text: 'A done', delayMs: 500 }],
      'TASK-B': [{ text: 'B done' }],
    });
    await say('two agents');
    expect(parentRequests(model.requests)[1]!.transcript).toMatch(/agt_2 .*It waits for a free place/);
    expect(services.pool.row(session.id, 'agt_2').status).toBe('queued');
    await until(() => services.pool.row(session.id, 'agt_2').status === 'succeeded', 'the queued agent', 10_000);
    const a = services.pool.row(session.id, 'agt_1');
    const b = services.pool.row(session.id, 'agt_2');
    expect(Date.parse(b.startedAt!)).toBeGreaterThanOrEqual(Date.parse(a.endedAt!));
  });
});

describe('sub-agents, from review', () => {
  it('an agent may not kill itself with agent_output; one that stops itself with stop_task ends at once', async () => {
    const { model, say, session, services } = await setupAgent();
    enqueueRouted(model, {
      parent: [
        { toolCalls: [start('TASK-A', { notify_on_finish: false }), start('TASK-B', { notify_on_finish: false })] },
        { text: 'Started.' },
      ],
      'TASK-A': [
        { toolCalls: [{ name: 'agent_output', args: { task_id: 'agt_1', action: 'kill' } }] },
        { text: 'I will answer instead.' },
      ],
      'TASK-B': [{ toolCalls: [{ name: 'stop_task', args: { task_id: 'agt_2' } }] }],
    });
    await say('two agents');
    await until(() => services.pool.row(session.id, 'agt_1').status === 'succeeded', 'A to answer', 10_000);
    const a = await services.handle('getAgentRun', { sessionId: session.id, taskId: 'agt_1' });
    expect(JSON.stringify(a)).toMatch(/An agent may not kill itself or the agent that started it/);
    // The model was told why, in its own words.
    expect(model.requests.some((request) => /is you or the agent that started you/.test(request.transcript))).toBe(
      true,
    );
    await until(() => services.pool.row(session.id, 'agt_2').status === 'stopped', 'B to end', 10_000);
  });

  it('an agent stopped by its limit of model calls before it answered has failed, with its partial text', async () => {
    const { model, say, call, session, services } = await setupAgent();
    await call('updateSettings', { background: { agentMaxTurns: 1 } });
    enqueueRouted(model, {
      parent: [{ toolCalls: [start('TASK-A', { run_in_background: false })] }, { text: 'It ran out.' }],
      'TASK-A': [{ text: 'Let me look first.', toolCalls: [{ name: 'list_tasks', args: {} }] }],
    });
    await say('one call only');
    expect(services.pool.row(session.id, 'agt_1')).toMatchObject({
      status: 'failed',
      agent: { steps: 1, maxSteps: 1 },
    });
    const answer = parentRequests(model.requests).at(-1)!.transcript;
    expect(answer).toMatch(/agent_status: failed/);
    expect(answer).toMatch(/error: it reached its limit of 1 model calls/);
    expect(answer).toMatch(/result \(partial: it did not finish\):[\s\S]*Let me look first\./);
  });

  it('an agent task is never rerun as a shell line', async () => {
    const { model, say, call, session } = await setupAgent();
    enqueueRouted(model, {
      parent: [
        { toolCalls: [start('TASK-A', { run_in_background: false, description: 'touch pwned' })] },
        { text: 'ok' },
      ],
      'TASK-A': [{ text: 'done' }],
    });
    await say('go');
    await expect(call('rerunTask', { sessionId: session.id, taskId: 'agt_1' })).rejects.toThrow(
      /is an agent; it cannot be rerun as a command/,
    );
  });
});

describe('the budget for unattended turns, with agents', () => {
  it('an unattended turn pays for the agents it starts; the person’s own turn does not', async () => {
    const usedWith = async (automated: boolean, extraCalls: number) => {
      const { model, session, services } = await setupAgent();
      enqueueRouted(model, {
        parent: [{ toolCalls: [{ name: 'agent', args: { description: 'x', prompt: 'TASK-A: x' } }] }, { text: 'ok' }],
        'TASK-A': [
          ...Array.from({ length: extraCalls }, () => ({ toolCalls: [{ name: 'list_tasks', args: {} }] })),
          { text: 'done' },
        ],
      });
      await services.agent.submit(session.id, 'a scheduled prompt', { automated }).done;
      const budget = (await services.handle('getBudget', { sessionId: session.id })) as {
        ok: true;
        value: { tokensUsed: number };
      };
      return { budget: budget.value.tokensUsed, agent: services.pool.row(session.id, 'agt_1').agent!.tokens };
    };
    const few = await usedWith(true, 0);
    const many = await usedWith(true, 8);
    // The parent's own calls are the same in both runs (but for a few characters of elapsed time
    // in the agent's answer): the difference is what the agent used.
    expect(many.agent - few.agent).toBeGreaterThan(1000);
    expect(Math.abs(many.budget - few.budget - (many.agent - few.agent))).toBeLessThan(20);
    expect((await usedWith(false, 8)).budget).toBe(0);
  });
});
