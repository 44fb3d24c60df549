import { todoKey, type TodoItem } from '../../shared/schemas/todos.js';

/** A plan the person closed, remembered until the model's next write (see ChecklistState.closedPlan). */
export interface ClosedPlan {
  /** Items the person removed from that plan. */
  readonly removed: readonly string[];
  /** Every item that plan finished with as completed, by whoever completed it. */
  readonly completed: readonly string[];
}

/**
 * Everything stored for one session's checklist. The name lists hold item contents as they were
 * shown (matched by todoKey); all three sticky lists belong to the current plan and are reset
 * when it clears.
 */
export interface ChecklistState {
  readonly items: readonly TodoItem[];
  /** Removed by the person: a resend from the model that holds them drops them again. */
  readonly removedByPerson: readonly string[];
  /** Completed by the person: a resend from the model cannot un-finish them. */
  readonly completedByPerson: readonly string[];
  /** Added by the person: a resend from the model that leaves one out while it is unfinished keeps it. */
  readonly addedByPerson: readonly string[];
  /**
   * Set when an edit of the person's cleared the list, and dropped at the model's next write: a
   * resend that holds only that plan's items is the model's stale copy of it, not a new plan.
   */
  readonly closedPlan: ClosedPlan | null;
  /** Notes for the model about the person's edits, delivered with its next write (or taken by the agent). */
  readonly notesForModel: readonly string[];
}

export const EMPTY_CHECKLIST: ChecklistState = {
  items: [],
  removedByPerson: [],
  completedByPerson: [],
  addedByPerson: [],
  closedPlan: null,
  notesForModel: [],
};

export function keysOf(names: readonly string[]): Set<string> {
  return new Set(names.map(todoKey));
}

/** `names` with `more` added, each content once (as todoKey sees it), the first spelling kept. */
export function withNames(names: readonly string[], more: readonly string[]): string[] {
  const keys = keysOf(names);
  const out = [...names];
  for (const name of more) {
    const key = todoKey(name);
    if (keys.has(key)) continue;
    keys.add(key);
    out.push(name);
  }
  return out;
}

/** `names` less every content in `less` (as todoKey sees it). */
export function withoutNames(names: readonly string[], less: readonly string[]): string[] {
  const drop = keysOf(less);
  return names.filter((name) => !drop.has(todoKey(name)));
}

/** True when both lists hold the same items, in the same order, with the same words. */
export function sameItems(a: readonly TodoItem[], b: readonly TodoItem[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (item, index) =>
        item.content === b[index]!.content &&
        item.status === b[index]!.status &&
        item.activeForm === b[index]!.activeForm,
    )
  );
}

export function sameState(a: ChecklistState, b: ChecklistState): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Only what clients are shown (items and the person's sticky edits) differs. */
export function visiblyDifferent(a: ChecklistState, b: ChecklistState): boolean {
  return (
    !sameItems(a.items, b.items) ||
    JSON.stringify([a.removedByPerson, a.completedByPerson]) !==
      JSON.stringify([b.removedByPerson, b.completedByPerson])
  );
}
