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

export { compactCount } from '../domain/budget-notice.js';
