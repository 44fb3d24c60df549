import { z } from 'zod';
import { todoKey } from '../domain/todo-key.js';

/**
 * The session checklist (the spec's todo_write, issue #15): one short list per session that the
 * model replaces with every call and the person may edit. The model's tool input keeps the spec's
 * names (`content`, `status`, `activeForm`); one schema per boundary gives the TypeScript type,
 * the runtime check and (through z.toJSONSchema) the JSON Schema the model is shown.
 */

export const TODO_TEXT_MAX = 500;
/** Items one list may hold: a checklist is a short plan, never a backlog (the work ledger is for that). */
export const TODO_ITEMS_MAX = 100;

/**
 * Characters an item never holds: C0 and C1 controls (a newline, ESC…), DEL, and the bidi and
 * line-separator controls that could make the strip read as something other than what is stored.
 */
export const TODO_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export const TodoStatusSchema = z.enum(['pending', 'in_progress', 'completed']);
export type TodoStatus = z.infer<typeof TodoStatusSchema>;

function todoText(what: string) {
  return z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(TODO_TEXT_MAX, `is too long (at most ${TODO_TEXT_MAX} characters)`)
    .refine((text) => !TODO_FORBIDDEN.test(text), {
      message: 'must be one line, without control characters (such as a newline or ESC) or direction controls',
    })
    .describe(what);
}

export const TodoItemSchema = z
  .object({
    content: todoText('What to do, in the imperative: "Run tests". Unique within the list; items are matched by it'),
    status: TodoStatusSchema.describe(
      'pending, in_progress (exactly one item at a time while you work on it) or completed (only once it is really done)',
    ),
    activeForm: todoText('The same step in the present continuous, shown while it is in progress: "Running tests"'),
  })
  .strict();
export type TodoItem = z.infer<typeof TodoItemSchema>;

export { todoKey };

/** A complete list: at most TODO_ITEMS_MAX items, no two with the same content (as todoKey sees it). */
export const TodoListSchema = z
  .array(TodoItemSchema)
  .max(TODO_ITEMS_MAX, `has too many items (at most ${TODO_ITEMS_MAX}); keep the checklist to the current plan`)
  .superRefine((items, context) => {
    const seen = new Map<string, number>();
    items.forEach((item, index) => {
      const key = todoKey(item.content);
      const first = seen.get(key);
      if (first === undefined) seen.set(key, index);
      else
        context.addIssue({
          code: 'custom',
          path: [index, 'content'],
          message: `repeats item ${first} ("${items[first]!.content}"); each item needs its own content`,
        });
    });
  });

/** The model's todo_write input: the complete list, every time. */
export const TodoWriteInput = z
  .object({
    todos: TodoListSchema.describe(
      'The complete checklist: every item, finished ones included. It replaces the previous list, never adds to it; send an empty list to clear it',
    ),
  })
  .strict();
export type TodoWriteArgs = z.infer<typeof TodoWriteInput>;

const IsoTimeSchema = z.iso.datetime({ offset: true });

/** What clients (the TODOS strip, the manager, REST) are shown of a session's checklist. */
export const ChecklistSchema = z.object({
  items: z.array(TodoItemSchema),
  /** Items the person removed from the current plan (their content as the person saw it): the model may not re-add them. */
  removedByPerson: z.array(z.string()),
  /** Items the person marked completed in the current plan: no resend from the model un-finishes them. */
  completedByPerson: z.array(z.string()),
  /** When the list last changed; null when the session never had one. */
  updatedAt: IsoTimeSchema.nullable(),
});
export type Checklist = z.infer<typeof ChecklistSchema>;

/** Who changed the list: the model (todo_write) or the person (the manager, REST PUT). */
export const ChecklistAuthorSchema = z.enum(['model', 'person']);
export type ChecklistAuthor = z.infer<typeof ChecklistAuthorSchema>;
