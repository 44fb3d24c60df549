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
  const told: (string | null)[] = [];
  const reopened: string[] = [];
  const budget = new UnattendedBudget(db, {
    limits: () => limits,
    changed: (state, crossed) => {
      changes.push(state);
      told.push(crossed);
    },
    note: (_sessionId, text) => notes.push(text),
    reopened: (sessionId) => reopened.push(sessionId),
  });
  return { db, budget, notes, changes, limits, reopened, told };
}

describe('the budget for unattended turns', () => {
  it('counts turns, tells the person once at 80 % and once when spent, then allows none until resumed', () => {
    const { budget, notes, changes, told } = setup();
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
    // The desktop is notified at these two changes only.
    expect(told).toEqual([null, null, null, 'warned', 'spent']);
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

  it('limits changed in settings: raised, it opens and tells again when it runs low; lowered below use, it tells at once', () => {
    const { budget, notes, changes, limits, reopened } = setup();
    for (let i = 0; i < 5; i++) budget.spendTurn('s1');
    budget.spendTurn('s2');
    expect(notes).toHaveLength(2);
    expect(budget.state('s1').spent).toBe(true);

    limits.turns = 10;
    changes.length = 0;
    budget.limitsChanged(['s1', 's2', 's3']);
    expect(budget.state('s1')).toMatchObject({ spent: false, warned: false, turnsMax: 10 });
    expect(reopened).toEqual(['s1']);
    // Every session hears of the new limits (the header's chip), those without use too.
    expect(changes.map((state) => [state.sessionId, state.turnsMax]).sort()).toEqual([
      ['s1', 10],
      ['s2', 10],
      ['s3', 10],
    ]);
    expect(notes).toHaveLength(2);
    // Re-armed: 80 % and spent are told again.
    for (let i = 0; i < 3; i++) budget.spendTurn('s1');
    expect(notes[2]).toMatch(/^80 % .*\(8 of 10 turns/);
    budget.spendTurn('s1');
    budget.spendTurn('s1');
    expect(notes[3]).toMatch(/is spent \(10 of 10 turns/);

    // Lowered below what s2 used: it is spent now, and told so at once; s1 stays spent, told once.
    limits.turns = 1;
    budget.limitsChanged(['s1', 's2', 's3']);
    expect(notes.slice(4)).toEqual([expect.stringMatching(/is spent \(1 of 1 turns/)]);
    expect(budget.state('s2').spent).toBe(true);
    expect(reopened).toEqual(['s1']);
  });

  it('resume always lets what waited run', () => {
    const { budget, reopened } = setup({ turns: 1, tokens: 10_000 });
    budget.resume('s1');
    budget.spendTurn('s1');
    budget.resume('s1');
    expect(reopened).toEqual(['s1', 's1']);
  });

  it('goes with a deleted session', () => {
    const { db, budget } = setup();
    budget.spendTurn('s1');
    new SessionsRepo(db).delete('s1');
    expect(db.prepare('SELECT count(*) AS n FROM session_budgets').get()).toEqual({ n: 0 });
  });
});
