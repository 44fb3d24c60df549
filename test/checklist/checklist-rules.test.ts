import { describe, expect, it } from 'vitest';
import {
  applyModelWrite,
  applyPersonWrite,
  personComplete,
  personCompleteAll,
  personRemove,
  type ChecklistOutcome,
} from '../../electron/checklist/checklist-rules.js';
import { EMPTY_CHECKLIST, type ChecklistState } from '../../electron/checklist/checklist-state.js';
import {
  isVerificationItem,
  LARGE_PLAN_ITEMS,
  nameItems,
  NOTE_NAMES_MAX,
  VERIFICATION_PATTERN,
} from '../../electron/checklist/checklist-notes.js';
import type { TodoItem, TodoStatus } from '../../shared/schemas/todos.js';

function item(content: string, status: TodoStatus = 'pending', activeForm = `Doing: ${content}`): TodoItem {
  return { content, status, activeForm };
}

/** Applies a chain of edits from an empty checklist, returning the last outcome. */
function model(state: ChecklistState, items: TodoItem[]): ChecklistOutcome {
  return applyModelWrite(state, items);
}

const statuses = (state: ChecklistState) => state.items.map((entry) => `${entry.content}:${entry.status}`);

describe('model writes: the complete list, every time', () => {
  it('replaces the list, never appends to it', () => {
    const first = model(EMPTY_CHECKLIST, [item('Read the code', 'in_progress'), item('Fix the bug')]);
    const second = model(first.state, [item('Read the code', 'completed'), item('Write a test', 'in_progress')]);
    expect(statuses(second.state)).toEqual(['Read the code:completed', 'Write a test:in_progress']);
    expect(second.cleared).toBe(false);
  });

  it('keeps the model’s words and order, and says nothing about a tidy update', () => {
    const first = model(EMPTY_CHECKLIST, [item('A', 'in_progress'), item('B')]);
    expect(first.notes).toEqual([]);
    const second = model(first.state, [item('A', 'completed'), item('B', 'in_progress')]);
    expect(second.notes).toEqual([]);
    expect(second.state.items).toEqual([item('A', 'completed'), item('B', 'in_progress')]);
  });
});

