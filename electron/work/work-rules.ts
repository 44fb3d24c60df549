import type { UnblockedItem, WorkItemId } from '../../shared/schemas/work.js';
import { conflict, invalidField } from './work-errors.js';
import { cycleThrough } from './work-graph.js';
import type { StoredWorkStatus } from './work-rows.js';
import type { WorkStore } from './work-store.js';

/**
 * The workflow rules the spec states ("The lifecycle") that the ledger enforces or advises on,
 * each read inside the caller's transaction: refusals throw, advice comes back as warnings.
 */

/** Refuses a start or completion while a blocker is unfinished; warns about the unusual moves it allows. */
export function checkMove(
  store: WorkStore,
  listId: string,
  id: WorkItemId,
  from: StoredWorkStatus,
  to: StoredWorkStatus,
): string[] {
  if (to !== 'pending') {
    const open = store.blockers(listId, id).filter((blocker) => blocker.status !== 'completed');
    if (open.length > 0)
      throw conflict(
        'status',
        `Work item ${id} cannot be ${to === 'completed' ? 'completed' : 'started'} yet: it waits for ` +
          `${open.map((blocker) => `${blocker.id} (${blocker.status})`).join(', ')}. Complete those first, ` +
          'or take them out with remove_blocked_by',
      );
  }
  const warnings: string[] = [];
  if (from === 'pending' && to === 'completed')
    warnings.push(`Item ${id} went from pending straight to completed: mark an item in_progress when you start it.`);
  if (from === 'completed') {
    const underway = store.blocks(listId, id).filter((other) => store.item(listId, other)?.status !== 'pending');
    if (underway.length > 0)
      warnings.push(
        `Item ${id} is open again, but ${plural(underway)} that wait${underway.length === 1 ? 's' : ''} for it ` +
          `${underway.length === 1 ? 'is' : 'are'} already in progress or completed.`,
      );
  }
  return warnings;
}

/** A warning when `blocked` is already under way but now waits for an unfinished `blocker`. */
export function lateBlocker(store: WorkStore, listId: string, blocker: WorkItemId, blocked: WorkItemId): string[] {
  const waiting = store.item(listId, blocked)?.status;
  const first = store.item(listId, blocker)?.status;
  if (waiting === 'pending' || first === 'completed') return [];
  return [
    `Item ${blocked} is already ${waiting === 'completed' ? 'completed' : 'in progress'} but now waits for item ${blocker}, which is not completed.`,
  ];
}

/** The one-item-in-progress rule, as advice: several in progress for one owner (or unowned). */
export function crowdedOwner(store: WorkStore, listId: string, owner: string | null): string | null {
  const ids = store.inProgress(listId, owner);
  if (ids.length < 2) return null;
  return owner === null
    ? `${ids.length} unowned items are in progress (${ids.join(', ')}): keep one item in progress at a time, or give each an owner.`
    : `"${owner}" now has ${ids.length} items in progress (${ids.join(', ')}): keep one in progress at a time and finish it before starting the next.`;
}

/** Adds the edge blocker → blocked unless it would close a cycle, which is refused naming the cycle. */
export function link(store: WorkStore, listId: string, blocker: WorkItemId, blocked: WorkItemId, field: string): void {
  if (store.hasEdge(listId, blocker, blocked)) return;
  const cycle = cycleThrough(blocker, blocked, (id) => store.blocks(listId, id));
  if (cycle)
    throw invalidField(
      field,
      blocker === blocked
        ? `item ${blocker} cannot wait for itself (would make a cycle: ${cycle})`
        : `would make a cycle: ${cycle} (each must be completed before the next)`,
    );
  store.addEdge(listId, blocker, blocked);
}

export function isBlocked(store: WorkStore, listId: string, id: WorkItemId): boolean {
  return store.blockers(listId, id).some((blocker) => blocker.status !== 'completed');
}

/** Of `candidates` (each blocked before the change), those now free to start. */
export function nowUnblocked(store: WorkStore, listId: string, candidates: readonly WorkItemId[]): UnblockedItem[] {
  const out: UnblockedItem[] = [];
  for (const id of candidates) {
    const raw = store.item(listId, id);
    if (!raw || raw.status === 'completed' || isBlocked(store, listId, id)) continue;
    out.push({ id, subject: String(raw.subject) });
  }
  return out;
}

function plural(ids: readonly WorkItemId[]): string {
  return ids.length === 1 ? `item ${ids[0]}` : `items ${ids.join(', ')}`;
}
