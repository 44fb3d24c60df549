import type { TaskRow } from '../../shared/schemas/task.js';
import type { TaskPool } from '../pool/pool.js';
import { fence } from './fence.js';
import { sandboxNote } from './task-words.js';
import { omittedNote, readInlineOutput } from './inline-output.js';

/**
 * A task's output as the model reads it: read from the log on disk, which holds every byte (so
 * the note can count the whole of it), fenced as untrusted data.
 */
export async function fencedOutput(pool: TaskPool, row: TaskRow, tailLines?: number): Promise<string> {
  const shown = await readInlineOutput(row.logPath, pool.policy.persistedReadBytes, tailLines);
  return `${sandboxNote(row)}${omittedNote(shown, row.logPath)}${fence(shown.text, row.id)}`;
}
