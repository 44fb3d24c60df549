import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { backgroundTools, parseArgs, resolveCall, type ToolContext } from '../../electron/agent/tools.js';
import { offeredTools } from '../../electron/agent/tool-offer.js';
import { describeExit } from '../../electron/pool/exit-codes.js';
import { makePool, type Harness } from '../pool/pool-harness.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
});

/** A real pool and the model's tools over it; `call` goes through alias resolution and the schema as a model call does. */
function harness(policy: Parameters<typeof makePool>[0] = {}) {
  const h = makePool(policy);
  open.push(h);
  const tools = backgroundTools(h.pool);
  const context: ToolContext = {
    sessionId: h.sessionId,
    cwd: tmpdir(),
    signal: new AbortController().signal,
    permit: async () => ({ allowed: true, reason: '' }),
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const resolved = resolveCall(tools, name, args)!;
    return resolved.tool.execute(parseArgs(resolved.tool, resolved.args) as never, context);
  };
  const start = async (command: string) => {
    const task = await h.pool.start({ sessionId: h.sessionId, command, cwd: tmpdir() });
    return task.id;
  };
  return { h, tools, call, start };
}

describe('run_command in the foreground: timeout_seconds is the wait before the handover', () => {
  it('hands over sooner with a tight one, and the adopted run keeps the maximum and is never killed by it', async () => {
    const { h, call } = harness({ foregroundWaitMs: 60_000 });
    const answer = await call('run_command', { command: 'timeout 3 cat; echo late', timeout_seconds: 1 });
    expect(answer.text).toContain('Command still running after 1 s. It was NOT cancelled');
    expect(answer.display).toMatchObject({ kind: 'moved', afterSeconds: 1, timeoutSeconds: 3600 });
    expect(h.pool.row(h.sessionId, answer.taskId!)).toMatchObject({ adopted: true, timeoutSeconds: 3600 });
    expect(await h.pool.waitFor(answer.taskId!, 15_000)).toMatchObject({ status: 'succeeded', exitCode: 0 });
  });

  it('waits longer than the policy with a larger one, and its hard limit is the maximum, not the wait', async () => {
    const { h, call } = harness({ foregroundWaitMs: 100 });
    const answer = await call('run_command', { command: 'sleep 1; echo waited', timeout_seconds: 60 });
    expect(answer.display).toEqual({ kind: 'ran' });
    expect(answer.text).toMatch(/^Task bg_1: succeeded, exit code 0/);
    expect(answer.text).toContain('waited');
    expect(h.pool.row(h.sessionId, 'bg_1')).toMatchObject({ adopted: false, timeoutSeconds: 3600 });
  });

  it("keeps the policy's wait when none is given", async () => {
    const { call } = harness({ foregroundWaitMs: 100 });
    const answer = await call('run_command', { command: 'timeout 5 cat' });
    expect(answer.display).toMatchObject({ kind: 'moved', afterSeconds: 0.1 });
  });
});

describe('read_task_output and its aliases', () => {
  it('background_output shows the last 100 lines by default', async () => {
    const { h, call, start } = harness();
    const id = await start('seq 1 300');
    await h.pool.waitFor(id, 15_000);
    const text = (await call('background_output', { task_id: id })).text;
    expect(text).toMatch(/\n201\n[\s\S]*\n300\n/);
    expect(text).not.toMatch(/\n200\n/);
    // The canonical name shows everything.
    expect((await call('read_task_output', { task_id: id })).text).toMatch(/\n1\n2\n/);
  });

  it('task_output blocks by default, takes timeout in milliseconds, and block: false does not wait', async () => {
    const { tools, call, start } = harness();
    const id = await start('sleep 30');
    expect(resolveCall(tools, 'task_output', { task_id: id, timeout: 1500 })!.args).toEqual({
      task_id: id,
      wait: true,
      timeout_seconds: 2,
    });
    const waited = await call('task_output', { task_id: id, timeout: 500 });
    expect(waited.text).toContain('retrieval_status: timeout');
    expect(waited.text).toContain('Still running after waiting 1 s');
    const peeked = await call('TaskOutput', { task_id: id, block: false });
    expect(peeked.text).toContain('retrieval_status: not_ready');
    const finished = await start('sleep 0.2; echo ended');
    const collected = await call('task_output', { task_id: finished });
    expect(collected.text).toContain('retrieval_status: success');
    expect(collected.text).toContain('ended');
  });

  it('clamps a wait above the maximum with a note instead of refusing it', async () => {
    const { call, start } = harness();
    const id = await start('sleep 0.2');
    const answer = await call('read_task_output', { task_id: id, wait: true, timeout_seconds: 900 });
    expect(answer.text).toContain('retrieval_status: success');
    expect(answer.text).toContain('note: a wait of 900 s was asked; 300 s is the most one call waits.');
    const inMs = await call('task_output', { task_id: id, timeout: 600_000 });
    expect(inMs.text).toContain('note: a wait of 600 s was asked');
  });
});

