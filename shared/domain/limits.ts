/*
 * Limits the schemas enforce and the renderer's first screen shows, here without the schemas
 * (zod-free) so that screen does not pay for building them (issue 18). The schema modules
 * re-export them.
 */

/** The longest message text. */
export const MESSAGE_TEXT_MAX = 100_000;
/** The longest session title. */
export const TITLE_MAX = 200;
/** At most this many refusals are kept per task (the first ones: later repeats add nothing). */
export const SANDBOX_REFUSALS_MAX = 20;
