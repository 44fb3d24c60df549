import { z } from 'zod';
import { IdSchema } from './session.js';

/** Share of a budget at which the person is told it is running out. */
export const BUDGET_WARN_SHARE = 0.8;

/** A session's budget for unattended turns, as used so far. */
export const BudgetStateSchema = z.object({
  sessionId: IdSchema,
  turnsUsed: z.number().int().nonnegative(),
  turnsMax: z.number().int().positive(),
  tokensUsed: z.number().int().nonnegative(),
  tokensMax: z.number().int().positive(),
  /** At 80 % of either: the person has been told. */
  warned: z.boolean(),
  /** Either is spent: unattended turns stop (schedules stay, waiting) until the person resumes or raises it. */
  spent: z.boolean(),
});
export type BudgetState = z.infer<typeof BudgetStateSchema>;

/** A count as the budget shows it: 1.2M, 40k, 900. */
export function compactCount(count: number): string {
  if (count >= 1_000_000) return `${Number((count / 1_000_000).toFixed(1))}M`;
  if (count >= 1000) return `${Math.round(count / 1000)}k`;
  return String(count);
}
