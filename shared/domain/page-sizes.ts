/**
 * Page sizes of the lists a client reads in pages. Plain numbers with no schema around them: the
 * page's first requests use them (renderer/src/boot.ts) and its first screen builds no schemas.
 */

/**
 * Messages one page of the transcript holds. A session opens on its newest page and loads older
 * ones as the reader scrolls up; the id is the cursor (ids only grow, so a page never shifts).
 */
export const MESSAGE_PAGE_DEFAULT = 40;
export const MESSAGE_PAGE_MAX = 500;
/**
 * The page a transcript opens on: a screenful and more (a tall window shows about 15 messages),
 * half of a later page, so a session with a long history is shown sooner. Older pages follow as
 * the reader scrolls up, or at once when these few do not fill the view.
 */
export const MESSAGE_FIRST_PAGE = 20;

/** Finished rows one page holds: the first screen shows about 14, so 50 leave room to scroll. */
export const FINISHED_PAGE_DEFAULT = 50;
export const FINISHED_PAGE_MAX = 500;
