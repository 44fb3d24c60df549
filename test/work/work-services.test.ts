import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../electron/core/services.js';
import { WorkLedger } from '../../electron/work/work-ledger.js';
import { tempDir, until } from '../helpers.js';

const open: Services[] = [];
afterEach(async () => {
  for (const services of open.splice(0)) await services.shutdown();
});

async function start(env: NodeJS.ProcessEnv = {}, warnings: string[] = []) {
  const dataDir = tempDir();
  const services = createServices({
    dataDir,
    version: 't',
    host: 'headless',
    workingDir: dataDir,
    env,
    warn: (message) => warnings.push(message),
  });
  open.push(services);
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const result = await services.handle(name, input);
    if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
    return result.value as T;
  };
  const session = await call<{ id: string }>('createSession', {});
  return { services, call, session, dataDir };
}

describe('a session’s work list, as clients find it', () => {
  it('is the session’s own list, or the shared one DROVER_WORK_LIST_ID names; an unusable name is said once and not used', async () => {
    const own = await start();
    expect((await own.call<{ listId: string }>('listWorkItems', { sessionId: own.session.id })).listId).toBe(
      own.session.id,
    );
    const shared = await start({ DROVER_WORK_LIST_ID: 'team.board' });
    expect((await shared.call<{ listId: string }>('listWorkItems', { sessionId: shared.session.id })).listId).toBe(
      'team.board',
    );
    const warnings: string[] = [];
    const bad = await start({ DROVER_WORK_LIST_ID: 'team board' }, warnings);
    expect(warnings.filter((line) => line.includes('DROVER_WORK_LIST_ID="team board" is not used'))).toHaveLength(1);
    expect((await bad.call<{ listId: string }>('listWorkItems', { sessionId: bad.session.id })).listId).toBe(
      bad.session.id,
    );
    await expect(own.call('listWorkItems', {})).rejects.toThrow(/give exactly one of listId and sessionId/);
  });

  it('announces a change another process made to a list a client reads', async () => {
    const { services, call, session, dataDir } = await start();
    const events: { listId: string; revision: number }[] = [];
    services.bus.subscribe((name, payload) => {
      if (name === 'workItemsChanged') events.push(payload as { listId: string; revision: number });
    });
    await call('listWorkItems', { sessionId: session.id });
    // Another process: its own connection to the same work.sqlite.
    const other = WorkLedger.open(dataDir);
    try {
      other.create(session.id, { subject: 'Made elsewhere' });
    } finally {
      other.close();
    }
    await until(() => events.some((event) => event.listId === session.id && event.revision > 0), 'the change', 15_000);
    const list = await call<{ items: { subject: string }[] }>('listWorkItems', { sessionId: session.id });
    expect(list.items.map((item) => item.subject)).toEqual(['Made elsewhere']);
  });
});
