import { describe, expect, it } from 'vitest';
import type { BudgetState } from '../../shared/schemas/budget.js';
import { UnattendedBudget } from '../../electron/agent/unattended-budget.js';
import { openDatabase } from '../../electron/store/database.js';
import { SessionsRepo } from '../../electron/store/sessions-repo.js';

function setup(limits = { turns: 5, tokens: 10_000 }) {
  const db = openDatabase(':memory:');
  new SessionsRepo(db).insert('s1', 'One', 1);
  new SessionsRepo(db).insert('s2', 'Two', 1);
  const notes: string[] = [];
  const changes: BudgetState[] = [];
  const budget = new UnattendedBudget(db, {
    limits: () => limits,
    changed: (state) => changes.push(state),
    note: (_sessionId, text) => notes.push(text),
  });
  return { db, budget, notes, changes, limits };
}

describe('the budget for unattended turns', () => {
  it('counts turns, tells the person once at 80 % and once when spent, then allows none until resumed', () => {
    const { budget, notes, changes } = setup();
    for (let i = 0; i < 3; i++) budget.spendTurn('s1');
    expect(notes).toEqual([]);
    budget.spendTurn('s1');
    expect(notes).toEqual([
      expect.stringMatching(/^80 % of this session's budget .*\(4 of 5 turns, 0 of 10k tokens\)/),
    ]);
    expect(budget.allows('s1')).toBe(true);
    budget.spendTurn('s1');
    expect(notes[1]).toMatch(/budget for unattended turns is spent \(5 of 5 turns.*wait until you resume it/);
    expect(budget.state('s1')).toMatchObject({ turnsUsed: 5, spent: true, warned: true });
    expect(budget.allows('s1')).toBe(false);
    budget.spendTurn('s1');
    expect(notes).toHaveLength(2);
    // Another session's budget is its own.
    expect(budget.allows('s2')).toBe(true);
    expect(budget.resume('s1')).toMatchObject({ turnsUsed: 0, tokensUsed: 0, warned: false, spent: false });
    expect(changes.at(-1)).toMatchObject({ sessionId: 's1', spent: false });
    budget.spendTurn('s1');
    expect(budget.state('s1').turnsUsed).toBe(1);
  });

  it('counts tokens as reported; either limit spends it; raising the limit in settings lets turns run again', () => {
    const { budget, notes, limits } = setup();
    budget.spendTurn('s2');
    budget.spendTokens('s2', 8500);
    expect(notes[0]).toMatch(/80 % .*8.5k of 10k tokens|80 % .*9k of 10k tokens/);
    budget.spendTokens('s2', 1500);
    expect(budget.state('s2')).toMatchObject({ tokensUsed: 10_000, spent: true });
    budget.spendTokens('s2', Number.NaN);
    budget.spendTokens('s2', -5);
    expect(budget.state('s2').tokensUsed).toBe(10_000);
    limits.tokens = 50_000;
    expect(budget.allows('s2')).toBe(true);
  });

  it('goes with a deleted session', () => {
    const { db, budget } = setup();
    budget.spendTurn('s1');
    new SessionsRepo(db).delete('s1');
    expect(db.prepare('SELECT count(*) AS n FROM session_budgets').get()).toEqual({ n: 0 });
  });
});
