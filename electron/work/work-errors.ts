import { DroverError } from '../../shared/ipc/errors.js';
import { ListIdSchema, type WorkItemId } from '../../shared/schemas/work.js';

/** The ledger's refusals, worded once: each names the field the model or the REST caller sent. */

export function invalidField(path: string | undefined, message: string): DroverError {
  if (path === undefined) return new DroverError('invalid_input', `Invalid input: ${message}`);
  return new DroverError('invalid_input', `Invalid input: ${path}: ${message}`, {
    path,
    issues: [{ path, message }],
  });
}

/** A list id from a session, the environment (DROVER_WORK_LIST_ID) or a URL: checked where it enters. */
export function checkListId(listId: string): void {
  const parsed = ListIdSchema.safeParse(listId);
  if (!parsed.success) throw invalidField('list_id', parsed.error.issues[0]?.message ?? 'is not a list id');
}

/** An item the call names as its subject: gone (deleted, its id stays spent) or never given. */
export function itemNotFound(listId: string, id: WorkItemId, deleted: boolean, path = 'task_id'): DroverError {
  const message = deleted
    ? `Work item ${id} in list ${listId} was deleted`
    : `No work item ${id} in list ${listId} (ids are given from 1 by task_create; task_list shows them)`;
  return new DroverError('not_found', message, { path });
}

/** An item a call names in one of its fields (an edge to add): the field is what is wrong. */
export function unknownItemIn(path: string, listId: string, id: WorkItemId, deleted: boolean): DroverError {
  return invalidField(
    path,
    deleted ? `item ${id} in list ${listId} was deleted` : `item ${id} does not exist in list ${listId}`,
  );
}

export function conflict(path: string, message: string): DroverError {
  return new DroverError('conflict', message, { path });
}
