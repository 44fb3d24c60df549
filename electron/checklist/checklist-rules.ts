import { todoKey, type TodoItem } from '../../shared/schemas/todos.js';
import { isVerificationItem, LARGE_PLAN_ITEMS, notes } from './checklist-notes.js';
import { EMPTY_CHECKLIST, keysOf, sameItems, withNames, withoutNames, type ChecklistState } from './checklist-state.js';

/**
 * The checklist's rules (issue #15, the spec's "todo_write: the session checklist"), as pure
 * functions from the stored state and an edit to the next state and the notes for the model.
 * No clock, no database: checklist.ts stores what these decide.
 *
 * Where the spec is silent:
 * - Items are matched by todoKey(content) (trimmed, white space collapsed, case ignored). A list
 *   never holds two items with the same key (the schema refuses it).
 * - The person's sticky edits last for the current plan: they are reset when the list clears.
 * - Items the person added stick as well: a resend from the model that leaves one out while it is
 *   unfinished keeps it (appended) and says so. An empty list from the model still clears.
 * - When an edit of the person's clears the list, the model hears of it with its next write, and
 *   that write, if it holds nothing but the closed plan's items, is taken as a stale copy: the
 *   list stays clear. Any other list is a new plan. The guard lasts for that one write.
 * - The verification nudge and the attribution note come only with a write of the model's that
 *   finishes the plan (every item completed); an empty list abandons a plan, it does not finish it.
 * - A write that changes nothing stored still gets its pushback; nothing is saved or announced.
 */

export interface ChecklistOutcome {
  readonly state: ChecklistState;
  /** For the model: todo_write's answer (a model write), or what a person's edit queued for it. */
  readonly notes: readonly string[];
  /** True when this edit emptied the list (finished, abandoned, or a stale copy of a closed plan). */
  readonly cleared: boolean;
}

const isDone = (item: TodoItem) => item.status === 'completed';
const keyOf = (item: TodoItem) => todoKey(item.content);
const contents = (items: readonly TodoItem[]) => items.map((item) => item.content);

/** The model's todo_write: the complete list, replacing the current one, with the person's edits kept. */
export function applyModelWrite(prev: ChecklistState, sent: readonly TodoItem[]): ChecklistOutcome {
  const out = [...prev.notesForModel];
  if (sameItems(sent, prev.items)) {
    out.push(notes.identical(sent.length === 0));
    return { state: { ...prev, closedPlan: null, notesForModel: [] }, notes: out, cleared: false };
  }
  if (isStaleCopy(prev, sent)) {
    out.push(notes.staleOfClosed());
    return { state: EMPTY_CHECKLIST, notes: out, cleared: true };
  }

  const removedKeys = keysOf(prev.removedByPerson);
  const completedKeys = keysOf(prev.completedByPerson);
  const addedKeys = keysOf(prev.addedByPerson);
  const sentKeys = new Set(sent.map(keyOf));
  const readded: string[] = [];
  const keptCompleted: string[] = [];
  const items: TodoItem[] = [];
  for (const item of sent) {
    const key = keyOf(item);
    if (removedKeys.has(key)) readded.push(item.content);
    else if (completedKeys.has(key) && !isDone(item)) {
      keptCompleted.push(item.content);
      items.push({ ...item, status: 'completed' });
    } else items.push(item);
  }
  const left = prev.items.filter((item) => !isDone(item) && !sentKeys.has(keyOf(item)));
  // An empty list is the model clearing the checklist on purpose: then nothing is kept.
  const keptAdded = sent.length > 0 ? left.filter((item) => addedKeys.has(keyOf(item))) : [];
  const dropped = left.filter((item) => !keptAdded.includes(item));
  items.push(...keptAdded);

  if (readded.length > 0) out.push(notes.readded(readded));
  if (keptCompleted.length > 0) out.push(notes.keptCompleted(keptCompleted));
  if (keptAdded.length > 0) out.push(notes.keptAdded(contents(keptAdded)));
  if (dropped.length > 0) out.push(notes.dropped(contents(dropped)));
  const inProgress = items.filter((item) => item.status === 'in_progress');
  if (inProgress.length > 1) out.push(notes.manyInProgress(contents(inProgress)));

  if (items.length > 0 && !items.every(isDone)) {
    const state: ChecklistState = { ...prev, items, closedPlan: null, notesForModel: [] };
    return { state, notes: out, cleared: false };
  }
  if (items.length > 0) {
    if (items.length >= LARGE_PLAN_ITEMS && !items.some(isVerificationItem))
      out.push(notes.noVerification(items.length));
    if (prev.completedByPerson.length > 0 || prev.removedByPerson.length > 0)
      out.push(notes.finished(prev.completedByPerson, prev.removedByPerson));
  }
  return { state: EMPTY_CHECKLIST, notes: out, cleared: true };
}

