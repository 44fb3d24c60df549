import type { BudgetState } from '../schemas/budget.js';

/** A count as the budget shows it: 1.2M, 40k, 900. */
export function compactCount(count: number): string {
  if (count >= 1_000_000) return `${Number((count / 1_000_000).toFixed(1))}M`;
  if (count >= 1000) return `${Math.round(count / 1000)}k`;
  return String(count);
}

/** What the budget told the person as it changed: 80 % used, or spent. */
export type BudgetTold = 'warned' | 'spent';

/**
 * The desktop notification for a budget that just crossed 80 % or ran out, the same in the
 * browser and in Electron: "Unattended budget spent" / "“Deploy watch” · 50 of 50 turns, 1.2M of 2M tokens used…".
 */
export function budgetNotice(
  state: BudgetState,
  told: BudgetTold,
  sessionTitle: string | null,
): { title: string; body: string } {
  const where = sessionTitle ? `“${sessionTitle}”` : 'A session';
  const used = `${state.turnsUsed} of ${state.turnsMax} turns, ${compactCount(state.tokensUsed)} of ${compactCount(state.tokensMax)} tokens used`;
  return told === 'spent'
    ? {
        title: 'Unattended budget spent',
        body: `${where} · ${used}. Wake-ups, loops and schedules wait until you resume it.`,
      }
    : { title: 'Unattended budget at 80 %', body: `${where} · ${used}.` };
}
