import { z } from 'zod';

/**
 * Work items: the spec's durable task ledger ("The structured task ledger"), named so in the UI,
 * the README and REST to keep them apart from Drover's background tasks (issue #15). The model's
 * tools keep the spec's names (task_create, task_update, task_list, task_get) and its snake_case
 * fields; what clients are shown is camelCase. One schema per boundary: the TypeScript type, the
 * runtime check and (through z.toJSONSchema with `io: 'input'`) the JSON Schema the model sees.
 */

export const WORK_SUBJECT_MAX = 500;
export const WORK_DESCRIPTION_MAX = 20_000;
export const WORK_ACTIVE_FORM_MAX = 500;
export const WORK_OWNER_MAX = 128;
export const WORK_LIST_ID_MAX = 128;
export const WORK_METADATA_KEY_MAX = 128;
/** The whole metadata object, as UTF-8 JSON, after a merge: metadata is for notes, not payloads. */
export const WORK_METADATA_MAX_BYTES = 16 * 1024;
/** How many ids one edge field may name in one call. */
export const WORK_EDGES_PER_CALL_MAX = 100;
/** Kept below Drover's own blocked reasons' length, so a reason never floods the list. */
export const WORK_BLOCKED_REASON_MAX = 2_000;

/** A list's name: the session id by default, or DROVER_WORK_LIST_ID where several processes share one board. */
export const ListIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(WORK_LIST_ID_MAX, `is too long (at most ${WORK_LIST_ID_MAX} characters)`)
  .regex(/^[A-Za-z0-9._-]+$/, 'may hold only letters, digits, ".", "-" and "_"');
export type ListId = z.infer<typeof ListIdSchema>;

/** Given per list, from 1, in order; never given twice, not even after the item is deleted. */
export const WorkItemIdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export type WorkItemId = z.infer<typeof WorkItemIdSchema>;

/** `deleted` is never stored: it is the answer's word for an item just removed. */
export const WorkItemStatusSchema = z.enum(['pending', 'in_progress', 'completed', 'deleted']);
export type WorkItemStatus = z.infer<typeof WorkItemStatusSchema>;

/** Any JSON value. Checked in code rather than as a recursive schema, so the model's schema stays plain (`{}`). */
export function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((inner) => isJsonValue(inner, depth + 1));
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((inner) => isJsonValue(inner, depth + 1));
}

export const JsonValueSchema = z.unknown().refine(isJsonValue, { message: 'must be a JSON value' });

const MetadataKeySchema = z
  .string()
  .min(1, 'must not be empty')
  .max(WORK_METADATA_KEY_MAX, `is too long (at most ${WORK_METADATA_KEY_MAX} characters)`);

/** Stored metadata: string keys to any JSON value. zod leaves out a "__proto__" key, so none reaches a prototype. */
export const WorkMetadataSchema = z.record(MetadataKeySchema, JsonValueSchema);
export type WorkMetadata = Record<string, unknown>;

const IsoTimeSchema = z.iso.datetime({ offset: true });

/** A work item as clients (the panel, REST, task_get) see it. */
export const WorkItemSchema = z.object({
  id: WorkItemIdSchema,
  listId: ListIdSchema,
  subject: z.string().min(1).max(WORK_SUBJECT_MAX),
  description: z.string(),
  activeForm: z.string().nullable(),
  status: WorkItemStatusSchema,
  owner: z.string().nullable(),
  /** Items that must be completed first (completed ones included; the list view drops those). */
  blockedBy: z.array(WorkItemIdSchema),
  /** Items waiting for this one. The same edges as their blockedBy, seen from this side. */
  blocks: z.array(WorkItemIdSchema),
  metadata: WorkMetadataSchema,
  /** Why background work linked to this item failed; set by Drover, cleared when the item's status moves on. */
  blockedReason: z.string().nullable(),
  createdAt: IsoTimeSchema,
  updatedAt: IsoTimeSchema,
});
export type WorkItem = z.infer<typeof WorkItemSchema>;

/** One line of task_list: unresolved blockers only (completed ones are dropped from the view). */
export const WorkListEntrySchema = z.object({
  id: WorkItemIdSchema,
  status: WorkItemStatusSchema.exclude(['deleted']),
  subject: z.string(),
  owner: z.string().nullable(),
  blockedBy: z.array(WorkItemIdSchema),
  blockedReason: z.string().nullable(),
});
export type WorkListEntry = z.infer<typeof WorkListEntrySchema>;

/** Counts over every item of the list, whatever the listing left out. */
export const WorkTallySchema = z.object({
  pending: z.number().int().nonnegative(),
  inProgress: z.number().int().nonnegative(),
  completed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
});
export type WorkTally = z.infer<typeof WorkTallySchema>;

