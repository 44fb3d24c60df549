import { afterEach, describe, expect, it, vi } from 'vitest';
import { FINISHED_PAGE_DEFAULT } from '../../shared/domain/page-sizes.js';
import { createServices, type Services } from '../../electron/core/services.js';
import { warmNewestSession } from '../../electron/host/warm-up.js';
import { tempDir } from '../helpers.js';

const started: Services[] = [];
afterEach(async () => {
  for (const services of started.splice(0)) await services.shutdown();
  vi.restoreAllMocks();
});

describe('reading the newest session ahead of its first open', () => {
  it('opens the tasks of the session used last, and nothing when there is none', async () => {
    const dataDir = tempDir();
    const services = createServices({ dataDir, version: '1.2.3', host: 'headless', workingDir: dataDir });
    started.push(services);
    const open = vi.spyOn(services.pool, 'openTasks');
    expect(warmNewestSession(services)).toBeUndefined();
    expect(open).not.toHaveBeenCalled();

    const older = services.sessions.create('older');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = services.sessions.create('newer');
    expect(warmNewestSession(services)).toBe(newer.id);
    expect(open).toHaveBeenLastCalledWith(newer.id, 'all', FINISHED_PAGE_DEFAULT);
    services.sessions.postUserMessage(older.id, 'back to this one');
    expect(warmNewestSession(services)).toBe(older.id);
  });

  it('leaves a session it cannot read for its open to report, and never throws', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const services = {
      sessions: { list: () => [{ id: 'damaged' }] },
      pool: {
        openTasks: () => {
          throw new Error('Unreadable task row 7: status');
        },
      },
    } as unknown as Parameters<typeof warmNewestSession>[0];
    expect(warmNewestSession(services)).toBeUndefined();
    expect(error).toHaveBeenCalledWith(expect.stringContaining('Unreadable task row 7'));
  });
});
