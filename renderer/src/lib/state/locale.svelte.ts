import { warmIntl } from '@shared/domain/intl-warm.js';
import { whenIdleAfter, type IdleScope } from '../idle.js';

/**
 * Whether the page writes dates and numbers in the person's locale yet (issue 18: opening a big
 * session). The first Intl formatter a page makes reads the locale's data in: 20 to 40 ms of its
 * main thread in a new browser profile, a tenth of a first open on a 2-core machine, and nothing
 * else on the first screen needs it. So the first screen is built without it: until the locale
 * is in, format.ts writes a time as nothing and a count without its grouping, and each shows in
 * full the moment the locale is in, as the components that wrote them read this state.
 */
let ready = $state(false);

/** Whether format.ts may use the locale's formatters: read while rendering, it renders again once they may. */
export function localeReady(): boolean {
  return ready;
}

/** Makes the page's formatters (reading the locale's data in, unless a worker of the page did) and lets them be used. */
export function loadLocale(): void {
  if (ready) return;
  warmIntl();
  ready = true;
}

/** How long after the first screen the page waits for an idle moment before it loads the locale anyway. */
const IDLE_TIMEOUT_MS = 500;

/**
 * Loads the locale at the page's first idle moment after `firstScreen`, or as soon as
 * `warmedElsewhere` resolves: a worker that read the data in (boot.ts, where cores are to spare)
 * leaves the page's own formatters well under a millisecond, and its times then show with the
 * first screen itself.
 */
export function loadLocaleAfter(
  firstScreen: Promise<unknown>,
  warmedElsewhere: Promise<unknown> | null,
  scope?: IdleScope,
): void {
  void warmedElsewhere?.then(loadLocale, () => undefined);
  whenIdleAfter(firstScreen, loadLocale, IDLE_TIMEOUT_MS, scope);
}
