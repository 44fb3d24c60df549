import type { Checklist, TodoItem, TodoStatus } from '@shared/schemas/todos.js';
import { todoKey } from '@shared/domain/todo-key.js';

/**
 * The session checklist as the TODOS strip and the manager show it (issue #15): which item the
 * strip names, the progress count, and which items the person drove. Pure, so it is tested alone.
 */

export interface TodoSummary {
  /** The one line: the in-progress item's activeForm, else the next pending item, else "All done". */
  label: string;
  /** The item the line names, if any. */
  current: TodoItem | null;
  completed: number;
  total: number;
  /** "2/5": completed of all. */
  count: string;
}

/** What the strip shows, or null when there is no list (the strip hides). */
export function todoSummary(items: readonly TodoItem[]): TodoSummary | null {
  if (items.length === 0) return null;
  const completed = items.filter((item) => item.status === 'completed').length;
  const working = items.find((item) => item.status === 'in_progress');
  const next = items.find((item) => item.status === 'pending');
  const current = working ?? next ?? null;
  const label = working ? working.activeForm : next ? next.content : 'All done';
  return { label, current, completed, total: items.length, count: `${completed}/${items.length}` };
}

/** An item's words in a list: the activeForm while it is in progress, its content otherwise. */
export function todoText(item: TodoItem): string {
  return item.status === 'in_progress' ? item.activeForm : item.content;
}

const STATUS_WORDS: Record<TodoStatus, string> = {
  pending: 'pending',
  in_progress: 'in progress',
  completed: 'completed',
};

export function todoStatusLabel(status: TodoStatus): string {
  return STATUS_WORDS[status];
}

/** True when the person marked this item completed (the model cannot un-finish it). */
export function completedByPerson(checklist: Pick<Checklist, 'completedByPerson'>, item: TodoItem): boolean {
  const key = todoKey(item.content);
  return checklist.completedByPerson.some((content) => todoKey(content) === key);
}

/**
 * The manager's selection after a move or a change to the list: the index of `selected` (an
 * item's content) in `items`, else the nearest index to where it was, else -1 for no items.
 */
export function selectionIndex(items: readonly TodoItem[], selected: string | null, lastIndex: number): number {
  if (items.length === 0) return -1;
  if (selected !== null) {
    const key = todoKey(selected);
    const found = items.findIndex((item) => todoKey(item.content) === key);
    if (found >= 0) return found;
  }
  return Math.min(Math.max(lastIndex, 0), items.length - 1);
}

/** ↑/↓ in the manager: one step, stopping at the ends (no wrap, so a held key settles). */
export function moveSelection(index: number, delta: number, length: number): number {
  if (length === 0) return -1;
  return Math.min(Math.max(index + delta, 0), length - 1);
}

/** The manager's keys (the spec's table): bare letters are safe there, the focus is in the dialog. */
export type TodoKeyAction = 'up' | 'down' | 'first' | 'last' | 'complete' | 'remove' | 'completeAll';

/** The part of a keyboard event the manager reads. */
export interface TodoKeyEvent {
  key: string;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
  repeat: boolean;
  isComposing: boolean;
}

const MOVES: Record<string, TodoKeyAction> = { ArrowUp: 'up', ArrowDown: 'down', Home: 'first', End: 'last' };
const LETTERS: Record<string, TodoKeyAction> = { c: 'complete', x: 'remove', a: 'completeAll' };

/**
 * The action a key asks for in the manager, or null. Letters act once per press: a held `x`
 * never removes item after item. A letter with Ctrl, Alt or Meta is someone else's shortcut.
 */
export function todoKeyAction(event: TodoKeyEvent): TodoKeyAction | null {
  if (event.isComposing || event.ctrlKey || event.altKey || event.metaKey) return null;
  const move = MOVES[event.key];
  if (move) return move;
  if (event.repeat) return null;
  return LETTERS[event.key.toLowerCase()] ?? null;
}

/** The page-wide shortcut that opens and closes the manager: Ctrl+Shift+X (⌘⇧X on macOS). */
export function isManagerShortcut(
  event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey' | 'isComposing'>,
  mac: boolean,
): boolean {
  if (event.isComposing || event.altKey || !event.shiftKey) return false;
  if (mac ? !event.metaKey || event.ctrlKey : !event.ctrlKey || event.metaKey) return false;
  return event.key.toLowerCase() === 'x';
}

export function managerShortcutLabel(mac: boolean): string {
  return mac ? '⌘⇧X' : 'Ctrl+Shift+X';
}