describe('list_tasks', () => {
  it("shows each task's kind, and include_stopped: false only what still runs", async () => {
    const { h, call, start } = harness();
    const done = await start('true');
    await h.pool.waitFor(done, 15_000);
    const running = await start('sleep 30');
    const all = (await call('list_tasks', {})).text.split('\n');
    expect(all).toHaveLength(2);
    expect(all[0]).toMatch(/^bg_1 \[command, succeeded\]/);
    const live = (await call('shell_tasks', { include_stopped: false })).text.split('\n');
    expect(live).toEqual([expect.stringMatching(new RegExp(`^${running} \\[command, running\\]`))]);
    expect((await call('list_tasks', { includeStopped: false })).text).not.toContain(done);
  });
});

describe('conventional exit codes read as a result', () => {
  it('finds the program whose status the shell returns in compound commands', () => {
    const note = (command: string) => describeExit(command, 1, null).note;
    expect(note("rg 'a|b' src")).toBe('no matches found');
    expect(note('cat log 2>&1 | grep -c ERROR')).toBe('no matches found');
    expect(note('make; diff a b')).toBe('files differ');
    expect(note('false || [ -f x ]')).toBe('condition is false');
    expect(note('grep "x;y" f')).toBe('no matches found');
    expect(note('cd /missing && grep x f')).toBeNull();
    expect(note('grep x f | wc -l')).toBeNull();
    expect(note('(grep x f)')).toBeNull();
    expect(note('echo $(grep x f)')).toBeNull();
  });

  it('tells the model the meaning without "did NOT succeed"; the row stays failed with the note', async () => {
    const { h, call, start } = harness();
    const answer = await call('run_command', { command: 'grep -q zz-no-such-text /dev/null' });
    expect(answer.text).toMatch(/^Task bg_1: failed, exit code 1 \(no matches found\)/);
    expect(answer.text).not.toContain('did NOT succeed');
    expect(h.pool.row(h.sessionId, 'bg_1')).toMatchObject({
      status: 'failed',
      exitCode: 1,
      exitNote: 'no matches found',
    });
    const diff = await start('diff /etc/hostname /dev/null');
    await h.pool.waitFor(diff, 15_000);
    const read = (await call('read_task_output', { task_id: diff })).text;
    expect(read).toContain('exit_code: 1 (files differ)');
    expect(read).not.toContain('did NOT succeed');
    // A real failure still says so.
    const failed = await call('run_command', { command: 'exit 3' });
    expect(failed.text).toContain('This task did NOT succeed (failed).');
  });
});

describe('background work turned off in the settings', () => {
  it('offers run_command alone, without the background arguments, and it still runs', async () => {
    const { h, tools } = harness();
    const offered = offeredTools(tools, false);
    expect(offered.map((tool) => tool.name)).toEqual(['run_command']);
    expect(Object.keys(offered[0]!.input.shape)).not.toContain('background');
    expect(Object.keys(offered[0]!.input.shape)).not.toContain('notify_on_finish');
    expect(resolveCall(offered, 'background_output', { task_id: 'bg_1' })).toBeNull();
    expect(() => parseArgs(offered[0]!, { command: 'true', background: true })).toThrow(/background/);
    const context: ToolContext = {
      sessionId: h.sessionId,
      cwd: tmpdir(),
      signal: new AbortController().signal,
      permit: async () => ({ allowed: true, reason: '' }),
    };
    const answer = await offered[0]!.execute(parseArgs(offered[0]!, { command: 'echo fg' }) as never, context);
    expect(answer.text).toMatch(/^Task bg_1: succeeded/);
    expect(offeredTools(tools, true)).toBe(tools);
  });
});
