/** A task's log and a full disk: the task keeps running, and its row says what its log misses. */
import type { Live } from './live-task.js';
import type { DiskReporter } from './pool-types.js';
import { noteLogDamage, noteLogGap } from './record-changes.js';
import type { TaskLog, TaskLogOptions } from './task-log.js';
import type { TaskRecord } from './task-record.js';

/** What a task's log does when its disk fills: the disk watch is told, and the row says where the log stopped. */
export function logRoomHooks(
  live: Live,
  disk: DiskReporter | undefined,
  folder: string,
  save: (record: TaskRecord) => void,
): TaskLogOptions {
  return {
    noRoom(error) {
      if (!disk?.noteFailure(error)) return false;
      // Where the log stopped is known once the failing write is over.
      setImmediate(() => {
        if (!live.log || live.settling) return;
        noteLogGap(live.record, folder, live.log);
        save(live.record);
      });
      return true;
    },
  };
}

/** Room is back: every waiting log is written again from here, and its row records the gap. */
export function resumeLogs(lives: Iterable<Live>, folder: string, save: (record: TaskRecord) => void): void {
  for (const live of lives) {
    if (!live.log || live.settling || !live.log.resume()) continue;
    noteLogGap(live.record, folder, live.log);
    save(live.record);
  }
}

/** At a task's end: what its log misses, for lack of room or because someone removed or cut it. */
export function noteLogAtEnd(record: TaskRecord, folder: string, log: TaskLog): void {
  if (log.waitingSince !== null || log.missedBytes > 0) noteLogGap(record, folder, log, true);
  else noteLogDamage(record, log.damage());
}
