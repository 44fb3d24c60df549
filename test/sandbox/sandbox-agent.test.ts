/**
 * The sandbox seen from the agent (issue 19): a fake model server scripts run_command calls, the
 * commands run sandboxed for real (bubblewrap here), and the test answers the questions the person
 * would. The agent harness (test/agent) answers every question with "allow" and has no sandbox, so
 * the services are built here as the sandbox harness builds them.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Services } from '../../electron/core/services.js';
import { startOpenAiCompatibleServer, type FakeModelServer } from '../../e2e/fake-model/index.js';
import type { PermissionAnswer, PermissionRequest } from '../../shared/schemas/permission.js';
import type { SettingsUpdate } from '../../shared/schemas/settings.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { tempDir, until } from '../helpers.js';
import { greeter, sandboxServices } from './sandbox-harness.js';

/** A sandboxed command, its questions and the model's turns take a few seconds each on a busy machine. */
const TURN_MS = 45_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface AgentWorld {
  services: Services;
  model: FakeModelServer;
  sessionId: string;
  work: string;
  /** A folder outside every place a sandboxed command may write. */
  outside: string;
  /** Every question the person was asked, in order. */
  asked: PermissionRequest[];
  /** How the test answers each question as it comes (null: the test answers it itself). */
  answer: (request: PermissionRequest) => PermissionAnswer | null;
  say(text: string): Promise<void>;
  call<T>(name: string, input: unknown): Promise<T>;
  /** The task rows of the model's run_command calls, in order. */
  commandRows(): TaskRow[];
}

/** Real services with the sandbox on, a fake OpenAI-compatible model, and a session. */
async function agentWorld(sandbox: SettingsUpdate['sandbox'] = {}): Promise<AgentWorld> {
  const model = await startOpenAiCompatibleServer();
  const dataDir = tempDir('drover-sandbox-agent-data-');
  const work = tempDir('drover-sandbox-agent-work-');
  // Outside the temp folder, which sandboxed commands may write.
  const outside = mkdtempSync('/var/tmp/drover-sandbox-agent-outside-');
  cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
  const services = sandboxServices({ dataDir, workingDir: work });
  cleanups.push(() => model.close());
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const result = await services.handle(name as never, input as never);
    if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
    return result.value as T;
  };
  await call('updateSettings', {
    provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'fake-model', apiKey: 'sk-test-key' },
    ...(Object.keys(sandbox).length > 0 ? { sandbox } : {}),
  });
  const session = await call<{ id: string }>('createSession', { title: 'sandbox agent' });
  const world: AgentWorld = {
    services,
    model,
    sessionId: session.id,
    work,
    outside,
    asked: [],
    answer: () => null,
    call,
    async say(text) {
      const ended = turnsEnded;
      await call('postMessage', { sessionId: session.id, text });
      await until(() => turnsEnded > ended, 'the turn to end', TURN_MS);
    },
    commandRows() {
      return services.sessions
        .messages(session.id)
        .filter((message) => message.role === 'tool' && message.toolName === 'run_command' && message.taskId)
        .map((message) => services.pool.row(session.id, message.taskId!));
    },
  };
  let turnsEnded = 0;
  const stop = services.bus.subscribe((name, payload) => {
    if (name === 'turnChanged' && !(payload as { busy: boolean }).busy) turnsEnded += 1;
    if (name !== 'permissionRequested') return;
    const { request } = payload as { request: PermissionRequest };
    world.asked.push(request);
    const answer = world.answer(request);
    if (answer)
      void services.handle('answerPermission', { sessionId: request.sessionId, requestId: request.id, answer });
  });
  cleanups.push(stop);
  return world;
}

/** The text of the tool result for `callId` in a request's transcript, up to the next line that starts another part. */
function toolResult(transcript: string, callId: string): string {
  const start = transcript.indexOf(`[tool result ${callId}]`);
  expect(start, `the result of ${callId}`).toBeGreaterThanOrEqual(0);
  const rest = transcript.slice(start);
  const next = rest.slice(1).search(/\n(assistant|user|tool|system): /);
  return next < 0 ? rest : rest.slice(0, next + 1);
}

