import type { Database, Statement } from 'better-sqlite3';
import { BUDGET_WARN_SHARE, compactCount as compact, type BudgetState } from '../../shared/schemas/budget.js';
import type { BudgetTold } from '../../shared/domain/budget-notice.js';

export interface BudgetLimits {
  turns: number;
  tokens: number;
}

export interface UnattendedBudgetDeps {
  /** The limits in force (settings), read at every check. */
  limits: () => BudgetLimits;
  /** A session's budget changed (used, told, resumed); `told` when it just crossed 80 % or was spent. */
  changed: (state: BudgetState, told: BudgetTold | null) => void;
  /** Tells the person, in the session's transcript: at 80 %, and when it is spent. */
  note: (sessionId: string, text: string) => void;
  /** A spent budget has room again (resumed, or its limits raised): what waited may run. */
  reopened?: (sessionId: string) => void;
  log?: (message: string) => void;
  now?: () => number;
}

interface Row {
  turns_used: number;
  tokens_used: number;
  warned: number;
  spent_told: number;
}

/**
 * What Drover may do unattended, per session: the turns it starts on its own (wake-ups for finished
 * tasks, monitor checks, loop passes, scheduled prompts) and the tokens those turns use, counted
 * from the provider's usage reports. At 80 % of either the person is told; when either is spent,
 * no unattended turn starts (schedules stay armed and run once it is resumed) until the person
 * resumes it (it starts over) or raises the limits in settings.
 */
export class UnattendedBudget {
  readonly #deps: UnattendedBudgetDeps;
  readonly #get: Statement;
  readonly #upsert: Statement;
  readonly #reset: Statement;
  readonly #all: Statement;
  /** The limits last judged against: a settings change that moved them judges every session again. */
  #limits: BudgetLimits;

  constructor(db: Database, deps: UnattendedBudgetDeps) {
    this.#deps = deps;
    this.#get = db.prepare(
      'SELECT turns_used, tokens_used, warned, spent_told FROM session_budgets WHERE session_id = ?',
    );
    this.#upsert =
      db.prepare(`INSERT INTO session_budgets (session_id, turns_used, tokens_used, warned, spent_told, updated_at)
      VALUES (@id, @turns, @tokens, @warned, @spent, @now)
      ON CONFLICT (session_id) DO UPDATE SET turns_used = @turns, tokens_used = @tokens, warned = @warned,
        spent_told = @spent, updated_at = @now`);
    this.#reset = db.prepare('DELETE FROM session_budgets WHERE session_id = ?');
    this.#all = db.prepare('SELECT session_id, turns_used, tokens_used, warned, spent_told FROM session_budgets');
    this.#limits = { ...deps.limits() };
  }

  state(sessionId: string): BudgetState {
    return this.#stateOf(sessionId, this.#row(sessionId));
  }

  /** Whether an unattended turn may start in the session now. */
  allows(sessionId: string): boolean {
    return !this.state(sessionId).spent;
  }

  /** An unattended turn starts. */
  spendTurn(sessionId: string): void {
    const row = this.#row(sessionId);
    this.#save(sessionId, { ...row, turns_used: row.turns_used + 1 });
  }

  /** What an unattended turn used, as the provider reported it. */
  spendTokens(sessionId: string, tokens: number): void {
    if (!Number.isFinite(tokens) || tokens <= 0) return;
    const row = this.#row(sessionId);
    this.#save(sessionId, { ...row, tokens_used: row.tokens_used + Math.round(tokens) });
  }

  /** The person's "Resume": the budget starts over. */
  resume(sessionId: string): BudgetState {
    this.#reset.run(sessionId);
    const state = this.state(sessionId);
    this.#deps.changed(state, null);
    // Whatever waited (even what waited through a limit change that could not reach it) runs now.
    this.#deps.reopened?.(sessionId);
    return state;
  }

  /**
   * The limits in settings changed: every session with use is judged again. Raised above its use,
   * a spent budget opens (what waited runs) and its notes are told again when it runs low again;
   * lowered below its use, the person is told at once.
   */
  limitsChanged(sessionIds: readonly string[]): void {
    const limitsBefore = this.#limits;
    this.#limits = { ...this.#deps.limits() };
    if (limitsBefore.turns === this.#limits.turns && limitsBefore.tokens === this.#limits.tokens) return;
    const used = new Map(
      (this.#all.all() as (Row & { session_id: string })[]).map(({ session_id, ...row }) => [session_id, row]),
    );
    for (const sessionId of sessionIds) {
      // One session that cannot be told (its transcript cannot be written) never keeps the others from it.
      try {
        const row = used.get(sessionId);
        // Nothing used: only the limits its header shows changed.
        if (!row) {
          this.#deps.changed(this.state(sessionId), null);
          continue;
        }
        const wasSpent = spentUnder(row, limitsBefore);
        this.#save(sessionId, row);
        if (wasSpent && !this.state(sessionId).spent) this.#deps.reopened?.(sessionId);
      } catch (error) {
        this.#deps.log?.(`the budget of session ${sessionId} could not be judged again: ${(error as Error).message}`);
      }
    }
  }

  #row(sessionId: string): Row {
    return (this.#get.get(sessionId) as Row | undefined) ?? { turns_used: 0, tokens_used: 0, warned: 0, spent_told: 0 };
  }

  #stateOf(sessionId: string, row: Row): BudgetState {
    const limits = this.#deps.limits();
    return {
      sessionId,
      turnsUsed: row.turns_used,
      turnsMax: limits.turns,
      tokensUsed: row.tokens_used,
      tokensMax: limits.tokens,
      warned: row.warned === 1,
      spent: spentUnder(row, limits),
    };
  }

  /**
   * Stores the new use, and tells the person once when it crosses 80 % and once when it is spent;
   * each is told again after the share fell back below it (raised limits).
   */
  #save(sessionId: string, row: Row): void {
    const limits = this.#deps.limits();
    const share = Math.max(row.turns_used / limits.turns, row.tokens_used / limits.tokens);
    const warn = row.warned === 0 && share >= BUDGET_WARN_SHARE && share < 1;
    const spent = row.spent_told === 0 && share >= 1;
    const next = {
      ...row,
      warned: share < BUDGET_WARN_SHARE ? 0 : warn || spent ? 1 : row.warned,
      spent_told: share < 1 ? 0 : spent ? 1 : row.spent_told,
    };
    this.#upsert.run({
      id: sessionId,
      turns: next.turns_used,
      tokens: next.tokens_used,
      warned: next.warned,
      spent: next.spent_told,
      now: (this.#deps.now ?? Date.now)(),
    });
    const state = this.#stateOf(sessionId, next);
    const used = `${state.turnsUsed} of ${state.turnsMax} turns, ${compact(state.tokensUsed)} of ${compact(state.tokensMax)} tokens`;
    if (warn) this.#deps.note(sessionId, `80 % of this session's budget for unattended turns is used (${used}).`);
    if (spent)
      this.#deps.note(
        sessionId,
        `This session's budget for unattended turns is spent (${used}): wake-ups, loops and schedules wait until you resume it (the header's Resume) or raise it in settings.`,
      );
    this.#deps.changed(state, spent ? 'spent' : warn ? 'warned' : null);
  }
}

function spentUnder(row: Pick<Row, 'turns_used' | 'tokens_used'>, limits: BudgetLimits): boolean {
  return row.turns_used >= limits.turns || row.tokens_used >= limits.tokens;
}
