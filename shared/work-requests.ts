import { z } from 'zod';
import { event, request } from './ipc/define.js';
import { IdSchema } from './schemas/session.js';
import { ChecklistAuthorSchema, ChecklistSchema, TodoListSchema } from './schemas/todos.js';
import {
  ListIdSchema,
  TaskCreateInput,
  TaskUpdateInput,
  WorkChangeResultSchema,
  WorkItemIdSchema,
  WorkItemSchema,
  WorkListSchema,
} from './schemas/work.js';

/**
 * The contract's requests for planning: work items (the durable ledger; the model's task_* tools)
 * and the session checklist (todo_write). Clients name fields in camelCase; the model's tools keep
 * the spec's snake_case, so the same rules are reached through one mapping in the handlers.
 */

const ByItem = z.object({ listId: ListIdSchema, itemId: WorkItemIdSchema }).strict();
const shape = TaskCreateInput.shape;
const updates = TaskUpdateInput.shape;

export const WorkItemCreateSchema = z
  .object({
    listId: ListIdSchema,
    subject: shape.subject,
    description: shape.description,
    activeForm: shape.active_form,
    owner: shape.owner,
    blockedBy: shape.blocked_by,
    blocks: shape.blocks,
    metadata: shape.metadata,
  })
  .strict();

export const WorkItemUpdateSchema = ByItem.extend({
  subject: updates.subject,
  description: updates.description,
  activeForm: updates.active_form,
  status: updates.status,
  owner: updates.owner,
  addBlockedBy: updates.add_blocked_by,
  addBlocks: updates.add_blocks,
  removeBlockedBy: updates.remove_blocked_by,
  removeBlocks: updates.remove_blocks,
  metadata: updates.metadata,
}).strict();

const ChecklistChangeSchema = z.object({
  checklist: ChecklistSchema,
  /** What the model will be told of this change, in words (the sticky edits, a plan finished). */
  notes: z.array(z.string()),
});

export const workRequests = {
  listWorkItems: request({
    input: z
      .object({
        listId: ListIdSchema.optional(),
        /** Instead of listId: the session's list (its own, or the shared one DROVER_WORK_LIST_ID names); the answer names it. */
        sessionId: IdSchema.optional(),
        includeCompleted: z.boolean().optional(),
      })
      .strict()
      .refine((input) => (input.listId === undefined) !== (input.sessionId === undefined), {
        message: 'give exactly one of listId and sessionId',
        path: ['listId'],
      }),
    output: WorkListSchema,
    summary: 'The work items of a list (a session id, or a shared list id), with unresolved blockers and a tally',
  }),
  createWorkItem: request({
    input: WorkItemCreateSchema,
    output: WorkChangeResultSchema,
    summary: 'Add a work item (task_create): subject, description, owner, dependency edges, metadata',
  }),
  getWorkItem: request({ input: ByItem, output: WorkItemSchema, summary: "A work item's full detail (task_get)" }),
  updateWorkItem: request({
    input: WorkItemUpdateSchema,
    output: WorkChangeResultSchema,
    summary: 'Change a work item (task_update): status, fields, edges, metadata merged (null deletes a key)',
  }),
  deleteWorkItem: request({
    input: ByItem,
    output: WorkChangeResultSchema,
    summary: 'Delete a work item for good; it leaves every dependency list',
  }),
  getTodos: request({
    input: z.object({ sessionId: IdSchema }).strict(),
    output: ChecklistSchema,
    summary: "The session's checklist (todo_write's list)",
  }),
  putTodos: request({
    input: z.object({ sessionId: IdSchema, items: TodoListSchema }).strict(),
    output: ChecklistChangeSchema,
    summary:
      "Replace the session's checklist as the person: removals and completions stick against the model's resends",
  }),
  editTodo: request({
    input: z
      .object({
        sessionId: IdSchema,
        /** complete or remove one item (named by its content), or completeAll: the whole plan done (it clears). */
        action: z.enum(['complete', 'remove', 'completeAll']),
        content: z.string().min(1).max(500).optional(),
      })
      .strict()
      .refine((input) => input.action === 'completeAll' || input.content !== undefined, {
        message: 'needs content (the item to complete or remove)',
        path: ['content'],
      }),
    output: ChecklistChangeSchema,
    summary: "One edit of the person's to the checklist (the manager's c, x and a keys)",
  }),
};

export const workEvents = {
  todosChanged: event({
    payload: z.object({ sessionId: IdSchema, checklist: ChecklistSchema, by: ChecklistAuthorSchema }),
    summary: "A session's checklist changed (the model's todo_write or the person's edit)",
  }),
  workItemsChanged: event({
    payload: z.object({ listId: ListIdSchema, revision: z.number().int().nonnegative() }),
    summary: 'A work list changed in this process (read it again to see the change)',
  }),
};
