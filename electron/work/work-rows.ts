import { z } from 'zod';
import { DroverError } from '../../shared/ipc/errors.js';
import {
  ListIdSchema,
  WORK_METADATA_MAX_BYTES,
  WorkItemIdSchema,
  WorkMetadataSchema,
  type WorkItem,
  type WorkItemId,
  type WorkMetadata,
} from '../../shared/schemas/work.js';
import { issuePath } from '../../shared/ipc/errors.js';
import { TimestampSchema } from '../store/rows.js';

/** A stored status: `deleted` is never stored, the row is removed instead. */
export const StoredWorkStatusSchema = z.enum(['pending', 'in_progress', 'completed']);
export type StoredWorkStatus = z.infer<typeof StoredWorkStatusSchema>;

/** Stored metadata is JSON text of an object; anything else makes its row unreadable, never guessed at. */
const StoredMetadataSchema = z.string().transform((text, ctx): WorkMetadata => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
    return z.NEVER;
  }
  const parsed = WorkMetadataSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` (at ${issuePath(issue.path)})` : '';
    ctx.addIssue({ code: 'custom', message: `is not a JSON object of notes${where}` });
    return z.NEVER;
  }
  return parsed.data;
});

/** The columns a list line needs: a row whose other columns are damaged can still be named. */
export const WorkLineRowSchema = z.object({
  id: WorkItemIdSchema,
  subject: z.string(),
  status: StoredWorkStatusSchema,
  owner: z.string().nullable(),
  blocked_reason: z.string().nullable(),
});

export const WorkItemRowSchema = WorkLineRowSchema.extend({
  list_id: ListIdSchema,
  description: z.string(),
  active_form: z.string().nullable(),
  metadata: StoredMetadataSchema,
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type WorkItemRow = z.output<typeof WorkItemRowSchema>;

/** The raw row as SQLite gives it, before any check. */
export interface RawWorkItemRow {
  list_id: unknown;
  id: unknown;
  subject: unknown;
  description: unknown;
  active_form: unknown;
  status: unknown;
  owner: unknown;
  metadata: unknown;
  blocked_reason: unknown;
  created_at: unknown;
  updated_at: unknown;
}

/** A stored item that no longer fits its schema: named by list and id, kept as it is, never guessed at. */
export function unreadableItem(listId: string, id: unknown, error: z.ZodError): DroverError {
  const issue = error.issues[0];
  const where = issue ? `${issuePath(issue.path)}: ${issue.message}` : 'invalid';
  // 'unavailable', not 'internal': the person can act on it (delete the item), and it is named for them.
  return new DroverError(
    'unavailable',
    `Unreadable work item ${String(id)} in list ${listId}: ${where}. It is kept in the database as it is ` +
      '(deleting it still works); the other items are unaffected.',
    { path: 'task_id' },
  );
}

export function parseItemRow(listId: string, row: RawWorkItemRow): WorkItemRow {
  const parsed = WorkItemRowSchema.safeParse(row);
  if (!parsed.success) throw unreadableItem(listId, row.id, parsed.error);
  return parsed.data;
}

export function toWorkItem(
  row: WorkItemRow,
  edges: { blockedBy: WorkItemId[]; blocks: WorkItemId[] },
  status: WorkItem['status'] = row.status,
): WorkItem {
  return {
    id: row.id,
    listId: row.list_id,
    subject: row.subject,
    description: row.description,
    activeForm: row.active_form,
    status,
    owner: row.owner,
    blockedBy: edges.blockedBy,
    blocks: edges.blocks,
    metadata: row.metadata,
    blockedReason: row.blocked_reason,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** What a deleted item whose row was damaged is answered as: what can be read of it, the rest empty. */
export function salvagedDeletion(listId: string, raw: RawWorkItemRow, now: number): WorkItem {
  const id = Number(raw.id);
  const at = new Date(now).toISOString();
  return {
    id,
    listId,
    subject: typeof raw.subject === 'string' && raw.subject ? raw.subject : `(unreadable item ${id})`,
    description: '',
    activeForm: null,
    status: 'deleted',
    owner: null,
    blockedBy: [],
    blocks: [],
    metadata: {},
    blockedReason: null,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * Merges `patch` into `current`: a key set to null is deleted, keys not named are kept, new keys
 * come after the old ones. Built through a Map, so no key (not even "__proto__") can reach a prototype.
 */
export function mergeMetadata(current: WorkMetadata, patch: WorkMetadata): WorkMetadata {
  const merged = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  }
  return Object.fromEntries(merged);
}

/** The merged metadata as stored text, refused (naming the field) when it passes the bound. */
export function metadataText(metadata: WorkMetadata): string {
  const text = JSON.stringify(metadata);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > WORK_METADATA_MAX_BYTES)
    throw new DroverError(
      'invalid_input',
      `Invalid input: metadata: would take ${bytes} bytes once merged, more than the ${WORK_METADATA_MAX_BYTES} allowed ` +
        '(set keys to null to delete them)',
      { path: 'metadata', issues: [{ path: 'metadata', message: `more than ${WORK_METADATA_MAX_BYTES} bytes` }] },
    );
  return text;
}