describe('pushback (the write still applies)', () => {
  it('calls out an identical resubmission and changes nothing', () => {
    const first = model(EMPTY_CHECKLIST, [item('A', 'in_progress'), item('B')]);
    const again = model(first.state, [item('A', 'in_progress'), item('B')]);
    expect(again.notes).toHaveLength(1);
    expect(again.notes[0]).toMatch(/^Nothing changed/);
    expect(again.state).toEqual(first.state);
  });

  it('treats a change of status or active form as a change, not a resubmission', () => {
    const first = model(EMPTY_CHECKLIST, [item('A', 'in_progress')]);
    expect(model(first.state, [item('A', 'in_progress', 'Now doing A')]).notes).toEqual([]);
  });

  it('names unfinished items dropped without being completed', () => {
    const first = model(EMPTY_CHECKLIST, [item('A', 'completed'), item('B', 'in_progress'), item('C'), item('D')]);
    const next = model(first.state, [item('D', 'in_progress')]);
    expect(next.notes).toHaveLength(1);
    expect(next.notes[0]).toContain('Unfinished items "B" and "C" were dropped');
    expect(next.notes[0]).not.toContain('"A"');
    expect(statuses(next.state)).toEqual(['D:in_progress']);
  });

  it('says nothing when only completed items are dropped', () => {
    const first = model(EMPTY_CHECKLIST, [item('A', 'completed'), item('B', 'in_progress')]);
    expect(model(first.state, [item('B', 'in_progress'), item('C')]).notes).toEqual([]);
  });

  it('matches items by normalised content: case, outer and inner white space do not make a new item', () => {
    const first = model(EMPTY_CHECKLIST, [item('Run the tests', 'in_progress'), item('B')]);
    const next = model(first.state, [item('  run   THE tests ', 'in_progress'), item('B')]);
    expect(next.notes).toEqual([]);
  });

  it('names every item in progress when more than one is', () => {
    const next = model(EMPTY_CHECKLIST, [item('A', 'in_progress'), item('B', 'in_progress'), item('C')]);
    expect(next.notes).toHaveLength(1);
    expect(next.notes[0]).toContain('2 items are in_progress at once: "A" and "B"');
    expect(statuses(next.state)).toEqual(['A:in_progress', 'B:in_progress', 'C:pending']);
  });

  it(`nudges for verification when a plan of ${LARGE_PLAN_ITEMS}+ items is closed without one`, () => {
    const plan = ['Read the parser', 'Add the option', 'Wire the flag', 'Update the docs', 'Tidy the imports'];
    const open = model(
      EMPTY_CHECKLIST,
      plan.map((content) => item(content)),
    );
    const closed = model(
      open.state,
      plan.map((content) => item(content, 'completed')),
    );
    expect(closed.cleared).toBe(true);
    expect(closed.notes).toHaveLength(1);
    expect(closed.notes[0]).toContain('You closed a plan of 5 items without a verification step');
  });

  it('does not nudge when the plan has a verification item, or is small', () => {
    const withTests = ['Read the parser', 'Add the option', 'Wire the flag', 'Update the docs', 'Run the tests'];
    expect(
      model(
        EMPTY_CHECKLIST,
        withTests.map((content) => item(content, 'completed')),
      ).notes,
    ).toEqual([]);
    const small = ['Read the parser', 'Add the option', 'Wire the flag', 'Update the docs'];
    expect(
      model(
        EMPTY_CHECKLIST,
        small.map((content) => item(content, 'completed')),
      ).notes,
    ).toEqual([]);
  });

  it('does not nudge when a plan is abandoned with an empty list (that is not closing it)', () => {
    const plan = ['A1', 'A2', 'A3', 'A4', 'A5'].map((content) => item(content, 'completed'));
    plan[4] = item('A5');
    const open = model(EMPTY_CHECKLIST, plan);
    const abandoned = model(open.state, []);
    expect(abandoned.cleared).toBe(true);
    expect(abandoned.notes.join(' ')).not.toContain('verification');
    expect(abandoned.notes[0]).toContain('Unfinished item "A5" was dropped');
  });

  it('recognises verification steps by whole words, in the content or the active form', () => {
    const yes = [
      'Run the tests',
      'Verify the fix',
      'Check the output',
      'Lint',
      'Typecheck',
      'Type-check the renderer',
      'Run tsc',
      'Smoke test the CLI',
      'Validate the schema',
      'Confirm it works',
      'Reproduce the bug',
      'Wait for CI',
      'e2e',
      'QA pass',
      'npm test',
    ];
    for (const content of yes) expect(VERIFICATION_PATTERN.test(content), content).toBe(true);
    const no = [
      'Checkout the branch',
      'Update the docs',
      'Rename the contest module',
      'Refactor the runtime',
      // Generic verbs check nothing.
      'Build the app',
      'Run the migration',
      'Make the form',
    ];
    for (const content of no) expect(VERIFICATION_PATTERN.test(content), content).toBe(false);
    expect(isVerificationItem(item('Tidy up', 'completed', 'Running the test suite'))).toBe(true);
  });

  it('names at most NOTE_NAMES_MAX items and counts the rest', () => {
    const names = Array.from({ length: NOTE_NAMES_MAX + 3 }, (_, index) => `Step ${index}`);
    expect(nameItems(names)).toMatch(/"Step 9" and 3 more$/);
    expect(nameItems(['A'])).toBe('"A"');
    expect(nameItems(['A', 'B', 'C'])).toBe('"A", "B" and "C"');
  });
});

describe('clearing', () => {
  it('clears when every item is completed, and resets the person’s sticky edits with it', () => {
    let state = model(EMPTY_CHECKLIST, [item('A', 'in_progress'), item('B'), item('C')]).state;
    state = personRemove(state, 'C')!.state;
    state = personComplete(state, 'B')!.state;
    expect(state.removedByPerson).toEqual(['C']);
    expect(state.completedByPerson).toEqual(['B']);
    const done = model(state, [item('A', 'completed'), item('B', 'completed')]);
    expect(done.cleared).toBe(true);
    expect(done.state).toEqual(EMPTY_CHECKLIST);
    // The next plan starts clean: "C" may be added again.
    const next = model(done.state, [item('C', 'in_progress')]);
    expect(statuses(next.state)).toEqual(['C:in_progress']);
    expect(next.notes).toEqual([]);
  });

  it('clears when an empty list is sent', () => {
    const open = model(EMPTY_CHECKLIST, [item('A', 'completed'), item('B', 'completed'), item('C', 'in_progress')]);
    const cleared = model(open.state, []);
    expect(cleared.cleared).toBe(true);
    expect(cleared.state).toEqual(EMPTY_CHECKLIST);
  });

  it('an empty list sent to an empty checklist is "nothing changed"', () => {
    const again = model(EMPTY_CHECKLIST, []);
    expect(again.notes).toEqual(['Nothing changed: the checklist is already empty.']);
    expect(again.cleared).toBe(false);
  });
});

