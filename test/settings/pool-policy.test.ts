import { afterEach, describe, expect, it } from 'vitest';
import { makePool, type Harness } from '../pool/pool-harness.js';
import { until } from '../helpers.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
});

describe('a policy changed while Drover runs', () => {
  it('starts a waiting task at once when its cap is raised, and applies new figures to later tasks', async () => {
    const h = makePool({ maxConcurrent: 1 });
    open.push(h);
    const cwd = h.dataDir;
    const first = await h.pool.start({ sessionId: h.sessionId, command: 'sleep 30', cwd });
    const second = await h.pool.start({ sessionId: h.sessionId, command: 'sleep 30', cwd });
    expect(h.pool.row(h.sessionId, second.id).status).toBe('queued');
    h.pool.applyPolicy({ maxConcurrent: 2, defaultTimeoutSeconds: 77 });
    await until(() => h.pool.row(h.sessionId, second.id).status === 'running', 'the waiting task to start');
    expect(h.pool.row(h.sessionId, first.id).timeoutSeconds).toBe(900);
    const third = await h.pool.start({ sessionId: h.sessionId, command: 'true', cwd });
    expect(third.timeoutSeconds).toBe(77);
  });
});