/** A first write after the person closed a plan that holds nothing but that plan's items. */
function isStaleCopy(prev: ChecklistState, sent: readonly TodoItem[]): boolean {
  const closed = prev.closedPlan;
  if (!closed || prev.items.length > 0 || sent.length === 0) return false;
  const closedKeys = keysOf([...closed.removed, ...closed.completed]);
  return sent.every((item) => closedKeys.has(keyOf(item)));
}

/**
 * The person's whole list (the manager, REST PUT), with the same sticky rules: items missing
 * from it count as removed by the person, items it newly marks completed as completed by the
 * person (one the model had already completed stays the model's), items it adds as added by the
 * person. The person may undo their own edits: re-adding an item they removed, or reopening one
 * they completed, lifts its stickiness.
 */
export function applyPersonWrite(prev: ChecklistState, sent: readonly TodoItem[]): ChecklistOutcome {
  const before = new Map(prev.items.map((item) => [keyOf(item), item]));
  const sentKeys = new Set(sent.map(keyOf));
  const removedNow = contents(prev.items.filter((item) => !sentKeys.has(keyOf(item))));
  const completedNow = contents(sent.filter((item) => isDone(item) && before.get(keyOf(item))?.status !== 'completed'));
  const reopened = contents(sent.filter((item) => !isDone(item)));
  const addedNow = contents(sent.filter((item) => !before.has(keyOf(item))));
  const removedByPerson = withNames(withoutNames(prev.removedByPerson, contents(sent)), removedNow);
  const completedByPerson = withNames(withoutNames(prev.completedByPerson, [...reopened, ...removedNow]), completedNow);
  const addedByPerson = withNames(withoutNames(prev.addedByPerson, removedNow), addedNow);
  if (sent.length === 0 && prev.items.length === 0) return unchanged(prev);
  const next: ChecklistState = { ...prev, items: [...sent], removedByPerson, completedByPerson, addedByPerson };
  return settlePersonEdit(next);
}

/** The manager's "c": the person completes one item. Null when the list holds no such item. */
export function personComplete(prev: ChecklistState, content: string): ChecklistOutcome | null {
  const index = indexOf(prev, content);
  if (index < 0) return null;
  const item = prev.items[index]!;
  if (isDone(item)) return unchanged(prev);
  const items = prev.items.map((other, at) => (at === index ? { ...other, status: 'completed' as const } : other));
  const completedByPerson = withNames(prev.completedByPerson, [item.content]);
  return settlePersonEdit({ ...prev, items, completedByPerson });
}

/** The manager's "x": the person removes one item. Null when the list holds no such item. */
export function personRemove(prev: ChecklistState, content: string): ChecklistOutcome | null {
  const index = indexOf(prev, content);
  if (index < 0) return null;
  const item = prev.items[index]!;
  return settlePersonEdit({
    ...prev,
    items: prev.items.filter((_, at) => at !== index),
    removedByPerson: withNames(prev.removedByPerson, [item.content]),
    completedByPerson: withoutNames(prev.completedByPerson, [item.content]),
    addedByPerson: withoutNames(prev.addedByPerson, [item.content]),
  });
}

/** The manager's "a": the person marks the whole plan done, which clears it. */
export function personCompleteAll(prev: ChecklistState): ChecklistOutcome {
  if (prev.items.length === 0) return unchanged(prev);
  const open = contents(prev.items.filter((item) => !isDone(item)));
  const items = prev.items.map((item) => ({ ...item, status: 'completed' as const }));
  return settlePersonEdit({ ...prev, items, completedByPerson: withNames(prev.completedByPerson, open) });
}

function indexOf(state: ChecklistState, content: string): number {
  const key = todoKey(content);
  return state.items.findIndex((item) => keyOf(item) === key);
}

function unchanged(prev: ChecklistState): ChecklistOutcome {
  return { state: prev, notes: [], cleared: false };
}

/**
 * After a person's edit: a list that is empty or all completed clears, remembering the closed
 * plan for the model's next write and queueing a note that tells the model what the person did.
 */
function settlePersonEdit(next: ChecklistState): ChecklistOutcome {
  if (next.items.length > 0 && !next.items.every(isDone)) {
    return { state: { ...next, closedPlan: null }, notes: [], cleared: false };
  }
  const how = next.items.length > 0 ? 'completed' : 'emptied';
  const note = notes.closedByPerson(how, next.completedByPerson, next.removedByPerson);
  const state: ChecklistState = {
    ...EMPTY_CHECKLIST,
    closedPlan: {
      removed: next.removedByPerson,
      completed: withNames(next.completedByPerson, contents(next.items.filter(isDone))),
    },
    notesForModel: [...next.notesForModel, note],
  };
  return { state, notes: [note], cleared: true };
}