describe('the agent with the sandbox on', () => {
  it('a command that needs an unapproved host asks with the host; rejected, the model reads why; allowed for the session, the retry and later calls pass', async () => {
    const world = await agentWorld();
    const { port } = await greeter();
    const command = `curl -sS -m 20 http://127.0.0.1:${port}/`;
    // The command itself is allowed by the settings: the only questions are the sandbox's.
    await world.call('updateSettings', { commandAllowlist: [command] });
    const networkAnswers: PermissionAnswer[] = ['reject', 'allow_host'];
    world.answer = (request) => (request.network ? (networkAnswers.shift() ?? null) : 'reject');
    world.model.enqueue(
      { toolCalls: [{ id: 'call_refused', name: 'run_command', args: { command } }] },
      { toolCalls: [{ id: 'call_retry', name: 'run_command', args: { command } }] },
      { toolCalls: [{ id: 'call_again', name: 'run_command', args: { command } }] },
      { text: 'The server answered.' },
    );
    await world.say('Fetch the local server');

    // Asked twice with the host and port (reject, then allow for the session); the third call was not asked about.
    // (On failure, the message shows what the first call printed: a refused proxy, a failed start.)
    expect(world.asked, world.model.requests[1]?.transcript.slice(-500)).toHaveLength(2);
    for (const request of world.asked) {
      expect(request.network).toEqual({ host: '127.0.0.1', port });
      expect(request.sandbox).toBe('inside');
      expect(request.command).toBe(`connect to 127.0.0.1:${port}`);
    }

    // The refused call: the model reads, outside the output's fence, what the sandbox refused.
    const refused = toolResult(world.model.requests[1]!.transcript, 'call_refused');
    expect(refused).toContain(`The sandbox refused this task: connect to "127.0.0.1:${port}"`);
    expect(refused.indexOf('The sandbox refused this task')).toBeLessThan(refused.indexOf('<untrusted-output'));
    expect(refused).not.toContain('HELLO');

    // The retry after "Allow this host for the session" reaches the server; so does the next call, unasked.
    const retry = toolResult(world.model.requests[2]!.transcript, 'call_retry');
    expect(retry).toContain('HELLO');
    expect(retry).not.toContain('The sandbox refused');
    const again = toolResult(world.model.requests[3]!.transcript, 'call_again');
    expect(again).toContain('HELLO');

    const rows = world.commandRows();
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.sandboxed)).toBe(true);
    expect(rows[0]!.sandboxRefusals).toEqual([expect.objectContaining({ kind: 'host', target: `127.0.0.1:${port}` })]);
    expect(rows[1]!.sandboxRefusals).toEqual([]);
    const view = await world.call<{ hosts: string[] }>('getSandbox', { sessionId: world.sessionId });
    expect(view.hosts).toEqual([`127.0.0.1:${port}`]);
    expect(world.services.sessions.messages(world.sessionId).at(-1)).toMatchObject({
      role: 'assistant',
      text: 'The server answered.',
    });
  }, 120_000);

  it('with "Run sandboxed commands without asking", a command the gate asks about runs unasked, and still sandboxed', async () => {
    const world = await agentWorld();
    const escaped = join(world.outside, 'escaped');
    const command = `touch made-by-model && ls; touch '${escaped}'; echo "outside=$?"`;
    world.answer = () => 'reject';
    world.model.enqueue(
      { toolCalls: [{ id: 'call_asked', name: 'run_command', args: { command } }] },
      { text: 'Rejected.' },
    );
    await world.say('Make a file');
    // Not vacuous: with the setting off, the gate asks about this command (and the person says no).
    expect(world.asked).toHaveLength(1);
    expect(world.asked[0]).toMatchObject({ command, sandbox: 'inside', network: null });
    expect(existsSync(join(world.work, 'made-by-model'))).toBe(false);

    await world.call('updateSettings', { sandbox: { runWithoutAsking: true } });
    world.model.enqueue(
      { toolCalls: [{ id: 'call_unasked', name: 'run_command', args: { command } }] },
      { text: 'Made it.' },
    );
    await world.say('Make a file');
    expect(world.asked).toHaveLength(1);
    const rows = world.commandRows();
    expect(rows.at(-1)!.sandboxed).toBe(true);
    expect(existsSync(join(world.work, 'made-by-model'))).toBe(true);
    // Sandboxed: the write outside the working folder was refused.
    expect(existsSync(escaped)).toBe(false);
    const result = toolResult(world.model.requests.at(-1)!.transcript, 'call_unasked');
    expect(result).toContain('made-by-model');
    expect(result).toMatch(/outside=[1-9]/);
  }, 120_000);

  it('sandbox: false asks to run outside; "always" is refused for it, and "allow" runs it unsandboxed once', async () => {
    const world = await agentWorld();
    const target = join(world.outside, 'written-outside');
    const command = `echo outside > '${target}' && echo wrote`;
    world.model.enqueue(
      { toolCalls: [{ id: 'call_outside', name: 'run_command', args: { command, sandbox: false } }] },
      { text: 'Written.' },
    );
    const turn = world.say('Write the file outside');
    await until(() => world.asked.length === 1, 'the question about running outside', TURN_MS);
    const request = world.asked[0]!;
    expect(request).toMatchObject({ command, sandbox: 'outside', network: null, programGrant: null });
    expect(request.reason).toMatch(/outside the sandbox/);

    const always = await world.services.handle('answerPermission', {
      sessionId: world.sessionId,
      requestId: request.id,
      answer: 'allow_always',
    });
    expect(always.ok).toBe(false);
    expect(always.ok ? null : always.error).toMatchObject({ code: 'invalid_input', path: 'answer' });
    // Still waiting on the person: the refused answer changed nothing.
    expect(existsSync(target)).toBe(false);
    await world.call('answerPermission', { sessionId: world.sessionId, requestId: request.id, answer: 'allow' });
    await turn;

    const row = world.commandRows().at(-1)!;
    expect(row.sandboxed).toBe(false);
    expect(row.status).toBe('succeeded');
    expect(readFileSync(target, 'utf8')).toBe('outside\n');
    expect(toolResult(world.model.requests.at(-1)!.transcript, 'call_outside')).toContain('wrote');
    // Allowed once: no grant was kept for the session.
    const { grants } = await world.call<{ grants: unknown[] }>('listPermissions', { sessionId: world.sessionId });
    expect(grants).toEqual([]);
  }, 120_000);
});