export const WorkListSchema = z.object({
  listId: ListIdSchema,
  items: z.array(WorkListEntrySchema),
  tally: WorkTallySchema,
  /** Ids of stored rows that could not be read; they stay in the database and are named in the log. */
  unreadable: z.array(WorkItemIdSchema),
  /** Grows with every change to the list, from any process: a cheap "has anything changed?". */
  revision: z.number().int().nonnegative(),
});
export type WorkList = z.infer<typeof WorkListSchema>;

/** An item that a change left with no unresolved blocker. */
export const UnblockedItemSchema = z.object({ id: WorkItemIdSchema, subject: z.string() });
export type UnblockedItem = z.infer<typeof UnblockedItemSchema>;

export const WorkChangeResultSchema = z.object({
  item: WorkItemSchema,
  /** Items this change just unblocked (their every blocker is now completed or gone). */
  unblocked: z.array(UnblockedItemSchema),
  /** Workflow advice, never a refusal: two items in progress for one owner, a blocked item left in progress… */
  warnings: z.array(z.string()),
});
export type WorkChangeResult = z.infer<typeof WorkChangeResultSchema>;

// ---- The model's tools' inputs (snake_case, like Drover's other tool inputs) ----

const TaskIdInput = WorkItemIdSchema.describe('The work item id, as task_create or task_list gave it (a number)');
const SubjectInput = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(WORK_SUBJECT_MAX, `is too long (at most ${WORK_SUBJECT_MAX} characters)`);
const DescriptionInput = z
  .string()
  .max(WORK_DESCRIPTION_MAX, `is too long (at most ${WORK_DESCRIPTION_MAX} characters)`);
const ActiveFormInput = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(WORK_ACTIVE_FORM_MAX, `is too long (at most ${WORK_ACTIVE_FORM_MAX} characters)`);
const OwnerInput = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(WORK_OWNER_MAX, `is too long (at most ${WORK_OWNER_MAX} characters)`);
const IdListInput = z
  .array(WorkItemIdSchema)
  .max(WORK_EDGES_PER_CALL_MAX, `names too many items (at most ${WORK_EDGES_PER_CALL_MAX})`);

export const TaskCreateInput = z
  .object({
    subject: SubjectInput.describe('A short imperative title, like "Add the login form"'),
    description: DescriptionInput.optional().describe('What done means: the detail a worker needs (default empty)'),
    active_form: ActiveFormInput.optional().describe(
      'Present-continuous label shown while it is in progress, like "Adding the login form"',
    ),
    owner: OwnerInput.optional().describe('Who takes it (an agent or person name); omit to leave it unclaimed'),
    blocked_by: IdListInput.optional().describe('Ids of existing items that must be completed before this one'),
    blocks: IdListInput.optional().describe('Ids of existing items that must wait for this one'),
    metadata: WorkMetadataSchema.optional().describe(
      `Free key/value notes (any JSON values; at most ${WORK_METADATA_MAX_BYTES} bytes in all)`,
    ),
  })
  .strict();
export type TaskCreateArgs = z.output<typeof TaskCreateInput>;

export const TaskUpdateInput = z
  .object({
    task_id: TaskIdInput,
    subject: SubjectInput.optional().describe('A new title'),
    description: DescriptionInput.optional().describe('A new description (replaces the old one)'),
    active_form: ActiveFormInput.nullable().optional().describe('A new in-progress label; null clears it'),
    status: WorkItemStatusSchema.optional().describe(
      'pending, in_progress (mark it before you start; keep one in progress at a time), completed (right after ' +
        'finishing; never while tests fail or the work is partial) or deleted (removes it for good, and from ' +
        'every dependency list)',
    ),
    owner: OwnerInput.nullable()
      .optional()
      .describe('Claim it with your name; null releases it. An item someone else owns must be released first'),
    add_blocked_by: IdListInput.optional().describe('Ids of items that must be completed before this one'),
    add_blocks: IdListInput.optional().describe('Ids of items that must wait for this one'),
    remove_blocked_by: IdListInput.optional().describe('Ids to take out of this item\u2019s blockers'),
    remove_blocks: IdListInput.optional().describe('Ids of items that no longer wait for this one'),
    metadata: WorkMetadataSchema.optional().describe(
      'Keys to merge into the item\u2019s metadata; a key set to null is deleted, keys not named are kept',
    ),
  })
  .strict();
export type TaskUpdateArgs = z.output<typeof TaskUpdateInput>;

export const TaskListInput = z
  .object({
    include_completed: z.boolean().default(true).describe('Include completed items (default true)'),
  })
  .strict();
export type TaskListArgs = z.output<typeof TaskListInput>;

export const TaskGetInput = z.object({ task_id: TaskIdInput }).strict();
export type TaskGetArgs = z.output<typeof TaskGetInput>;
