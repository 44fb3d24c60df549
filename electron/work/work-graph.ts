import type { WorkItemId } from '../../shared/schemas/work.js';

/**
 * The dependency graph's one search, kept apart from the store so it is plain to read: edges run
 * from a blocker to the item it blocks ("3 → 5": 3 must be completed before 5).
 */

/** The shortest chain of edges from `from` to `to`, both ends included; null when there is none. */
export function findPath(
  from: WorkItemId,
  to: WorkItemId,
  successors: (id: WorkItemId) => readonly WorkItemId[],
): WorkItemId[] | null {
  if (from === to) return [from];
  const cameFrom = new Map<WorkItemId, WorkItemId>([[from, from]]);
  let frontier = [from];
  while (frontier.length > 0) {
    const next: WorkItemId[] = [];
    for (const id of frontier) {
      for (const successor of successors(id)) {
        if (cameFrom.has(successor)) continue;
        cameFrom.set(successor, id);
        if (successor === to) return pathTo(to, cameFrom);
        next.push(successor);
      }
    }
    frontier = next;
  }
  return null;
}

function pathTo(to: WorkItemId, cameFrom: ReadonlyMap<WorkItemId, WorkItemId>): WorkItemId[] {
  const path = [to];
  for (let at = to; cameFrom.get(at) !== at;) {
    at = cameFrom.get(at)!;
    path.push(at);
  }
  return path.reverse();
}

/**
 * The cycle a new edge `blocker → blocked` would close, written as the chain the person reads
 * ("3 → 5 → 3"), or null when the edge is safe. A self-edge is the cycle of length one ("3 → 3").
 */
export function cycleThrough(
  blocker: WorkItemId,
  blocked: WorkItemId,
  blocks: (id: WorkItemId) => readonly WorkItemId[],
): string | null {
  const back = findPath(blocked, blocker, blocks);
  if (!back) return null;
  // back runs blocked → … → blocker; the new edge closes it from blocker.
  return [blocker, ...back].join(' → ');
}
