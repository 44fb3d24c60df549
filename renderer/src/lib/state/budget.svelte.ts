import type { BudgetState } from '@shared/schemas/budget.js';
import { compactCount } from '@shared/domain/budget-notice.js';
import type { DroverApi } from '../api.js';
import { errorMessage } from '../format.js';

/** A session's budget for unattended turns, as the header shows it (issue #16). */
export class SessionBudget {
  readonly #api: DroverApi;
  readonly #sessionId: string;
  #state = $state.raw<BudgetState | null>(null);
  #error = $state<string | null>(null);
  #resuming = $state(false);

  constructor(api: DroverApi, sessionId: string) {
    this.#api = api;
    this.#sessionId = sessionId;
  }

  /** Null until the first answer. */
  get state(): BudgetState | null {
    return this.#state;
  }

  get error(): string | null {
    return this.#error;
  }

  get resuming(): boolean {
    return this.#resuming;
  }

  start(): () => void {
    const off = this.#api.on('budgetChanged', ({ budget }) => {
      if (budget.sessionId === this.#sessionId) this.#state = budget;
    });
    void this.load();
    return off;
  }

  async load(): Promise<void> {
    try {
      this.#state = await this.#api.getBudget({ sessionId: this.#sessionId });
      this.#error = null;
    } catch (error) {
      this.#error = `Could not read the budget: ${errorMessage(error)}`;
    }
  }

  /** The person's Resume: the budget starts over, and what waited may run. */
  async resume(): Promise<void> {
    this.#resuming = true;
    try {
      this.#state = await this.#api.resumeBudget({ sessionId: this.#sessionId });
      this.#error = null;
    } catch (error) {
      this.#error = `Could not resume: ${errorMessage(error)}`;
    } finally {
      this.#resuming = false;
    }
  }
}

/** "38 turns · 1.9M tokens left", for the header. */
export function budgetLeft(state: BudgetState): string {
  const turns = Math.max(0, state.turnsMax - state.turnsUsed);
  const tokens = Math.max(0, state.tokensMax - state.tokensUsed);
  return `${turns} ${turns === 1 ? 'turn' : 'turns'} · ${compactCount(tokens)} tokens left`;
}
