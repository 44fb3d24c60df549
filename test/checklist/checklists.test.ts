import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Checklists, type ChecklistChange } from '../../electron/checklist/checklist.js';
import { openDatabase } from '../../electron/store/database.js';
import { ChecklistRepo } from '../../electron/store/checklist-repo.js';
import { migrations } from '../../electron/store/migrations/index.js';
import { SessionsRepo } from '../../electron/store/sessions-repo.js';
import { DroverError } from '../../shared/ipc/errors.js';
import { ChecklistSchema, type TodoItem, type TodoStatus } from '../../shared/schemas/todos.js';
import { tempDir } from '../helpers.js';

function item(content: string, status: TodoStatus = 'pending'): TodoItem {
  return { content, status, activeForm: `Doing: ${content}` };
}

class FakeClock {
  time = Date.UTC(2025, 0, 2, 3, 4, 5);
  now(): number {
    return this.time;
  }
}

interface Fixture {
  db: Database;
  checklists: Checklists;
  clock: FakeClock;
  reports: string[];
  changes: ChecklistChange[];
}

function open(file: string, sessions: string[] = []): Fixture {
  const db = openDatabase(file);
  const repo = new SessionsRepo(db);
  for (const id of sessions) repo.insert(id, id, 1);
  const clock = new FakeClock();
  const reports: string[] = [];
  const changes: ChecklistChange[] = [];
  const checklists = new Checklists(new ChecklistRepo(db), { clock, report: (message) => reports.push(message) });
  checklists.onChange((change) => changes.push(change));
  return { db, checklists, clock, reports, changes };
}

function caught(fn: () => unknown): DroverError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DroverError) return error;
    throw error;
  }
  throw new Error('expected a DroverError');
}

const contents = (list: { items: TodoItem[] }) => list.items.map((entry) => `${entry.content}:${entry.status}`);

