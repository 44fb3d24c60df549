import { afterEach } from 'vitest';
import { createServices, type Services } from '../../electron/core/services.js';
import { startAnthropicServer, startOpenAiCompatibleServer, type FakeModelServer } from '../../e2e/fake-model/index.js';
import { tempDir, until } from '../helpers.js';

/**
 * Real services against a fake model server, a session made, and the person allowing every
 * command (the gate itself is tested in test/permissions). `say` posts a message and waits for
 * its turn to end.
 */
const cleanups: (() => Promise<void>)[] = [];

/** Runs after the test, with the harness's own cleanups (last registered first). */
export function onCleanup(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Every tool the model is offered with background work on, sorted. */
export const ALL_TOOLS = [
  'agent',
  'agent_output',
  'cron_create',
  'cron_delete',
  'cron_list',
  'kill_shell',
  'list_tasks',
  'loop_next',
  'loop_stop',
  'monitor_command',
  'monitor_events',
  'read_task_output',
  'reap_leftovers',
  'run_command',
  'sleep',
  'stop_task',
  'task_create',
  'task_get',
  'task_list',
  'task_update',
  'todo_write',
];

export type Kind = 'openai-compatible' | 'anthropic';

export async function setupAgent(
  kind: Kind = 'openai-compatible',
  options: {
    streaming?: boolean;
    policy?: object;
    /** The scheduler's clock, moved by the test (which then calls services.scheduler.tick()). */
    scheduler?: { clock: { now(): number } };
  } = {},
) {
  const model: FakeModelServer =
    kind === 'anthropic' ? await startAnthropicServer() : await startOpenAiCompatibleServer();
  const dataDir = tempDir();
  const services: Services = createServices({
    dataDir,
    version: 't',
    host: 'headless',
    workingDir: dataDir,
    env: {},
    warn: () => {},
    policy: { stopGraceMs: 500, ...options.policy },
    ...(options.scheduler ? { scheduler: { clock: options.scheduler.clock, ticking: false } } : {}),
  });
  cleanups.push(async () => {
    await services.shutdown();
    await model.close();
  });
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const result = await services.handle(name, input);
    if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
    return result.value as T;
  };
  await call('updateSettings', {
    provider: {
      kind,
      baseUrl: model.baseUrl,
      model: kind === 'anthropic' ? 'claude-sonnet-4-5' : 'fake-model',
      apiKey: 'sk-test-key',
      streaming: options.streaming ?? true,
    },
  });
  const session = await call<{ id: string }>('createSession', {});
  const turns: boolean[] = [];
  services.bus.subscribe((name, payload) => {
    if (name === 'turnChanged') turns.push((payload as { busy: boolean }).busy);
    // The person allows every command here; the gate itself is tested in test/permissions.
    if (name === 'permissionRequested') {
      const { request } = payload as { request: { id: string; sessionId: string } };
      void services.handle('answerPermission', {
        sessionId: request.sessionId,
        requestId: request.id,
        answer: 'allow',
      });
    }
  });
  const say = async (text: string) => {
    const before = turns.filter((busy) => !busy).length;
    await call('postMessage', { sessionId: session.id, text });
    await until(() => turns.filter((busy) => !busy).length > before, 'the turn to end', 15_000);
  };
  const messages = () => services.sessions.messages(session.id);
  const turnsEnded = () => turns.filter((busy) => !busy).length;
  return { model, services, session, call, say, messages, turnsEnded, dataDir };
}
