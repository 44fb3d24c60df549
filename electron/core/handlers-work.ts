import type { DroverContract } from '../../shared/contract.js';
import type { Handlers } from '../ipc/router.js';
import type { Checklists } from '../checklist/checklist.js';
import type { WorkLedger } from '../work/work-ledger.js';

type WorkHandlers = Pick<
  Handlers<DroverContract>,
  | 'listWorkItems'
  | 'createWorkItem'
  | 'getWorkItem'
  | 'updateWorkItem'
  | 'deleteWorkItem'
  | 'getTodos'
  | 'putTodos'
  | 'editTodo'
>;

export interface WorkHandlerDeps {
  /** The ledger, opened on first use; throws why it cannot be. */
  ledger: () => WorkLedger;
  checklists: Checklists;
  requireSession: (id: string) => void;
  /** The session's list: its id, or the shared list DROVER_WORK_LIST_ID names. */
  listOf: (sessionId: string) => string;
  /** Announces a change this process made to a list. */
  changed: (listId: string) => void;
  /** A client reads this list: changes other processes make to it are announced for a while. */
  watch: (listId: string) => void;
}

/** Work items and the checklist for the UI and REST: the same rules the model's tools reach. */
export function workHandlers(d: WorkHandlerDeps): WorkHandlers {
  const { checklists } = d;
  const ledger = { get: () => d.ledger() };
  const changed = <T>(listId: string, result: T): T => {
    d.changed(listId);
    return result;
  };
  return {
    listWorkItems: ({ listId, sessionId, includeCompleted }) => {
      if (sessionId !== undefined) d.requireSession(sessionId);
      const list = listId ?? d.listOf(sessionId!);
      d.watch(list);
      return ledger.get().list(list, includeCompleted === undefined ? {} : { include_completed: includeCompleted });
    },
    createWorkItem: ({ listId, activeForm, blockedBy, ...rest }) =>
      changed(listId, ledger.get().create(listId, { ...rest, active_form: activeForm, blocked_by: blockedBy })),
    getWorkItem: ({ listId, itemId }) => ledger.get().get(listId, itemId),
    updateWorkItem: ({ listId, itemId, activeForm, addBlockedBy, addBlocks, removeBlockedBy, removeBlocks, ...rest }) =>
      changed(
        listId,
        ledger.get().update(listId, {
          ...rest,
          task_id: itemId,
          active_form: activeForm,
          add_blocked_by: addBlockedBy,
          add_blocks: addBlocks,
          remove_blocked_by: removeBlockedBy,
          remove_blocks: removeBlocks,
        }),
      ),
    deleteWorkItem: ({ listId, itemId }) => changed(listId, ledger.get().delete(listId, itemId)),
    getTodos: ({ sessionId }) => {
      d.requireSession(sessionId);
      return checklists.get(sessionId);
    },
    putTodos: ({ sessionId, items }) => {
      d.requireSession(sessionId);
      const { checklist, notes } = checklists.write(sessionId, items, 'person');
      return { checklist, notes: [...notes] };
    },
    editTodo: ({ sessionId, action, content }) => {
      d.requireSession(sessionId);
      const result =
        action === 'completeAll'
          ? checklists.completeAll(sessionId)
          : action === 'complete'
            ? checklists.complete(sessionId, content!)
            : checklists.remove(sessionId, content!);
      return { checklist: result.checklist, notes: [...result.notes] };
    },
  };
}
