import type { TodoItem } from '../../shared/schemas/todos.js';

/**
 * The texts the model reads in todo_write's answer. They are for the model only: the person sees
 * the checklist itself, never these.
 */

/** A plan this long or longer gets the verification nudge when it is closed. */
export const LARGE_PLAN_ITEMS = 5;

/** How many items a note names before it says "and N more". */
export const NOTE_NAMES_MAX = 10;

/**
 * What counts as a verification step, for the nudge before a large plan is closed. Deliberately
 * broad: the nudge is pushback, so it fires only when no item looks like checking the work at all.
 * Whole words (any case) in the content or the active form: test/tests/testing, verify/
 * verification, check (not "checkout"), lint, typecheck/tsc, smoke, validate, confirm, reproduce,
 * CI, e2e, QA, and the usual test runners (pytest, vitest, jest). Generic verbs (run, make, build,
 * compile) do not count: "Run the migration" or "Make the form" checks nothing.
 */
export const VERIFICATION_PATTERN =
  /\b(?:test(?:s|ed|ing)?|verif(?:y|ies|ied|ying|ication)|check(?:s|ed|ing)?|lint(?:s|ed|ing|er)?|type-?check(?:s|ed|ing)?|tsc|smoke|validat(?:e|es|ed|ing|ion)|confirm(?:s|ed|ing)?|reproduc(?:e|es|ed|ing)|ci|e2e|qa|pytest|vitest|jest)\b/i;

export function isVerificationItem(item: TodoItem): boolean {
  return VERIFICATION_PATTERN.test(item.content) || VERIFICATION_PATTERN.test(item.activeForm);
}

/** `"A", "B" and "C"`, at most NOTE_NAMES_MAX of them named. Quoted as JSON, so every name reads as one string. */
export function nameItems(names: readonly string[]): string {
  const shown = names.slice(0, NOTE_NAMES_MAX).map((name) => JSON.stringify(name));
  const rest = names.length - shown.length;
  if (rest > 0) return `${shown.join(', ')} and ${rest} more`;
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)!}`;
}

export const notes = {
  identical: (empty: boolean) =>
    empty
      ? 'Nothing changed: the checklist is already empty.'
      : 'Nothing changed: this list is identical to the current checklist. Call todo_write when an item starts or finishes or the plan changes, not to repeat it.',

  readded: (names: readonly string[]) =>
    `The person removed ${nameItems(names)} from the checklist, so ${names.length === 1 ? 'it was' : 'they were'} dropped again. Do not add ${names.length === 1 ? 'it' : 'them'} back; if you think ${names.length === 1 ? 'it is' : 'they are'} needed, ask the person.`,

  keptCompleted: (names: readonly string[]) =>
    `The person marked ${nameItems(names)} completed, so ${names.length === 1 ? 'it stays' : 'they stay'} completed although your list said otherwise (a stale copy?). Do not redo ${names.length === 1 ? 'it' : 'them'} unless the person asks.`,

  keptAdded: (names: readonly string[]) =>
    `The person added ${nameItems(names)} to the checklist; your list left ${names.length === 1 ? 'it' : 'them'} out, so ${names.length === 1 ? 'it was' : 'they were'} kept. Include ${names.length === 1 ? 'it' : 'them'} in your next list and work on ${names.length === 1 ? 'it' : 'them'}, or ask the person.`,

  dropped: (names: readonly string[]) =>
    `Unfinished ${names.length === 1 ? 'item' : 'items'} ${nameItems(names)} ${names.length === 1 ? 'was' : 'were'} dropped without being completed. If ${names.length === 1 ? 'it is' : 'they are'} done, mark ${names.length === 1 ? 'it' : 'them'} completed; if ${names.length === 1 ? 'it is' : 'they are'} no longer needed, tell the person why.`,

  manyInProgress: (names: readonly string[]) =>
    `${names.length} items are in_progress at once: ${nameItems(names)}. Keep exactly one item in_progress: finish it (or set it back to pending) before starting the next.`,

  noVerification: (count: number) =>
    `You closed a plan of ${count} items without a verification step (running the tests, a build, a lint or type check, or trying the change). If the work is not verified, verify it now and tell the person what you checked; if it cannot be verified, say so.`,

  staleOfClosed: () =>
    'Your list repeats the plan the person already closed, so the checklist stays clear. Start a new list only for new work.',

  /** A plan finished with a write of the model's: whatever the person did in it, told so the model attributes honestly. */
  finished: (completed: readonly string[], removed: readonly string[]) =>
    ['The plan is finished and the checklist was cleared.', ...personsPart(completed, removed)].join(' '),

  /** An edit of the person's cleared the list: told to the model with its next write. */
  closedByPerson: (how: 'completed' | 'emptied', completed: readonly string[], removed: readonly string[]) =>
    [
      how === 'completed'
        ? "The person's edit finished the plan (every item is completed), and the checklist was cleared."
        : 'The person emptied the checklist.',
      ...personsPart(completed, removed),
      'Do not resend that plan; start a new list only for new work.',
    ].join(' '),
};

function personsPart(completed: readonly string[], removed: readonly string[]): string[] {
  const out: string[] = [];
  if (completed.length > 0)
    out.push(
      `The person completed ${nameItems(completed)} themselves: when you report, say the person did ${completed.length === 1 ? 'it' : 'these'}, not you.`,
    );
  if (removed.length > 0)
    out.push(`The person removed ${nameItems(removed)} from the plan; report only what was actually done.`);
  return out;
}
