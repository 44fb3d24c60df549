import { describe, expect, it } from 'vitest';
import type { TodoItem } from '@shared/schemas/todos.js';
import {
  completedByPerson,
  isManagerShortcut,
  moveSelection,
  selectionIndex,
  todoKeyAction,
  todoSummary,
  todoText,
} from './todos.js';

const todo = (content: string, status: TodoItem['status'] = 'pending', activeForm = `${content}ing`): TodoItem => ({
  content,
  status,
  activeForm,
});

describe('the TODOS strip’s line', () => {
  it('hides (null) when the list is empty', () => {
    expect(todoSummary([])).toBeNull();
  });

  it('names the in-progress item by its activeForm, with completed of all', () => {
    const summary = todoSummary([
      todo('Read the code', 'completed'),
      todo('Run tests', 'in_progress', 'Running tests'),
      todo('Fix the bug'),
      todo('Verify'),
    ])!;
    expect(summary.label).toBe('Running tests');
    expect(summary.count).toBe('1/4');
    expect(summary.current?.content).toBe('Run tests');
  });

  it('names the next pending item by its content when nothing is in progress', () => {
    const summary = todoSummary([todo('Read', 'completed'), todo('Write'), todo('Ship')])!;
    expect(summary.label).toBe('Write');
    expect(summary.count).toBe('1/3');
  });

  it('says all done when every item is completed (before the list clears)', () => {
    const summary = todoSummary([todo('Read', 'completed'), todo('Write', 'completed')])!;
    expect(summary.label).toBe('All done');
    expect(summary.current).toBeNull();
    expect(summary.count).toBe('2/2');
  });

  it('words an item by its activeForm only while it is in progress', () => {
    expect(todoText(todo('Run tests', 'in_progress', 'Running tests'))).toBe('Running tests');
    expect(todoText(todo('Run tests', 'completed', 'Running tests'))).toBe('Run tests');
  });

  it('knows the person’s completions however the content is spaced or cased', () => {
    const checklist = { completedByPerson: ['run  Tests'] };
    expect(completedByPerson(checklist, todo('Run tests', 'completed'))).toBe(true);
    expect(completedByPerson(checklist, todo('Fix the bug', 'completed'))).toBe(false);
  });
});

describe('the manager’s selection and keys', () => {
  const items = [todo('A'), todo('B'), todo('C')];

  it('follows the selected item by its content, else stays near where it was', () => {
    expect(selectionIndex(items, 'B', 0)).toBe(1);
    expect(selectionIndex(items, 'gone', 2)).toBe(2);
    expect(selectionIndex(items.slice(0, 2), 'C', 2)).toBe(1);
    expect(selectionIndex(items, null, -1)).toBe(0);
    expect(selectionIndex([], 'A', 0)).toBe(-1);
  });

  it('moves one step and stops at the ends', () => {
    expect(moveSelection(0, 1, 3)).toBe(1);
    expect(moveSelection(2, 1, 3)).toBe(2);
    expect(moveSelection(0, -1, 3)).toBe(0);
    expect(moveSelection(0, 1, 0)).toBe(-1);
  });

  const key = (key: string, patch: Partial<Parameters<typeof todoKeyAction>[0]> = {}) =>
    todoKeyAction({ key, ctrlKey: false, altKey: false, metaKey: false, repeat: false, isComposing: false, ...patch });

  it('maps the spec’s keys: arrows, c, x, a (either case)', () => {
    expect(key('ArrowDown')).toBe('down');
    expect(key('ArrowUp')).toBe('up');
    expect(key('Home')).toBe('first');
    expect(key('End')).toBe('last');
    expect(key('c')).toBe('complete');
    expect(key('X')).toBe('remove');
    expect(key('a')).toBe('completeAll');
    expect(key('b')).toBeNull();
  });

  it('acts on a letter once per press, never with a modifier or while an input method composes', () => {
    expect(key('x', { repeat: true })).toBeNull();
    expect(key('ArrowDown', { repeat: true })).toBe('down');
    expect(key('c', { ctrlKey: true })).toBeNull();
    expect(key('a', { metaKey: true })).toBeNull();
    expect(key('x', { altKey: true })).toBeNull();
    expect(key('c', { isComposing: true })).toBeNull();
  });

  it('opens with Ctrl+Shift+X, ⌘⇧X on macOS, and nothing else', () => {
    const press = (patch: Partial<KeyboardEvent>) => ({
      key: 'X',
      ctrlKey: false,
      metaKey: false,
      altKey: false,
      shiftKey: true,
      isComposing: false,
      ...patch,
    });
    expect(isManagerShortcut(press({ ctrlKey: true }), false)).toBe(true);
    expect(isManagerShortcut(press({ ctrlKey: true, shiftKey: false, key: 'x' }), false)).toBe(false);
    expect(isManagerShortcut(press({ ctrlKey: true, altKey: true }), false)).toBe(false);
    expect(isManagerShortcut(press({ metaKey: true }), false)).toBe(false);
    expect(isManagerShortcut(press({ metaKey: true }), true)).toBe(true);
    expect(isManagerShortcut(press({ ctrlKey: true }), true)).toBe(false);
    expect(isManagerShortcut(press({ ctrlKey: true, isComposing: true }), false)).toBe(false);
  });
});