describe('the checklist table (migration 0009)', () => {
  it('migrates a version-8 database with sessions in it, keeping them, and each starts with no checklist', () => {
    const file = join(tempDir(), 'drover.sqlite');
    const v8 = openDatabase(file, migrations.slice(0, 8));
    // Written as that version's schema had it (today's repository reads columns it did not have yet).
    v8.prepare("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('old', 'Kept', 1, 1)").run();
    v8.close();
    const { db, checklists } = open(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(new SessionsRepo(db).get('old')?.title).toBe('Kept');
    expect(checklists.get('old')).toEqual({ items: [], removedByPerson: [], completedByPerson: [], updatedAt: null });
    db.close();
  });

  it('a deleted session takes its checklist with it, and no other', () => {
    const { db, checklists } = open(':memory:', ['s1', 's2']);
    checklists.write('s1', [item('A')], 'model');
    checklists.write('s2', [item('B')], 'model');
    new SessionsRepo(db).delete('s1');
    expect(db.prepare('SELECT session_id FROM session_checklists').all()).toEqual([{ session_id: 's2' }]);
    expect(contents(checklists.get('s2'))).toEqual(['B:pending']);
    db.close();
  });
});

describe('Checklists over the database', () => {
  it('stores a write, answers what clients see, and stamps the change', () => {
    const { db, checklists, clock, changes } = open(':memory:', ['s1']);
    const result = checklists.write('s1', [item('A', 'in_progress'), item('B')], 'model');
    expect(result.notes).toEqual([]);
    expect(result.cleared).toBe(false);
    expect(ChecklistSchema.parse(result.checklist)).toEqual(result.checklist);
    expect(result.checklist.updatedAt).toBe(new Date(clock.time).toISOString());
    expect(checklists.get('s1')).toEqual(result.checklist);
    expect(changes).toEqual([{ sessionId: 's1', checklist: result.checklist, by: 'model' }]);
    db.close();
  });

  it('an identical resubmission is answered, not saved or announced', () => {
    const { db, checklists, clock, changes } = open(':memory:', ['s1']);
    const first = checklists.write('s1', [item('A', 'in_progress')], 'model');
    clock.time += 60_000;
    const again = checklists.write('s1', [item('A', 'in_progress')], 'model');
    expect(again.notes[0]).toMatch(/^Nothing changed/);
    expect(again.checklist).toEqual(first.checklist);
    expect(changes).toHaveLength(1);
    db.close();
  });

  it('keeps the person’s edits and the model’s pending note across a close and reopen', () => {
    const file = join(tempDir(), 'drover.sqlite');
    let fixture = open(file, ['s1']);
    fixture.checklists.write('s1', [item('A', 'in_progress'), item('B'), item('C'), item('D')], 'model');
    fixture.checklists.remove('s1', 'B');
    fixture.checklists.complete('s1', 'c');
    fixture.db.close();

    fixture = open(file);
    const reloaded = fixture.checklists.get('s1');
    expect(contents(reloaded)).toEqual(['A:in_progress', 'C:completed', 'D:pending']);
    expect(reloaded.removedByPerson).toEqual(['B']);
    expect(reloaded.completedByPerson).toEqual(['C']);
    const stale = fixture.checklists.write('s1', [item('A', 'in_progress'), item('B'), item('C'), item('D')], 'model');
    expect(contents(stale.checklist)).toEqual(['A:in_progress', 'C:completed', 'D:pending']);
    expect(stale.notes.join(' ')).toContain('The person removed "B"');
    expect(stale.notes.join(' ')).toContain('The person marked "C" completed');

    fixture.checklists.completeAll('s1');
    fixture.db.close();
    fixture = open(file);
    // The note about the person's "a" survived the restart, and the stale guard with it.
    const after = fixture.checklists.write('s1', [item('A', 'in_progress'), item('D')], 'model');
    expect(after.checklist.items).toEqual([]);
    expect(after.notes[0]).toContain('The person completed "C", "A" and "D" themselves');
    expect(after.notes[1]).toContain('Your list repeats the plan the person already closed');
    fixture.db.close();
  });

  it('the person’s whole list (REST PUT) is recorded as the person’s and announced as theirs', () => {
    const { db, checklists, changes } = open(':memory:', ['s1']);
    checklists.write('s1', [item('A', 'completed'), item('B', 'in_progress'), item('C')], 'model');
    const put = checklists.write('s1', [item('A', 'completed'), item('B', 'completed')], 'person');
    expect(put.cleared).toBe(true);
    expect(put.checklist.items).toEqual([]);
    expect(changes.at(-1)?.by).toBe('person');
    expect(put.notes[0]).toContain('The person completed "B" themselves');
    expect(put.notes[0]).toContain('The person removed "C" from the plan');
    db.close();
  });

  it('clears when every item is completed or an empty list is sent, stored as empty', () => {
    const { db, checklists, changes } = open(':memory:', ['s1']);
    checklists.write('s1', [item('A', 'in_progress')], 'model');
    const done = checklists.write('s1', [item('A', 'completed')], 'model');
    expect(done.cleared).toBe(true);
    expect(done.checklist).toMatchObject({ items: [], removedByPerson: [], completedByPerson: [] });
    expect(done.checklist.updatedAt).not.toBeNull();
    expect(changes.at(-1)?.checklist.items).toEqual([]);
    checklists.write('s1', [item('B', 'in_progress')], 'model');
    expect(checklists.write('s1', [], 'model').cleared).toBe(true);
    expect(db.prepare('SELECT items, person_removed, person_completed FROM session_checklists').get()).toEqual({
      items: '[]',
      person_removed: '[]',
      person_completed: '[]',
    });
    db.close();
  });

  it('takeNotesForModel hands the person’s news over once; the next write does not repeat it', () => {
    const { db, checklists } = open(':memory:', ['s1']);
    checklists.write('s1', [item('A', 'in_progress'), item('B')], 'model');
    const closed = checklists.completeAll('s1');
    expect(checklists.takeNotesForModel('s1')).toEqual(closed.notes);
    expect(checklists.takeNotesForModel('s1')).toEqual([]);
    const next = checklists.write('s1', [item('New', 'in_progress')], 'model');
    expect(next.notes).toEqual([]);
    db.close();
  });

  it('refuses an unknown session, a missing item and a bad list by name, changing nothing', () => {
    const { db, checklists, changes } = open(':memory:', ['s1']);
    checklists.write('s1', [item('A')], 'model');
    expect(caught(() => checklists.get('ghost')).code).toBe('not_found');
    expect(caught(() => checklists.write('ghost', [item('A')], 'model')).code).toBe('not_found');
    const missing = caught(() => checklists.complete('s1', 'Nope'));
    expect([missing.code, missing.path]).toEqual(['not_found', 'content']);
    expect(caught(() => checklists.remove('s1', 'Nope')).code).toBe('not_found');
    const bad = caught(() => checklists.write('s1', [item('A'), item(' a ')], 'model'));
    expect([bad.code, bad.path]).toEqual(['invalid_input', 'items.1.content']);
    expect(contents(checklists.get('s1'))).toEqual(['A:pending']);
    expect(changes).toHaveLength(1);
    db.close();
  });

  it('a listener that throws is reported; the change stands and other listeners still hear it', () => {
    const { db, checklists, reports } = open(':memory:', ['s1']);
    const heard: string[] = [];
    checklists.onChange(() => {
      throw new Error('renderer gone');
    });
    const stop = checklists.onChange((change) => heard.push(change.sessionId));
    checklists.write('s1', [item('A')], 'model');
    stop();
    checklists.write('s1', [item('B')], 'model');
    expect(heard).toEqual(['s1']);
    expect(reports).toEqual([
      'A checklist listener failed: renderer gone',
      'A checklist listener failed: renderer gone',
    ]);
    expect(contents(checklists.get('s1'))).toEqual(['B:pending']);
    db.close();
  });
});

describe('a damaged stored checklist', () => {
  it('reads as an empty list with a reported problem, never a crash, and other sessions keep theirs', () => {
    const file = join(tempDir(), 'drover.sqlite');
    let fixture = open(file, ['s1', 's2']);
    fixture.checklists.write('s1', [item('A', 'in_progress')], 'model');
    fixture.checklists.write('s2', [item('B', 'in_progress')], 'model');
    fixture.db.prepare("UPDATE session_checklists SET items = '{not json' WHERE session_id = 's1'").run();
    fixture.db.close();

    fixture = open(file);
    expect(fixture.checklists.get('s1').items).toEqual([]);
    fixture.checklists.get('s1');
    expect(fixture.reports).toEqual([
      'The checklist of session s1: the items could not be read (not JSON) and count as empty until the next change.',
    ]);
    expect(contents(fixture.checklists.get('s2'))).toEqual(['B:in_progress']);
    // The row is kept as it is until an edit replaces it.
    expect(fixture.db.prepare("SELECT items FROM session_checklists WHERE session_id = 's1'").get()).toEqual({
      items: '{not json',
    });
    const fresh = fixture.checklists.write('s1', [item('C', 'in_progress')], 'model');
    expect(contents(fresh.checklist)).toEqual(['C:in_progress']);
    expect(contents(fixture.checklists.get('s2'))).toEqual(['B:in_progress']);
    fixture.db.close();
    fixture = open(file);
    expect(contents(fixture.checklists.get('s1'))).toEqual(['C:in_progress']);
    expect(fixture.reports).toEqual([]);
    fixture.db.close();
  });

  it('items that are JSON but do not fit are named with where they fail', () => {
    const { db, checklists, reports } = open(':memory:', ['s1']);
    checklists.write('s1', [item('A')], 'model');
    db.prepare(`UPDATE session_checklists SET items = '[{"content":"","status":"pending","activeForm":"x"}]'`).run();
    expect(checklists.get('s1').items).toEqual([]);
    expect(reports[0]).toMatch(/session s1: the items could not be read \(at 0\.content: .*\) and count as empty/);
    db.close();
  });

  it('damaged sticky edits read as none while the items are kept', () => {
    const { db, checklists, reports } = open(':memory:', ['s1']);
    checklists.write('s1', [item('A', 'in_progress'), item('B')], 'model');
    checklists.remove('s1', 'B');
    db.prepare(`UPDATE session_checklists SET person_removed = '[1, 2]', model_notes = 'nope'`).run();
    const read = checklists.get('s1');
    expect(contents(read)).toEqual(['A:in_progress']);
    expect(read.removedByPerson).toEqual([]);
    expect(reports).toHaveLength(2);
    expect(reports[0]).toContain("the person's removals could not be read (at 0: ");
    expect(reports[1]).toContain('the notes for the model could not be read (not JSON)');
    db.close();
  });
});