describe('the person’s edits stick', () => {
  const plan = () => model(EMPTY_CHECKLIST, [item('A', 'in_progress'), item('B'), item('C')]).state;

  it('an item the person removed stays removed; the model is told not to re-add it, by name', () => {
    const state = personRemove(plan(), 'b')!.state;
    expect(statuses(state)).toEqual(['A:in_progress', 'C:pending']);
    const resend = model(state, [item('A', 'completed'), item(' B ', 'in_progress'), item('C')]);
    expect(statuses(resend.state)).toEqual(['A:completed', 'C:pending']);
    expect(resend.notes).toHaveLength(1);
    expect(resend.notes[0]).toContain('The person removed " B " from the checklist, so it was dropped again');
    expect(resend.notes[0]).toContain('Do not add it back');
    // And again on every later resend of this plan.
    expect(statuses(model(resend.state, [item('A', 'completed'), item('B'), item('C')]).state)).toEqual([
      'A:completed',
      'C:pending',
    ]);
  });

  it('an item the person completed stays completed whatever a stale resend says', () => {
    const state = personComplete(plan(), 'B')!.state;
    const stale = model(state, [item('A', 'in_progress'), item('B', 'in_progress'), item('C')]);
    expect(statuses(stale.state)).toEqual(['A:in_progress', 'B:completed', 'C:pending']);
    expect(stale.notes).toHaveLength(1);
    expect(stale.notes[0]).toContain('The person marked "B" completed, so it stays completed');
  });

  it('items the person added are kept when the model’s resend leaves them out', () => {
    const base = plan();
    const edited = applyPersonWrite(base, [...base.items, item('Ask legal')]).state;
    const stale = model(edited, [item('A', 'completed'), item('B', 'in_progress'), item('C')]);
    expect(statuses(stale.state)).toEqual(['A:completed', 'B:in_progress', 'C:pending', 'Ask legal:pending']);
    expect(stale.notes).toHaveLength(1);
    expect(stale.notes[0]).toContain('The person added "Ask legal" to the checklist');
  });

  it('when a plan the person partly drove finishes, the model is told which items the person did', () => {
    let state = plan();
    state = personComplete(state, 'B')!.state;
    state = personRemove(state, 'C')!.state;
    const done = model(state, [item('A', 'completed'), item('B', 'completed')]);
    expect(done.cleared).toBe(true);
    const told = done.notes.join(' ');
    expect(told).toContain('The plan is finished and the checklist was cleared.');
    expect(told).toContain('The person completed "B" themselves');
    expect(told).toContain('say the person did it, not you');
    expect(told).toContain('The person removed "C" from the plan');
  });

  it('a plan the model drove alone finishes without attribution', () => {
    const done = model(plan(), [item('A', 'completed'), item('B', 'completed'), item('C', 'completed')]);
    expect(done.notes).toEqual([]);
  });
});

