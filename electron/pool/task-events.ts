import { DroverError } from '../../shared/ipc/errors.js';
import { EVENTS_DEFAULT_BYTES } from '../../shared/schemas/task.js';
import { readDelta } from './delta-read.js';
import type { TaskPool } from './pool.js';
import { renderTerminalText } from './terminal-text.js';

export interface TaskEvents {
  /** The new output as a person would read it (escape sequences and redraws resolved). */
  text: string;
  /** Where this read started (the asked offset, moved past a character or sequence it fell inside). */
  fromOffset: number;
  /** Where the next read starts. */
  nextOffset: number;
  logSize: number;
  /** More output is waiting past nextOffset. */
  more: boolean;
}

/**
 * A delta read of a task's log (monitor_events). Without `fromOffset` it reads from the task's
 * stored offset and moves it on; with one it reads once from there and leaves the stored offset
 * alone. Whole characters and escape sequences only.
 */
export function readTaskEvents(
  pool: TaskPool,
  sessionId: string,
  taskId: string,
  options: { fromOffset?: number | undefined; maxBytes?: number | undefined },
): Promise<TaskEvents> {
  if (options.fromOffset !== undefined) return readOnce(pool, sessionId, taskId, options);
  // Reads that move the stored offset take turns (a model may call the tool twice in one step):
  // each starts where the last one ended, so nothing is read twice and the offset never goes back.
  const key = `${sessionId}/${taskId}`;
  const read = (storedReads.get(key) ?? Promise.resolve()).then(() => readOnce(pool, sessionId, taskId, options));
  const settled = read.then(
    () => undefined,
    () => undefined,
  );
  storedReads.set(key, settled);
  void settled.then(() => {
    if (storedReads.get(key) === settled) storedReads.delete(key);
  });
  return read;
}

/** The stored-offset read in flight per task, so the next one waits for it. */
const storedReads = new Map<string, Promise<void>>();

async function readOnce(
  pool: TaskPool,
  sessionId: string,
  taskId: string,
  options: { fromOffset?: number | undefined; maxBytes?: number | undefined },
): Promise<TaskEvents> {
  const row = pool.row(sessionId, taskId);
  const stored = options.fromOffset === undefined;
  const read = await readDelta(
    row.logPath,
    options.fromOffset ?? row.eventOffset,
    options.maxBytes ?? EVENTS_DEFAULT_BYTES,
    !row.running && row.status !== 'queued',
  );
  if (!stored && options.fromOffset! > read.size)
    throw new DroverError(
      'invalid_input',
      `Invalid input: fromOffset: ${options.fromOffset} is past the end of the log (${read.size} bytes)`,
      { path: 'fromOffset' },
    );
  if (stored) pool.setEventOffset(sessionId, taskId, read.next);
  return {
    text: await renderTerminalText(read.bytes),
    fromOffset: read.from,
    nextOffset: read.next,
    logSize: read.size,
    more: read.next < read.size,
  };
}
