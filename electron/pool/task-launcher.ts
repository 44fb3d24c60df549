import { DroverError } from '../../shared/ipc/errors.js';
import type { TaskKind } from '../../shared/schemas/task.js';
import { formatMark, markFor } from '../process/identity.js';
import { appendOutput, type Live, type OutputTicks } from './live-task.js';
import { logRoomHooks } from './log-room.js';
import type { PoolOptions } from './pool-types.js';
import { recordStart } from './record-changes.js';
import { StartError } from './runner.js';
import type { TaskEndings } from './task-endings.js';
import { TaskLog } from './task-log.js';
import type { TaskRecord } from './task-record.js';
import type { TaskSignals } from './task-signals.js';

export interface TaskLauncherOptions {
  runners: PoolOptions['runners'];
  /** This data folder's random id: every task's mark carries it. */
  instanceId: string;
  dataDir: string;
  disk: PoolOptions['disk'];
  /** The boot this run belongs to; recorded with every process so a later run can rule out a reboot. */
  bootId: string | null;
  signals: Pick<TaskSignals, 'started' | 'output'>;
  endings: Pick<TaskEndings, 'armTimeout' | 'settle'>;
  /** The shared tick that tells clients of new output. */
  ticks: Pick<OutputTicks, 'add'>;
  /** Writes a changed record and tells clients. */
  save: (record: TaskRecord) => void;
  /** Tells clients a record changed that is not written (only what the row shows moved). */
  emit: (record: TaskRecord) => void;
  now: () => number;
  log: (message: string) => void;
}

/**
 * Brings a task's processes up: its mark, its log, its runner, and the runner's hooks into the
 * record (output, a leader that exited early, the member list, the exit). A task that cannot
 * start settles as failed with the reason.
 */
export class TaskLauncher {
  readonly #o: TaskLauncherOptions;

  constructor(options: TaskLauncherOptions) {
    this.#o = options;
  }

  /** Throws when no runner takes this kind of task. */
  requireRunner(kind: TaskKind): void {
    if (!this.#o.runners[kind]) throw new DroverError('unavailable', `No runner for ${kind} tasks`);
  }

  /** Starts the task once; a second call gets the same start. */
  launch(live: Live): Promise<void> {
    live.launched ??= this.#startRunner(live);
    return live.launched;
  }

  async #startRunner(live: Live): Promise<void> {
    const record = live.record;
    const runner = this.#o.runners[record.kind]!;
    const mark = markFor(this.#o.instanceId, record.id);
    record.mark = formatMark(mark);
    try {
      // Its folder is made here: on a full disk that fails, and the task fails with the reason.
      live.log = new TaskLog(record.logPath, logRoomHooks(live, this.#o.disk, this.#o.dataDir, this.#o.save));
      live.handle = await runner.start(
        {
          kind: record.kind,
          taskId: record.id,
          command: record.command,
          cwd: record.cwd,
          env: {},
          mark,
          tty: record.tty,
          sandboxed: record.sandboxed,
          sessionId: record.sessionId,
          ...(record.payload === undefined ? {} : { payload: record.payload }),
        },
        {
          output: (chunk) => this.#onOutput(live, chunk),
          leaderExited: () => {
            live.leaderExited = true;
            this.#o.emit(record);
          },
          members: (members) => {
            record.members = [...members];
            this.#o.save(record);
          },
        },
      );
    } catch (error) {
      this.#o.disk?.noteFailure(error);
      record.error = error instanceof StartError ? error.message : `could not start: ${(error as Error).message}`;
      record.startedAt = this.#o.now();
      await this.#o.endings.settle(live, { exitCode: null, signal: null }, 'failed');
      return;
    }
    recordStart(record, live.handle, this.#o.now(), this.#o.bootId);
    this.#o.signals.started(record);
    this.#o.endings.armTimeout(live);
    this.#o.save(record);
    live.handle
      .wait()
      .then((exit) => this.#o.endings.settle(live, exit))
      .catch((error: unknown) =>
        this.#o.log(`task ${record.id} could not be recorded as ended: ${(error as Error).message}`),
      );
  }

  #onOutput(live: Live, chunk: Buffer): void {
    this.#o.signals.output(live.record, chunk);
    appendOutput(live, chunk, this.#o.now(), this.#o.ticks);
  }
}