describe('the person’s own edits', () => {
  const plan = () =>
    model(EMPTY_CHECKLIST, [item('A', 'completed'), item('B', 'in_progress'), item('C'), item('D')]).state;

  it('complete and remove find items by normalised content and return null for a missing one', () => {
    expect(personComplete(plan(), 'nope')).toBeNull();
    expect(personRemove(plan(), 'nope')).toBeNull();
    expect(statuses(personComplete(plan(), '  c ')!.state)).toEqual([
      'A:completed',
      'B:in_progress',
      'C:completed',
      'D:pending',
    ]);
  });

  it('completing an item the model already completed changes nothing and attributes nothing', () => {
    const again = personComplete(plan(), 'A')!;
    expect(again.state).toEqual(plan());
    expect(again.state.completedByPerson).toEqual([]);
  });

  it('a whole list from the person records what is missing as removed and what it newly completes as completed', () => {
    const result = applyPersonWrite(plan(), [item('A', 'completed'), item('B', 'completed'), item('D'), item('E')]);
    expect(result.cleared).toBe(false);
    expect(result.notes).toEqual([]);
    expect(result.state.removedByPerson).toEqual(['C']);
    // "A" was the model's: a person's list that repeats it completed does not make it the person's.
    expect(result.state.completedByPerson).toEqual(['B']);
    expect(result.state.addedByPerson).toEqual(['E']);
  });

  it('the person may undo their own edits: re-adding lifts a removal, reopening lifts a completion', () => {
    let state = applyPersonWrite(plan(), [item('A', 'completed'), item('B', 'completed'), item('D')]).state;
    state = applyPersonWrite(state, [item('A', 'completed'), item('B', 'in_progress'), item('C'), item('D')]).state;
    expect(state.removedByPerson).toEqual([]);
    expect(state.completedByPerson).toEqual([]);
    const resend = model(state, [item('A', 'completed'), item('B', 'pending'), item('C'), item('D')]);
    expect(resend.notes).toEqual([]);
  });

  it('"a" marks the whole plan done, clears it, and queues an honest note for the model', () => {
    const result = personCompleteAll(plan());
    expect(result.cleared).toBe(true);
    expect(result.state.items).toEqual([]);
    expect(result.state.removedByPerson).toEqual([]);
    expect(result.state.completedByPerson).toEqual([]);
    expect(result.notes).toHaveLength(1);
    expect(result.notes[0]).toContain("The person's edit finished the plan");
    expect(result.notes[0]).toContain('The person completed "B", "C" and "D" themselves');
    expect(result.state.notesForModel).toEqual(result.notes);
  });

  it('removing the last item empties the checklist and says so', () => {
    const state = model(EMPTY_CHECKLIST, [item('A', 'in_progress')]).state;
    const result = personRemove(state, 'A')!;
    expect(result.cleared).toBe(true);
    expect(result.state.items).toEqual([]);
    expect(result.notes[0]).toContain('The person emptied the checklist.');
    expect(result.notes[0]).toContain('The person removed "A" from the plan');
  });

  it('completing the last open item finishes the plan', () => {
    const state = model(EMPTY_CHECKLIST, [item('A', 'completed'), item('B', 'in_progress')]).state;
    const result = personComplete(state, 'B')!;
    expect(result.cleared).toBe(true);
    expect(result.notes[0]).toContain('The person completed "B" themselves');
  });

  it('an empty list from the person empties a non-empty checklist, and is nothing on an empty one', () => {
    const emptied = applyPersonWrite(plan(), []);
    expect(emptied.cleared).toBe(true);
    expect(emptied.notes[0]).toContain('The person removed "A", "B", "C" and "D" from the plan');
    const nothing = applyPersonWrite(EMPTY_CHECKLIST, []);
    expect(nothing.state).toBe(EMPTY_CHECKLIST);
    expect(nothing.notes).toEqual([]);
  });
});

describe('after the person closes a plan', () => {
  const closed = () =>
    personCompleteAll(model(EMPTY_CHECKLIST, [item('A', 'completed'), item('B', 'in_progress'), item('C')]).state)
      .state;

  it('the model’s next write carries the person’s note, once', () => {
    const next = model(closed(), [item('New work', 'in_progress')]);
    expect(next.notes[0]).toContain("The person's edit finished the plan");
    expect(next.state.notesForModel).toEqual([]);
    const after = model(next.state, [item('New work', 'completed'), item('More', 'in_progress')]);
    expect(after.notes.join(' ')).not.toContain('The person');
  });

  it('a stale resend of the closed plan leaves the checklist clear', () => {
    const stale = model(closed(), [item('A', 'completed'), item('B', 'in_progress'), item('C')]);
    expect(stale.cleared).toBe(true);
    expect(stale.state).toEqual(EMPTY_CHECKLIST);
    expect(stale.notes).toHaveLength(2);
    expect(stale.notes[1]).toContain('Your list repeats the plan the person already closed');
  });

  it('a list with anything new is a new plan, and the guard lasts for one write only', () => {
    const fresh = model(closed(), [item('B', 'in_progress'), item('Something new')]);
    expect(statuses(fresh.state)).toEqual(['B:in_progress', 'Something new:pending']);
    expect(fresh.state.closedPlan).toBeNull();
    const later = model(model(closed(), [item('Other')]).state, [item('A', 'in_progress')]);
    expect(statuses(later.state)).toEqual(['A:in_progress']);
  });

  it('items the person removed before emptying the list are guarded too', () => {
    const base = model(EMPTY_CHECKLIST, [item('A', 'in_progress'), item('B')]).state;
    const emptied = applyPersonWrite(base, []).state;
    const stale = model(emptied, [item('A', 'in_progress'), item('B')]);
    expect(stale.state.items).toEqual([]);
    expect(stale.notes.at(-1)).toContain('Your list repeats the plan the person already closed');
  });
});
