import { FINISHED_PAGE_DEFAULT } from '../../shared/domain/page-sizes.js';
import type { Services } from '../core/services.js';

/**
 * Reads the newest session's tasks into memory and sorts its Finished list, so that its first
 * open does not wait for it. The host runs this once, just after it prints its address: a person
 * opens that address a moment later, most often on the session they used last, and the first
 * open of a session with 10,000 tasks otherwise spends about 450 ms in the host reading them (the
 * store's rows and checking each, while the engine's code is still cold). A session that cannot be
 * read is left for its open to report. Returns the session it read, if any.
 */
export function warmNewestSession(services: Pick<Services, 'sessions' | 'pool'>): string | undefined {
  try {
    const newest = services.sessions.list()[0];
    if (!newest) return undefined;
    services.pool.openTasks(newest.id, 'all', FINISHED_PAGE_DEFAULT);
    return newest.id;
  } catch (error) {
    console.error(`drover: could not read the newest session ahead of its first open: ${(error as Error).message}`);
    return undefined;
  }
}
