import { afterEach, describe, expect, it } from 'vitest';
import { DroverError } from '../../shared/ipc/errors.js';
import { WORK_METADATA_MAX_BYTES, type TaskCreateArgs, type TaskUpdateArgs } from '../../shared/schemas/work.js';
import { WorkLedger } from '../../electron/work/work-ledger.js';
import { tempDir } from '../helpers.js';

const LIST = 's_abc';
const open: WorkLedger[] = [];

function ledger(dir = tempDir(), report: (message: string) => void = () => {}): WorkLedger {
  const made = WorkLedger.open(dir, { report });
  open.push(made);
  return made;
}

afterEach(() => {
  for (const made of open.splice(0)) made.close();
});

function create(work: WorkLedger, subject: string, more: Partial<TaskCreateArgs> = {}, list = LIST) {
  return work.create(list, { subject, ...more });
}

function update(work: WorkLedger, input: TaskUpdateArgs, list = LIST) {
  return work.update(list, input);
}

/** The DroverError a call throws, for its code, message and path. */
function failure(call: () => unknown): DroverError {
  try {
    call();
  } catch (error) {
    if (error instanceof DroverError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('work ledger: ids', () => {
  it('gives ids 1, 2, 3… per list, each list on its own', () => {
    const work = ledger();
    expect(create(work, 'a').item.id).toBe(1);
    expect(create(work, 'b').item.id).toBe(2);
    expect(create(work, 'other', {}, 'shared-board').item.id).toBe(1);
    expect(create(work, 'c').item.id).toBe(3);
  });

  it('keeps ids across a restart and never gives a deleted item\u2019s id again', () => {
    const dir = tempDir();
    const first = ledger(dir);
    create(first, 'a');
    create(first, 'b');
    update(first, { task_id: 2, status: 'deleted' });
    first.close();

    const second = ledger(dir);
    expect(second.list(LIST).items.map((item) => item.id)).toEqual([1]);
    expect(create(second, 'c').item.id).toBe(3);
    update(second, { task_id: 3, status: 'deleted' });
    second.close();

    const third = ledger(dir);
    expect(create(third, 'd').item.id).toBe(4);
  });

  it('spends no id on a create that was refused', () => {
    const work = ledger();
    create(work, 'a');
    expect(failure(() => create(work, 'b', { blocked_by: [7] })).code).toBe('invalid_input');
    expect(create(work, 'c').item.id).toBe(2);
  });
});

describe('work ledger: create, get and list', () => {
  it('stores every field and answers task_get in full', () => {
    let clock = Date.UTC(2026, 0, 2, 3, 4, 5);
    const work = WorkLedger.open(tempDir(), { now: () => clock });
    open.push(work);
    const made = create(work, 'Add the login form', {
      description: 'Done when the form posts',
      active_form: 'Adding the login form',
      owner: 'agent-a',
      metadata: { area: 'ui', points: 3, tags: ['a'], nested: { ok: true }, gone: null },
    });
    expect(made).toEqual({
      item: {
        id: 1,
        listId: LIST,
        subject: 'Add the login form',
        description: 'Done when the form posts',
        activeForm: 'Adding the login form',
        status: 'pending',
        owner: 'agent-a',
        blockedBy: [],
        blocks: [],
        metadata: { area: 'ui', points: 3, tags: ['a'], nested: { ok: true } },
        blockedReason: null,
        createdAt: '2026-01-02T03:04:05.000Z',
        updatedAt: '2026-01-02T03:04:05.000Z',
      },
      unblocked: [],
      warnings: [],
    });
    clock += 1000;
    update(work, { task_id: 1, subject: 'Add the sign-in form' });
    expect(work.get(LIST, 1)).toMatchObject({
      subject: 'Add the sign-in form',
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-02T03:04:06.000Z',
    });
  });

  it('lists id, status, subject, owner and unresolved blockers, with a tally over the whole list', () => {
    const work = ledger();
    create(work, 'one');
    create(work, 'two', { owner: 'agent-a' });
    create(work, 'three', { blocked_by: [1, 2] });
    update(work, { task_id: 1, status: 'in_progress' });
    update(work, { task_id: 1, status: 'completed' });
    update(work, { task_id: 2, status: 'in_progress' });

    const listed = work.list(LIST);
    expect(listed.items).toEqual([
      { id: 1, status: 'completed', subject: 'one', owner: null, blockedBy: [], blockedReason: null },
      { id: 2, status: 'in_progress', subject: 'two', owner: 'agent-a', blockedBy: [], blockedReason: null },
      // The completed blocker 1 is dropped from the view; task_get still shows both edges.
      { id: 3, status: 'pending', subject: 'three', owner: null, blockedBy: [2], blockedReason: null },
    ]);
    expect(listed.tally).toEqual({ pending: 1, inProgress: 1, completed: 1, total: 3 });
    expect(work.get(LIST, 3).blockedBy).toEqual([1, 2]);

    const open = work.list(LIST, { include_completed: false });
    expect(open.items.map((item) => item.id)).toEqual([2, 3]);
    expect(open.tally).toEqual(listed.tally);
  });

  it('answers an empty list for a list never written', () => {
    expect(ledger().list('never-used')).toEqual({
      listId: 'never-used',
      items: [],
      tally: { pending: 0, inProgress: 0, completed: 0, total: 0 },
      unreadable: [],
      revision: 0,
    });
  });

  it('grows the revision with every change', () => {
    const work = ledger();
    expect(work.revision(LIST)).toBe(0);
    create(work, 'a');
    const after = work.revision(LIST);
    update(work, { task_id: 1, subject: 'b' });
    expect(work.revision(LIST)).toBeGreaterThan(after);
  });

  it('says whether a missing item was deleted or never given', () => {
    const work = ledger();
    create(work, 'a');
    update(work, { task_id: 1, status: 'deleted' });
    const deleted = failure(() => work.get(LIST, 1));
    expect(deleted.code).toBe('not_found');
    expect(deleted.message).toBe(`Work item 1 in list ${LIST} was deleted`);
    const never = failure(() => work.get(LIST, 9));
    expect(never.code).toBe('not_found');
    expect(never.message).toMatch(/^No work item 9 in list s_abc/);
    expect(failure(() => update(work, { task_id: 1, subject: 'x' })).code).toBe('not_found');
  });

  it('refuses a list id that is not one', () => {
    const error = failure(() => ledger().list('../etc'));
    expect(error.code).toBe('invalid_input');
    expect(error.path).toBe('list_id');
    expect(error.message).toMatch(/^Invalid input: list_id: /);
  });
});

describe('work ledger: edges', () => {
  it('keeps both directions of an edge set at create and later', () => {
    const work = ledger();
    create(work, 'a');
    create(work, 'b');
    create(work, 'c', { blocked_by: [1], blocks: [2] });
    expect(work.get(LIST, 3)).toMatchObject({ blockedBy: [1], blocks: [2] });
    expect(work.get(LIST, 1).blocks).toEqual([3]);
    expect(work.get(LIST, 2).blockedBy).toEqual([3]);

    update(work, { task_id: 1, add_blocks: [2] });
    expect(work.get(LIST, 2).blockedBy).toEqual([1, 3]);
    update(work, { task_id: 2, remove_blocked_by: [3] });
    expect(work.get(LIST, 3).blocks).toEqual([]);
    expect(work.get(LIST, 2).blockedBy).toEqual([1]);
    // Adding an edge twice, or removing one that is not there, changes nothing.
    update(work, { task_id: 2, add_blocked_by: [1], remove_blocked_by: [3] });
    expect(work.get(LIST, 2).blockedBy).toEqual([1]);
  });

  it('refuses a self-edge as a cycle of length 1', () => {
    const work = ledger();
    create(work, 'a');
    const error = failure(() => update(work, { task_id: 1, add_blocked_by: [1] }));
    expect(error.code).toBe('invalid_input');
    expect(error.path).toBe('add_blocked_by');
    expect(error.message).toBe(
      'Invalid input: add_blocked_by: item 1 cannot wait for itself (would make a cycle: 1 → 1)',
    );
    expect(failure(() => update(work, { task_id: 1, add_blocks: [1] })).message).toContain('1 → 1');
  });

  it('refuses cycles of length 2 and 3, naming them, and changes nothing', () => {
    const work = ledger();
    create(work, 'a');
    create(work, 'b', { blocked_by: [1] });
    create(work, 'c', { blocked_by: [2] });
    const two = failure(() => update(work, { task_id: 1, add_blocked_by: [2] }));
    expect(two.message).toBe(
      'Invalid input: add_blocked_by: would make a cycle: 2 → 1 → 2 (each must be completed before the next)',
    );
    const three = failure(() => update(work, { task_id: 3, add_blocks: [1], subject: 'changed?' }));
    expect(three.path).toBe('add_blocks');
    expect(three.message).toContain('would make a cycle: 3 → 1 → 2 → 3');
    expect(work.get(LIST, 3)).toMatchObject({ subject: 'c', blocks: [] });
    // At create, the same rule: the new item 4 may not both wait for 3 and block 1 (1 → 2 → 3 → 4 → 1).
    const atCreate = failure(() => create(work, 'd', { blocked_by: [3], blocks: [1] }));
    expect(atCreate.path).toBe('blocks');
    expect(atCreate.message).toContain('would make a cycle: 4 → 1 → 2 → 3 → 4');
    expect(create(work, 'd').item.id).toBe(4);
  });

  it('refuses unknown and deleted ids in edge fields, naming the field and the list', () => {
    const work = ledger();
    create(work, 'a');
    create(work, 'b');
    update(work, { task_id: 2, status: 'deleted' });
    const unknown = failure(() => create(work, 'c', { blocked_by: [9] }));
    expect(unknown.message).toBe('Invalid input: blocked_by: item 9 does not exist in list s_abc');
    expect(unknown.path).toBe('blocked_by');
    expect(failure(() => update(work, { task_id: 1, add_blocks: [2] })).message).toBe(
      'Invalid input: add_blocks: item 2 in list s_abc was deleted',
    );
    expect(failure(() => update(work, { task_id: 1, remove_blocks: [9] })).path).toBe('remove_blocks');
    // Removing an edge to a deleted item is a no-op: the edge went with it.
    expect(update(work, { task_id: 1, remove_blocks: [2] }).item.blocks).toEqual([]);
    const both = failure(() => update(work, { task_id: 1, add_blocked_by: [3], remove_blocked_by: [3] }));
    expect(both.path).toBe('remove_blocked_by');
  });

  it('deletion removes the item from every dependency list and reports what it unblocked', () => {
    const work = ledger();
    create(work, 'a');
    create(work, 'b', { blocked_by: [1] });
    create(work, 'c', { blocked_by: [1], blocks: [2] });
    const deleted = update(work, { task_id: 3, status: 'deleted' });
    expect(deleted.item).toMatchObject({ id: 3, status: 'deleted', blockedBy: [], blocks: [] });
    expect(deleted.unblocked).toEqual([]); // 2 still waits for 1
    expect(work.get(LIST, 1).blocks).toEqual([2]);
    expect(work.get(LIST, 2).blockedBy).toEqual([1]);
    expect(work.list(LIST).items.map((item) => item.id)).toEqual([1, 2]);

    expect(update(work, { task_id: 1, status: 'deleted' }).unblocked).toEqual([{ id: 2, subject: 'b' }]);
    expect(work.get(LIST, 2).blockedBy).toEqual([]);
  });

  it('refuses other changes in the call that deletes', () => {
    const work = ledger();
    create(work, 'a');
    const error = failure(() => update(work, { task_id: 1, status: 'deleted', subject: 'x' }));
    expect(error.code).toBe('invalid_input');
    expect(error.path).toBe('subject');
  });
});

describe('work ledger: lifecycle', () => {
  it('reports the items a completion just unblocked, and only those', () => {
    const work = ledger();
    create(work, 'build');
    create(work, 'lint');
    create(work, 'test', { blocked_by: [1] });
    create(work, 'ship', { blocked_by: [1, 2] });
    create(work, 'done already', { blocked_by: [1] });
    update(work, { task_id: 5, remove_blocked_by: [1] });
    update(work, { task_id: 5, status: 'completed' });
    update(work, { task_id: 5, add_blocked_by: [1] });

    update(work, { task_id: 1, status: 'in_progress' });
    const done = update(work, { task_id: 1, status: 'completed' });
    // 3 is free; 4 still waits for 2; 5 was completed already.
    expect(done.unblocked).toEqual([{ id: 3, subject: 'test' }]);
    update(work, { task_id: 2, status: 'in_progress' });
    expect(update(work, { task_id: 2, status: 'completed' }).unblocked).toEqual([{ id: 4, subject: 'ship' }]);
  });

  it('reports an item freed by taking out its last unfinished blocker', () => {
    const work = ledger();
    create(work, 'a');
    create(work, 'b', { blocked_by: [1] });
    expect(update(work, { task_id: 2, remove_blocked_by: [1] }).unblocked).toEqual([{ id: 2, subject: 'b' }]);
  });

  it('refuses to start or complete an item that still waits, naming its blockers', () => {
    const work = ledger();
    create(work, 'a');
    create(work, 'b', { blocked_by: [1] });
    const start = failure(() => update(work, { task_id: 2, status: 'in_progress' }));
    expect(start.code).toBe('conflict');
    expect(start.path).toBe('status');
    expect(start.message).toContain('it waits for 1 (pending)');
    expect(failure(() => update(work, { task_id: 2, status: 'completed' })).code).toBe('conflict');
    // Taking the edge out in the same call lets it start.
    expect(update(work, { task_id: 2, status: 'in_progress', remove_blocked_by: [1] }).item.status).toBe('in_progress');
  });

  it('allows reopening a completed item, warning when its dependents are under way', () => {
    const work = ledger();
    create(work, 'a');
    create(work, 'b', { blocked_by: [1] });
    update(work, { task_id: 1, status: 'in_progress' });
    update(work, { task_id: 1, status: 'completed' });
    update(work, { task_id: 2, status: 'in_progress' });
    const reopened = update(work, { task_id: 1, status: 'in_progress' });
    expect(reopened.item.status).toBe('in_progress');
    expect(reopened.warnings).toContain(
      'Item 1 is open again, but item 2 that waits for it is already in progress or completed.',
    );
    expect(work.list(LIST).items[1]!.blockedBy).toEqual([1]);
  });

  it('warns when an item jumps from pending to completed, or a late blocker lands on work under way', () => {
    const work = ledger();
    create(work, 'a');
    expect(update(work, { task_id: 1, status: 'completed' }).warnings).toEqual([
      'Item 1 went from pending straight to completed: mark an item in_progress when you start it.',
    ]);
    create(work, 'b');
    update(work, { task_id: 2, status: 'in_progress' });
    create(work, 'c');
    expect(update(work, { task_id: 2, add_blocked_by: [3] }).warnings).toEqual([
      'Item 2 is already in progress but now waits for item 3, which is not completed.',
    ]);
    // A completed blocker is no late blocker.
    expect(update(work, { task_id: 2, add_blocked_by: [1] }).warnings).toEqual([]);
  });

  it('warns (and still answers) when one owner holds two items in progress', () => {
    const work = ledger();
    create(work, 'a', { owner: 'agent-a' });
    create(work, 'b', { owner: 'agent-a' });
    create(work, 'c', { owner: 'agent-b' });
    expect(update(work, { task_id: 1, status: 'in_progress' }).warnings).toEqual([]);
    expect(update(work, { task_id: 3, status: 'in_progress' }).warnings).toEqual([]);
    const second = update(work, { task_id: 2, status: 'in_progress' });
    expect(second.item.status).toBe('in_progress');
    expect(second.warnings).toEqual([
      '"agent-a" now has 2 items in progress (1, 2): keep one in progress at a time and finish it before starting the next.',
    ]);
    create(work, 'd');
    create(work, 'e');
    update(work, { task_id: 4, status: 'in_progress' });
    expect(update(work, { task_id: 5, status: 'in_progress' }).warnings[0]).toMatch(
      /^2 unowned items are in progress \(4, 5\)/,
    );
  });

  it('clears the blocked reason Drover set once the item\u2019s status moves on', () => {
    const work = ledger();
    create(work, 'a');
    update(work, { task_id: 1, status: 'in_progress' });
    expect(work.setBlockedReason(LIST, 1, 'bg_3 failed: exit code 2')).toBe(true);
    expect(work.get(LIST, 1).blockedReason).toBe('bg_3 failed: exit code 2');
    expect(work.list(LIST).items[0]!.blockedReason).toBe('bg_3 failed: exit code 2');
    update(work, { task_id: 1, description: 'still the same status' });
    expect(work.get(LIST, 1).blockedReason).toBe('bg_3 failed: exit code 2');
    update(work, { task_id: 1, status: 'pending' });
    expect(work.get(LIST, 1).blockedReason).toBeNull();
    work.setBlockedReason(LIST, 1, 'again');
    work.setBlockedReason(LIST, 1, null);
    expect(work.get(LIST, 1).blockedReason).toBeNull();
    expect(work.setBlockedReason(LIST, 99, 'gone')).toBe(false);
    work.setBlockedReason(LIST, 1, 'x'.repeat(5000));
    expect(work.get(LIST, 1).blockedReason!.length).toBe(2000);
  });

  it('refuses an update that names nothing to change', () => {
    const work = ledger();
    create(work, 'a');
    const error = failure(() => update(work, { task_id: 1 }));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toBe('Invalid input: name at least one field to change besides task_id');
  });
});

describe('work ledger: owners and metadata', () => {
  it('claims, refuses a claim on an item someone else holds, and releases with null', () => {
    const work = ledger();
    create(work, 'a');
    expect(update(work, { task_id: 1, owner: 'agent-a' }).item.owner).toBe('agent-a');
    expect(update(work, { task_id: 1, owner: 'agent-a' }).item.owner).toBe('agent-a');
    const taken = failure(() => update(work, { task_id: 1, owner: 'agent-b' }));
    expect(taken.code).toBe('conflict');
    expect(taken.path).toBe('owner');
    expect(taken.message).toBe(
      'Work item 1 is owned by "agent-a"; it must be released (owner: null) before "agent-b" can claim it',
    );
    expect(update(work, { task_id: 1, owner: null }).item.owner).toBeNull();
    expect(update(work, { task_id: 1, owner: 'agent-b' }).item.owner).toBe('agent-b');
  });

  it('merges metadata: new keys added, named keys replaced, null deletes, the rest kept', () => {
    const work = ledger();
    create(work, 'a', { metadata: { keep: 1, change: 'old', drop: true } });
    const merged = update(work, { task_id: 1, metadata: { change: { now: 'new' }, drop: null, add: [1, 2] } });
    expect(merged.item.metadata).toEqual({ keep: 1, change: { now: 'new' }, add: [1, 2] });
    expect(update(work, { task_id: 1, metadata: { missing: null } }).item.metadata).toEqual(merged.item.metadata);
    expect(update(work, { task_id: 1, subject: 'metadata untouched' }).item.metadata).toEqual(merged.item.metadata);
  });

  it('bounds the merged metadata, naming the field', () => {
    const work = ledger();
    create(work, 'a', { metadata: { big: 'x'.repeat(WORK_METADATA_MAX_BYTES - 100) } });
    const error = failure(() => update(work, { task_id: 1, metadata: { more: 'y'.repeat(200) } }));
    expect(error.code).toBe('invalid_input');
    expect(error.path).toBe('metadata');
    expect(error.message).toMatch(/^Invalid input: metadata: would take \d+ bytes once merged, more than the 16384/);
    // Deleting the big key makes room again.
    expect(update(work, { task_id: 1, metadata: { big: null, more: 'y' } }).item.metadata).toEqual({ more: 'y' });
  });
});
