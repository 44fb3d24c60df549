/* Zod-free, so the renderer's first screen does not build the todo schemas (issue 18); schemas/todos.ts re-exports it. */

/**
 * How items are matched across writes (the person's sticky edits, dropped items): the content
 * with its ends trimmed, runs of white space made one space, compatibility forms folded (NFKC)
 * and case ignored. "Run  tests" and "run tests" are the same item.
 */
export function todoKey(content: string): string {
  return content.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}
