import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invalidInput } from '../../shared/ipc/errors.js';
import {
  ListIdSchema,
  TaskCreateInput,
  TaskGetInput,
  TaskListInput,
  TaskUpdateInput,
  WorkChangeResultSchema,
  WorkItemSchema,
  WorkListSchema,
} from '../../shared/schemas/work.js';
import { WorkLedger } from '../../electron/work/work-ledger.js';
import { tempDir } from '../helpers.js';

const TOOLS = { TaskCreateInput, TaskUpdateInput, TaskListInput, TaskGetInput };

/** The message a tool call gets for bad input: the router's own wording over the schema's issues. */
function refusal(schema: z.ZodType, input: unknown): string {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return invalidInput('input', parsed.error).message;
}

const open: WorkLedger[] = [];
afterEach(() => {
  for (const ledger of open.splice(0)) ledger.close();
});

describe('work item schemas', () => {
  it('gives the model a plain JSON Schema with a description on every field', () => {
    for (const [name, schema] of Object.entries(TOOLS)) {
      const json = z.toJSONSchema(schema, { io: 'input' }) as {
        properties: Record<string, { description?: string }>;
        required?: string[];
        additionalProperties: boolean;
      };
      expect(json.additionalProperties, name).toBe(false);
      for (const [field, property] of Object.entries(json.properties))
        expect(property.description, `${name}.${field}`).toMatch(/\w/);
      // No references: local model servers often cannot follow $ref.
      expect(JSON.stringify(json), name).not.toContain('$ref');
    }
    expect((z.toJSONSchema(TaskListInput, { io: 'input' }) as { required?: string[] }).required).toBeUndefined();
    expect((z.toJSONSchema(TaskUpdateInput, { io: 'input' }) as { required: string[] }).required).toEqual(['task_id']);
  });

  it('names the field in every refusal', () => {
    expect(refusal(TaskGetInput, { task_id: '3' })).toBe('Invalid input: task_id: expected number, received string');
    expect(refusal(TaskGetInput, { task_id: 0 })).toMatch(/^Invalid input: task_id: /);
    expect(refusal(TaskCreateInput, { subject: '   ' })).toBe('Invalid input: subject: must not be empty');
    expect(refusal(TaskCreateInput, { subject: 'x'.repeat(501) })).toBe(
      'Invalid input: subject: is too long (at most 500 characters)',
    );
    expect(refusal(TaskCreateInput, { subject: 'a', blocked_by: [1, 'two'] })).toMatch(
      /^Invalid input: blocked_by\.1: expected number/,
    );
    expect(refusal(TaskCreateInput, { subject: 'a', priority: 1 })).toBe(
      'Invalid input: priority: is not a known field (unknown keys are refused, not ignored)',
    );
    expect(refusal(TaskUpdateInput, { task_id: 1, status: 'done' })).toMatch(/^Invalid input: status: /);
    expect(refusal(TaskUpdateInput, { task_id: 1, metadata: { bad: Number.NaN } })).toBe(
      'Invalid input: metadata.bad: must be a JSON value',
    );
  });

  it('accepts what the tools document', () => {
    expect(TaskListInput.parse({})).toEqual({ include_completed: true });
    expect(TaskUpdateInput.parse({ task_id: 2, owner: null, active_form: null, metadata: { gone: null } })).toEqual({
      task_id: 2,
      owner: null,
      active_form: null,
      metadata: { gone: null },
    });
    expect(TaskCreateInput.parse({ subject: '  Trimmed  ' }).subject).toBe('Trimmed');
    // A "__proto__" key never reaches an object's prototype: it is left out.
    const sneaky = TaskUpdateInput.parse({
      task_id: 1,
      metadata: JSON.parse('{"__proto__": {"polluted": 1}, "a": 1}'),
    });
    expect(sneaky.metadata).toEqual({ a: 1 });
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(sneaky.metadata)).toBe(Object.prototype);
  });

  it('takes list ids of letters, digits, ".", "-" and "_" only', () => {
    for (const good of ['s_abc', 'team.board-2', 'x'.repeat(128)])
      expect(ListIdSchema.safeParse(good).success).toBe(true);
    for (const bad of ['', 'a/b', '../up', 'has space', 'x'.repeat(129)])
      expect(ListIdSchema.safeParse(bad).success, bad).toBe(false);
  });

  it('describes exactly what the ledger answers', () => {
    const ledger = WorkLedger.open(tempDir());
    open.push(ledger);
    const made = ledger.create('s_abc', { subject: 'a', metadata: { n: 1 } });
    expect(WorkChangeResultSchema.parse(made)).toEqual(made);
    ledger.create('s_abc', { subject: 'b', blocked_by: [1] });
    const done = ledger.update('s_abc', { task_id: 1, status: 'completed' });
    expect(WorkChangeResultSchema.parse(done)).toEqual(done);
    expect(WorkItemSchema.parse(ledger.get('s_abc', 2))).toEqual(ledger.get('s_abc', 2));
    const listed = ledger.list('s_abc');
    expect(WorkListSchema.parse(listed)).toEqual(listed);
    const deleted = ledger.update('s_abc', { task_id: 2, status: 'deleted' });
    expect(WorkChangeResultSchema.parse(deleted)).toEqual(deleted);
  });
});
