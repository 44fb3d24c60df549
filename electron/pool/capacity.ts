import type { PoolPolicy } from './policy.js';

/** Background tasks running now: in one session, and across all of them. */
export interface RunningCounts {
  session: number;
  total: number;
}

/**
 * Why one more background task of a session cannot run now, or null when it can. The cap is
 * per session (one session's five dev servers never queue another session's work), with a
 * ceiling across sessions on top so many sessions cannot exhaust the machine.
 */
export function capacityProblem(counts: RunningCounts, policy: Pick<PoolPolicy, 'maxConcurrent' | 'maxConcurrentTotal'>): string | null {
  if (counts.session >= policy.maxConcurrent) {
    return `this session is at its limit (${counts.session} of ${policy.maxConcurrent} background tasks running)`;
  }
  if (counts.total >= policy.maxConcurrentTotal) {
    return `Drover is at its limit across sessions (${counts.total} of ${policy.maxConcurrentTotal} background tasks running)`;
  }
  return null;
}
