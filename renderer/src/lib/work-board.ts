import type { WorkListEntry, WorkTally } from '@shared/schemas/work.js';

/**
 * The Work panel's board (issue #15): a list's items in dependency order, each blocked item
 * shown under the blocker that freed it last. Pure, so the order is tested alone.
 */

export interface BoardRow {
  entry: WorkListEntry;
  /** 0 for an item nothing (unresolved) blocks; else one more than the row it hangs under. */
  depth: number;
  /** The blocker this row is shown under: of its blockers, the one that comes last in the order. */
  parentId: number | null;
  /**
   * True for an item caught in a cycle or waiting on itself: the ledger refuses cycles, so this
   * only guards against a damaged list. Such rows come last, by id, at depth 0.
   */
  tangled: boolean;
}

/**
 * A topological order (every blocker before what it blocks), depth first: after an item come the
 * items it was the last blocker of, lowest id first, each followed by its own; items nothing
 * blocks start the order by id. This is Kahn's algorithm with a stack, so the result is both a
 * valid order and a tree, where a blocked item sits indented under the blocker that freed it and
 * every other blocker of it is already above. Blockers that are not on the board (completed ones
 * are never unresolved, so this means an item left out of the listing) do not hold an item back.
 */
export function boardOrder(entries: readonly WorkListEntry[]): BoardRow[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  /** Blockers on the board, per item, not yet placed. */
  const waiting = new Map<number, number>();
  /** Items each blocker holds back. */
  const holds = new Map<number, number[]>();
  for (const entry of entries) {
    const blockers = [...new Set(entry.blockedBy)].filter((id) => byId.has(id));
    waiting.set(entry.id, blockers.length);
    for (const blocker of blockers) holds.set(blocker, [...(holds.get(blocker) ?? []), entry.id]);
  }
  const rows: BoardRow[] = [];
  const depthOf = new Map<number, number>();
  const byIdDescending = (a: number, b: number) => b - a;
  // The stack pops its last element: ids go in highest first so the lowest comes out first.
  const stack: { id: number; parent: number | null }[] = entries
    .filter((entry) => waiting.get(entry.id) === 0)
    .map((entry) => entry.id)
    .sort(byIdDescending)
    .map((id) => ({ id, parent: null }));
  while (stack.length > 0) {
    const { id, parent } = stack.pop()!;
    const depth = parent === null ? 0 : depthOf.get(parent)! + 1;
    depthOf.set(id, depth);
    rows.push({ entry: byId.get(id)!, depth, parentId: parent, tangled: false });
    const freed: number[] = [];
    for (const held of holds.get(id) ?? []) {
      const left = waiting.get(held)! - 1;
      waiting.set(held, left);
      if (left === 0) freed.push(held);
    }
    for (const next of freed.sort(byIdDescending)) stack.push({ id: next, parent: id });
  }
  const placed = new Set(rows.map((row) => row.entry.id));
  const tangled = entries.filter((entry) => !placed.has(entry.id)).sort((a, b) => a.id - b.id);
  for (const entry of tangled) rows.push({ entry, depth: 0, parentId: null, tangled: true });
  return rows;
}

/** The deepest indent the board draws; deeper items line up at this step (the text still says what blocks them). */
export const BOARD_MAX_DEPTH = 4;

/** "blocked by #1, #3" for an item's unresolved blockers (lowest first); null when nothing blocks it. */
export function blockedByLabel(blockedBy: readonly number[]): string | null {
  if (blockedBy.length === 0) return null;
  const ids = [...new Set(blockedBy)].sort((a, b) => a - b);
  return `blocked by ${ids.map((id) => `#${id}`).join(', ')}`;
}

/** The board's heading line: "2 of 5 completed", with what is in progress when anything is. */
export function tallyLabel(tally: WorkTally): string {
  const done = `${tally.completed} of ${tally.total} completed`;
  return tally.inProgress > 0 ? `${done} · ${tally.inProgress} in progress` : done;
}

const STATUS_WORDS: Record<WorkListEntry['status'], string> = {
  pending: 'pending',
  in_progress: 'in progress',
  completed: 'completed',
};

export function workStatusLabel(status: WorkListEntry['status']): string {
  return STATUS_WORDS[status];
}
