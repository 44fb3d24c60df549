import { describe, expect, it } from 'vitest';
import type { WorkListEntry } from '@shared/schemas/work.js';
import { blockedByLabel, boardOrder, tallyLabel } from './work-board.js';

const item = (id: number, blockedBy: number[] = [], patch: Partial<WorkListEntry> = {}): WorkListEntry => ({
  id,
  status: 'pending',
  subject: `item ${id}`,
  owner: null,
  blockedBy,
  blockedReason: null,
  ...patch,
});

/** The board as "id@depth" in order: easy to read in a failure. */
const shape = (entries: WorkListEntry[]) => boardOrder(entries).map((row) => `${row.entry.id}@${row.depth}`);

/** Every unresolved blocker on the board comes before what it blocks. */
function expectTopological(entries: WorkListEntry[]): void {
  const order = boardOrder(entries).map((row) => row.entry.id);
  const at = new Map(order.map((id, index) => [id, index]));
  for (const entry of entries)
    for (const blocker of entry.blockedBy)
      if (at.has(blocker)) expect(at.get(blocker)!, `${blocker} before ${entry.id}`).toBeLessThan(at.get(entry.id)!);
}

describe('the work board’s order', () => {
  it('keeps a list without edges in id order, whatever order it came in', () => {
    expect(shape([item(3), item(1), item(2)])).toEqual(['1@0', '2@0', '3@0']);
  });

  it('puts a blocked item right under its blocker, indented, before the next unblocked item', () => {
    const entries = [item(1), item(2), item(3, [1])];
    expect(shape(entries)).toEqual(['1@0', '3@1', '2@0']);
    expect(boardOrder(entries)[1]!.parentId).toBe(1);
  });

  it('nests a chain, and lists a blocker’s items lowest id first', () => {
    expect(shape([item(1), item(2, [1]), item(3, [2]), item(4, [1])])).toEqual(['1@0', '2@1', '3@2', '4@1']);
  });

  it('hangs an item with two blockers under the one placed last, after both', () => {
    // 4 waits for 3 (under 2) and for 5 (under 1): the walk reaches 5 before 2, so 4 hangs under 3.
    const entries = [item(1), item(2), item(3, [2]), item(4, [3, 5]), item(5, [1])];
    expect(shape(entries)).toEqual(['1@0', '5@1', '2@0', '3@1', '4@2']);
    expect(boardOrder(entries).find((row) => row.entry.id === 4)!.parentId).toBe(3);
    expectTopological(entries);
  });

  it('is a topological order for a larger random graph (edges only to lower ids, as cycles are refused)', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const entries: WorkListEntry[] = [];
    for (let id = 1; id <= 60; id++) {
      const blockers = [...Array(id - 1).keys()].map((i) => i + 1).filter(() => random() < 0.06);
      entries.push(item(id, blockers));
    }
    const rows = boardOrder(entries.slice().reverse());
    expect(rows).toHaveLength(60);
    expect(new Set(rows.map((row) => row.entry.id)).size).toBe(60);
    expectTopological(entries);
    // A child is always one deeper than the row it hangs under, and that row is above it.
    const index = new Map(rows.map((row, at) => [row.entry.id, at]));
    for (const row of rows) {
      if (row.parentId === null) expect(row.depth).toBe(0);
      else {
        const parent = rows[index.get(row.parentId)!]!;
        expect(row.depth).toBe(parent.depth + 1);
        expect(index.get(row.parentId)!).toBeLessThan(index.get(row.entry.id)!);
      }
    }
  });

  it('lets an item whose blocker is not on the board stand at the top', () => {
    expect(shape([item(2, [1]), item(3, [2])])).toEqual(['2@0', '3@1']);
  });

  it('shows the items of a damaged list (a cycle) last, by id, marked, never dropping one', () => {
    const rows = boardOrder([item(1), item(2, [3]), item(3, [2]), item(4, [4])]);
    expect(rows.map((row) => [row.entry.id, row.depth, row.tangled])).toEqual([
      [1, 0, false],
      [2, 0, true],
      [3, 0, true],
      [4, 0, true],
    ]);
  });

  it('reads the same after a blocker completes: the blocked item moves to the top level', () => {
    expect(shape([item(1), item(2, [1])])).toEqual(['1@0', '2@1']);
    // The listing drops completed blockers from blockedBy.
    expect(shape([item(1, [], { status: 'completed' }), item(2, [])])).toEqual(['1@0', '2@0']);
  });
});

describe('the work board’s words', () => {
  it('names unresolved blockers by id, lowest first, once each', () => {
    expect(blockedByLabel([])).toBeNull();
    expect(blockedByLabel([1])).toBe('blocked by #1');
    expect(blockedByLabel([3, 1, 3])).toBe('blocked by #1, #3');
  });

  it('tallies completed of all, adding what is in progress', () => {
    expect(tallyLabel({ pending: 3, inProgress: 0, completed: 2, total: 5 })).toBe('2 of 5 completed');
    expect(tallyLabel({ pending: 2, inProgress: 1, completed: 2, total: 5 })).toBe('2 of 5 completed · 1 in progress');
    expect(tallyLabel({ pending: 0, inProgress: 0, completed: 0, total: 0 })).toBe('0 of 0 completed');
  });
});
