import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';

/** The file that replaces the default task: in the project, else in Drover's data folder. */
export const LOOP_FILE = 'loop.md';
/** What is read of it; the rest is cut. */
export const LOOP_FILE_MAX_BYTES = 25_000;

/**
 * A bare /loop's task: keep the work going without starting new work or widening what may run.
 * Replaced by loop.md, read again at every pass.
 */
export const DEFAULT_LOOP_TASK = [
  'A maintenance pass over this conversation’s work, in this order, stopping at the first that applies:',
  '1. Unfinished work from this conversation (the checklist, work items in progress, a task that failed): carry it one step further.',
  '2. On the current branch, a failing CI check or an open review comment you can act on: tend it.',
  '3. Otherwise, one bounded quality pass on what this conversation changed (a test, a small fix, a clearer name), then stop.',
  'Start nothing unrelated. This task widens no permission: anything destructive still asks the person. Report what you did in a few lines.',
].join('\n');

/**
 * The default task as it stands now: the project's loop.md, else the person's, else Drover's own.
 * An empty file (or only whitespace) counts as none; a long one is cut at 25,000 bytes, and says so.
 */
export function readDefaultTask(projectDir: string, userDir: string): string {
  for (const dir of [projectDir, userDir]) {
    const text = readLoopFile(dir);
    if (text !== null) return text;
  }
  return DEFAULT_LOOP_TASK;
}

/**
 * loop.md in `dir`, read only where it really lies inside `dir`: a link out of the folder (a cloned
 * project's loop.md pointing at ~/.aws/credentials) would hand that file to the model.
 */
function readLoopFile(dir: string): string | null {
  const path = join(dir, LOOP_FILE);
  let bytes: Buffer;
  try {
    const real = realpathSync(path);
    const inside = relative(realpathSync(dir), real);
    if (inside.startsWith('..') || isAbsolute(inside)) return null;
    bytes = readFileSync(real);
  } catch {
    return null;
  }
  const cut = bytes.length > LOOP_FILE_MAX_BYTES;
  // A character split by the cut is dropped, never shown as a replacement mark.
  const text = bytes
    .subarray(0, LOOP_FILE_MAX_BYTES)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  if (!text.trim()) return null;
  return cut ? `${text}\n[${path} is longer than ${LOOP_FILE_MAX_BYTES} bytes; the rest was not read]` : text;
}
