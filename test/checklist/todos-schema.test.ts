import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invalidInput } from '../../shared/ipc/errors.js';
import {
  ChecklistSchema,
  TODO_ITEMS_MAX,
  TODO_TEXT_MAX,
  todoKey,
  TodoItemSchema,
  TodoWriteInput,
} from '../../shared/schemas/todos.js';

const item = (content: string, status = 'pending', activeForm = 'Doing it') => ({ content, status, activeForm });

function refusal(input: unknown): { path: string | undefined; message: string } {
  const parsed = TodoWriteInput.safeParse(input);
  expect(parsed.success).toBe(false);
  const error = invalidInput('input', parsed.error!);
  return { path: error.path, message: error.message };
}

describe('todo_write input', () => {
  it('accepts the spec’s names, content, status and activeForm, and trims the texts', () => {
    const parsed = TodoWriteInput.parse({ todos: [item('  Run tests ', 'in_progress', ' Running tests')] });
    expect(parsed.todos).toEqual([{ content: 'Run tests', status: 'in_progress', activeForm: 'Running tests' }]);
  });

  it('refuses any other field name, naming it (active_form is not activeForm)', () => {
    const answer = refusal({ todos: [{ content: 'Run tests', status: 'pending', active_form: 'Running tests' }] });
    expect(answer.message).toContain('todos.0');
    expect(refusal({ todos: [], extra: 1 }).path).toBe('extra');
  });

  it('refuses an unknown status, a blank or too long text, and a text of more than one line', () => {
    expect(refusal({ todos: [item('A', 'done')] }).path).toBe('todos.0.status');
    expect(refusal({ todos: [item('   ')] }).path).toBe('todos.0.content');
    expect(refusal({ todos: [item('A', 'pending', '')] }).path).toBe('todos.0.activeForm');
    expect(refusal({ todos: [item('x'.repeat(TODO_TEXT_MAX + 1))] }).path).toBe('todos.0.content');
    expect(TodoWriteInput.safeParse({ todos: [item('x'.repeat(TODO_TEXT_MAX))] }).success).toBe(true);
    expect(refusal({ todos: [item('Run\ntests')] }).path).toBe('todos.0.content');
    expect(refusal({ todos: [item('Run \u202etests')] }).path).toBe('todos.0.content');
  });

  it(`holds at most ${TODO_ITEMS_MAX} items`, () => {
    const many = Array.from({ length: TODO_ITEMS_MAX }, (_, index) => item(`Step ${index}`));
    expect(TodoWriteInput.safeParse({ todos: many }).success).toBe(true);
    expect(refusal({ todos: [...many, item('One more')] }).path).toBe('todos');
  });

  it('refuses two items with the same content as matching sees it, naming the second', () => {
    const answer = refusal({ todos: [item('Run tests'), item('B'), item('  run   TESTS')] });
    expect(answer.path).toBe('todos.2.content');
    expect(answer.message).toContain('repeats item 0 ("Run tests")');
  });

  it('the empty list is valid: it clears the checklist', () => {
    expect(TodoWriteInput.parse({ todos: [] })).toEqual({ todos: [] });
  });

  it('describes every field in the JSON Schema the model is shown', () => {
    const schema = z.toJSONSchema(TodoWriteInput, { io: 'input' }) as unknown as {
      properties: { todos: { description?: string; maxItems?: number; items: { properties: object } } };
      additionalProperties?: boolean;
    };
    expect(schema.properties.todos.description).toMatch(/complete checklist/);
    expect(schema.properties.todos.maxItems).toBe(TODO_ITEMS_MAX);
    const fields = schema.properties.todos.items.properties as Record<string, { description?: string }>;
    expect(Object.keys(fields)).toEqual(['content', 'status', 'activeForm']);
    for (const [name, field] of Object.entries(fields)) expect(field.description, name).toBeTruthy();
  });
});

describe('matching and the client shape', () => {
  it('todoKey trims, collapses white space and ignores case', () => {
    expect(todoKey('  Run\t the   TESTS ')).toBe('run the tests');
    expect(todoKey('Ｒｕｎ tests')).toBe('run tests');
  });

  it('ChecklistSchema takes a cleared checklist and a live one', () => {
    expect(
      ChecklistSchema.safeParse({ items: [], removedByPerson: [], completedByPerson: [], updatedAt: null }).success,
    ).toBe(true);
    expect(
      ChecklistSchema.safeParse({
        items: [TodoItemSchema.parse(item('A'))],
        removedByPerson: ['B'],
        completedByPerson: [],
        updatedAt: '2025-01-02T03:04:05.000Z',
      }).success,
    ).toBe(true);
  });
});
