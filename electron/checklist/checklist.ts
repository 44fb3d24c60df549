import { z } from 'zod';
import { DroverError, invalidInput, notFound } from '../../shared/ipc/errors.js';
import { TodoListSchema, type Checklist, type ChecklistAuthor, type TodoItem } from '../../shared/schemas/todos.js';
import { reportToConsole, type UnreadableRowReport } from '../store/rows.js';
import type { ChecklistStore, StoredChecklist } from '../store/checklist-repo.js';
import {
  applyModelWrite,
  applyPersonWrite,
  personComplete,
  personCompleteAll,
  personRemove,
  type ChecklistOutcome,
} from './checklist-rules.js';
import { sameState, visiblyDifferent, type ChecklistState } from './checklist-state.js';

export interface Clock {
  now(): number;
}

export interface ChecklistsOptions {
  clock?: Clock;
  /** Where a damaged stored checklist is named (once per problem per process); the composition root's log. */
  report?: UnreadableRowReport;
}

export interface ChecklistWriteResult {
  /** The checklist as it now stands (what clients are shown). */
  readonly checklist: Checklist;
  /**
   * For the model, never the person. A write of the model's: todo_write's answer (pushback, the
   * person's edits it must respect, attribution). A person's edit: what it queued for the model.
   */
  readonly notes: readonly string[];
  /** True when this edit emptied the list. */
  readonly cleared: boolean;
}

export interface ChecklistChange {
  readonly sessionId: string;
  readonly checklist: Checklist;
  readonly by: ChecklistAuthor;
}

export type ChecklistListener = (change: ChecklistChange) => void;

const ItemsInput = z.object({ items: TodoListSchema });

/**
 * Every session's checklist (todo_write, issue #15): the one writer of its table. Each edit is
 * one transaction (read, apply the rules in checklist-rules.ts, save); listeners hear of every
 * change that clients would see, after it is stored.
 */
export class Checklists {
  readonly #store: ChecklistStore;
  readonly #clock: Clock;
  readonly #report: UnreadableRowReport;
  readonly #listeners = new Set<ChecklistListener>();
  readonly #reported = new Set<string>();

  constructor(store: ChecklistStore, options: ChecklistsOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? Date;
    this.#report = options.report ?? reportToConsole;
  }

  /** The session's checklist; empty (updatedAt null) when it never had one. */
  get(sessionId: string): Checklist {
    const stored = this.#read(sessionId);
    return toChecklist(stored.state, stored.updatedAt);
  }

  /**
   * Replaces the list. `by: 'model'` is todo_write (the person's edits stick; the answer's notes
   * push back on sloppy use); `by: 'person'` is the person's whole list (REST PUT), recorded as
   * the person's edits.
   */
  write(sessionId: string, items: readonly TodoItem[], by: ChecklistAuthor): ChecklistWriteResult {
    const parsed = ItemsInput.safeParse({ items });
    if (!parsed.success) throw invalidInput('input', parsed.error);
    const list = parsed.data.items;
    return this.#change(sessionId, by, (state) =>
      by === 'model' ? applyModelWrite(state, list) : applyPersonWrite(state, list),
    );
  }

  /** The person marks one item completed (matched by content, as todoKey sees it). */
  complete(sessionId: string, content: string): ChecklistWriteResult {
    return this.#change(sessionId, 'person', (state) => personComplete(state, content) ?? noItem(content));
  }

  /** The person removes one item; the model may not add it back while this plan lasts. */
  remove(sessionId: string, content: string): ChecklistWriteResult {
    return this.#change(sessionId, 'person', (state) => personRemove(state, content) ?? noItem(content));
  }

  /** The person marks the whole plan done (the manager's "a"); the list clears. */
  completeAll(sessionId: string): ChecklistWriteResult {
    return this.#change(sessionId, 'person', personCompleteAll);
  }

  /**
   * The notes about the person's edits that the model has not been told yet, removed as they are
   * taken: for an agent that tells the model at the start of its next turn rather than waiting
   * for its next todo_write (which would otherwise carry them).
   */
  takeNotesForModel(sessionId: string): string[] {
    return this.#store.transaction(() => {
      const stored = this.#read(sessionId);
      const notes = [...stored.state.notesForModel];
      if (notes.length > 0)
        this.#store.save(sessionId, { ...stored.state, notesForModel: [] }, stored.updatedAt ?? this.#clock.now());
      return notes;
    });
  }

  /** Hears of every change clients would see; returns the way to stop listening. */
  onChange(listener: ChecklistListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #change(
    sessionId: string,
    by: ChecklistAuthor,
    decide: (state: ChecklistState) => ChecklistOutcome,
  ): ChecklistWriteResult {
    const { result, visible } = this.#store.transaction(() => {
      const stored = this.#read(sessionId);
      const outcome = decide(stored.state);
      const visible = visiblyDifferent(stored.state, outcome.state);
      let updatedAt = stored.updatedAt;
      // A write that changes nothing stored (an identical resend) is not saved or announced; a
      // damaged row is replaced by the first edit that reads it.
      if (!sameState(stored.state, outcome.state) || stored.problems.length > 0) {
        if (visible || updatedAt === null) updatedAt = this.#clock.now();
        this.#store.save(sessionId, outcome.state, updatedAt);
      }
      const result: ChecklistWriteResult = {
        checklist: toChecklist(outcome.state, updatedAt),
        notes: [...outcome.notes],
        cleared: outcome.cleared,
      };
      return { result, visible };
    });
    if (visible) this.#emit({ sessionId, checklist: result.checklist, by });
    return result;
  }

  #read(sessionId: string): StoredChecklist {
    const stored = this.#store.read(sessionId);
    if (!stored) throw notFound('session', sessionId);
    for (const problem of stored.problems) {
      if (this.#reported.has(problem)) continue;
      this.#reported.add(problem);
      this.#report(problem);
    }
    return stored;
  }

  #emit(change: ChecklistChange): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (error) {
        // A listener's failure must not undo or hide a stored change from the others.
        this.#report(`A checklist listener failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

function noItem(content: string): never {
  throw new DroverError('not_found', `The checklist holds no item ${JSON.stringify(content)}`, { path: 'content' });
}

function toChecklist(state: ChecklistState, updatedAt: number | null): Checklist {
  return {
    items: state.items.map((item) => ({ ...item })),
    removedByPerson: [...state.removedByPerson],
    completedByPerson: [...state.completedByPerson],
    updatedAt: updatedAt === null ? null : new Date(updatedAt).toISOString(),
  };
}
