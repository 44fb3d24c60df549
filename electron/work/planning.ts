import type { Database } from 'better-sqlite3';
import type { DroverContract } from '../../shared/contract.js';
import { ListIdSchema } from '../../shared/schemas/work.js';
import type { EventBus } from '../core/event-bus.js';
import { WORK_LIST_VARIABLE } from '../agent/work-tools.js';
import { Checklists } from '../checklist/checklist.js';
import { ChecklistRepo } from '../store/checklist-repo.js';
import { LedgerAccess } from './ledger-access.js';
import { WorkWatch } from './work-watch.js';

/**
 * The planning services as the composition root wires them: the work ledger (its own database,
 * shared by every process that names the list), which list a session uses, the watch that
 * announces other processes' changes, and the checklist.
 */
export class Planning {
  readonly ledger: LedgerAccess;
  readonly checklists: Checklists;
  readonly watch: WorkWatch;
  readonly #stopChecklistEvents: () => void;
  readonly #sharedList: string | null;

  constructor(deps: {
    dataDir: string;
    sqliteBinding?: string | undefined;
    db: Database;
    bus: EventBus<DroverContract>;
    env: NodeJS.ProcessEnv;
    warn: (message: string) => void;
  }) {
    const { bus, warn } = deps;
    this.ledger = new LedgerAccess(deps.dataDir, deps.sqliteBinding ? { nativeBinding: deps.sqliteBinding } : {});
    this.checklists = new Checklists(new ChecklistRepo(deps.db));
    this.#stopChecklistEvents = this.checklists.onChange(({ sessionId, checklist, by }) =>
      bus.emit('todosChanged', { sessionId, checklist, by }),
    );
    // A shared list named in the environment; a name the ledger cannot take is said once and not used.
    const shared = deps.env[WORK_LIST_VARIABLE]?.trim() || null;
    const problem = shared && ListIdSchema.safeParse(shared).error?.issues[0]?.message;
    if (problem) warn(`${WORK_LIST_VARIABLE}="${shared}" is not used (it ${problem}); each session keeps its own list`);
    this.#sharedList = problem ? null : shared;
    // Changes to the lists clients read are announced, this process's at once, other processes' within 2 s.
    this.watch = new WorkWatch({
      ledger: () => this.ledger.get(),
      emit: (listId, revision) => bus.emit('workItemsChanged', { listId, revision }),
      log: warn,
    });
  }

  /** The list a session's work items are in: its own, or the shared one. */
  listOf = (sessionId: string): string => this.#sharedList ?? sessionId;

  /** Announces a change this process made to a list. */
  changed = (listId: string): void => this.watch.changed(listId);

  /** A task started for a work item: the item must exist in the session's list. */
  linkItem = (sessionId: string, itemId: number): { listId: string; itemId: number } => {
    const listId = this.listOf(sessionId);
    this.ledger.get().get(listId, itemId);
    return { listId, itemId };
  };

  dispose(): void {
    this.#stopChecklistEvents();
    this.watch.dispose();
    this.ledger.close();
  }
}
