import { DroverError } from '../../shared/ipc/errors.js';
import {
  BUDGET_DEFAULTS,
  SLEEP_DEFAULTS,
  SLEEP_NO_CAP,
  type Settings,
  type SettingsUpdate,
} from '../../shared/schemas/settings.js';

/** Rules across settings fields: what is in force when one field stands in for another, or two must agree. */

/**
 * The sleep tool's bounds as they will be in force (defaults included): the shortest sleep may not
 * be longer than the longest per call. Named by the field the change set.
 */
export function checkSleepBounds(next: Settings, change: SettingsUpdate): void {
  const min = next.sleep?.minSeconds ?? SLEEP_DEFAULTS.minSeconds;
  const max = next.sleep?.maxSeconds ?? SLEEP_DEFAULTS.maxSeconds;
  if (max === SLEEP_NO_CAP || min <= max) return;
  const path = change.sleep?.maxSeconds !== undefined ? 'sleep.maxSeconds' : 'sleep.minSeconds';
  throw new DroverError(
    'invalid_input',
    `${path}: the shortest sleep (${min} s) may not be longer than the longest per call (${max} s)`,
    { path },
  );
}

/**
 * The budget for unattended turns in force. `agent.maxWakesPerSession`, the cap on wake-ups from
 * before the budget, is read as the turn limit when `budget.turns` is not set (at least 1).
 */
export function budgetLimits(settings: Settings): { turns: number; tokens: number } {
  const legacy = settings.agent?.maxWakesPerSession;
  return {
    turns: settings.budget?.turns ?? (legacy === undefined ? BUDGET_DEFAULTS.turns : Math.max(1, legacy)),
    tokens: settings.budget?.tokens ?? BUDGET_DEFAULTS.tokens,
  };
}
