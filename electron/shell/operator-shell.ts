import type { ShellResult } from '../../shared/contract.js';
import type { ToolDisplay } from '../../shared/schemas/message.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { TaskPool } from '../pool/pool.js';
import {
  ForegroundHandovers,
  movedDisplay,
  movedNoticeForPerson,
  refusedNoticeForPerson,
  SETTLING_WAIT_MS,
} from '../pool/adoption.js';

/**
 * The operator's shell mode: `!cmd` runs in the foreground (handed to the background if it
 * outlives the wait, or at once when the person asks), `&cmd` starts in the background. Both leave
 * a tool row in the transcript. Everything here is said to the person: the model only learns that
 * the person ran a command (history.ts).
 */
export class OperatorShell {
  readonly #pool: TaskPool;
  readonly #sessions: SessionsService;
  readonly #cwd: () => string;
  readonly #handovers: ForegroundHandovers;
  readonly #sandboxed: () => boolean;

  constructor(
    pool: TaskPool,
    sessions: SessionsService,
    cwd: () => string,
    handovers: ForegroundHandovers = new ForegroundHandovers(),
    /** Whether the person's own lines run in the sandbox (setting sandbox.operatorLines, where one is available). */
    sandboxed: () => boolean = () => false,
  ) {
    this.#sandboxed = sandboxed;
    this.#pool = pool;
    this.#sessions = sessions;
    this.#cwd = cwd;
    this.#handovers = handovers;
  }

  /**
   * `cwd`: where it runs (a rerun keeps the folder of the task it repeats); the configured folder by default.
   * `tty`: a person's line gets a terminal; a rerun keeps what the task it repeats had.
   * `sandboxed`: as the settings say for the person's lines; a rerun keeps what the task it repeats had.
   */
  async run(
    sessionId: string,
    command: string,
    background: boolean,
    cwd = this.#cwd(),
    tty = true,
    sandboxed = this.#sandboxed(),
  ): Promise<ShellResult> {
    this.#sessions.require(sessionId);
    const request = { sessionId, command, cwd, tty, sandboxed };
    if (background) {
      const record = await this.#pool.start(request);
      this.#sessions.addToolMessage(sessionId, command, record.id);
      return { task: this.#pool.row(sessionId, record.id), output: null, notice: null };
    }

    const record = await this.#pool.startForeground(request);
    const row = this.#sessions.addToolMessage(sessionId, command, record.id);
    const waitMs = this.#pool.policy.foregroundWaitMs;
    const handover = this.#handovers.wait(record.id);
    let outcome: 'settled' | 'timeout' | 'moved';
    try {
      outcome = await Promise.race([
        this.#pool
          .waitFor(record.id, waitMs)
          .then((settled): 'settled' | 'timeout' => (settled ? 'settled' : 'timeout')),
        handover.requested,
      ]);
    } finally {
      handover.done();
    }
    if (outcome === 'settled') return this.#answer(sessionId, record.id, null);

    if (outcome === 'moved') {
      const moved = this.#pool.row(sessionId, record.id);
      return this.#answer(sessionId, record.id, movedNoticeForPerson(moved, moved.elapsedSeconds, true), {
        row: row.id,
        display: movedDisplay(moved, moved.elapsedSeconds, true),
      });
    }
    const refused = this.#pool.adopt(record.id);
    if (refused === null && !this.#pool.row(sessionId, record.id).adopted) {
      // It exited as the wait ran out and is being recorded as ended: nothing was handed over, so
      // the answer is its result, never "moved to the background".
      await this.#pool.waitFor(record.id, SETTLING_WAIT_MS);
      return this.#answer(sessionId, record.id, null);
    }
    if (refused === null) {
      const moved = this.#pool.row(sessionId, record.id);
      return this.#answer(sessionId, record.id, movedNoticeForPerson(moved, waitMs / 1000, false), {
        row: row.id,
        display: movedDisplay(moved, waitMs / 1000, false),
      });
    }
    await this.#pool.stop(sessionId, record.id, 'refused', refused);
    return this.#answer(sessionId, record.id, refusedNoticeForPerson(refused), {
      row: row.id,
      display: { kind: 'not_moved', reason: refused },
    });
  }

  /** "Background" on a running foreground command: the same handover as at the end of the wait, now. */
  background(sessionId: string, taskId: string): TaskRow {
    this.#sessions.require(sessionId);
    return this.#handovers.moveNow(this.#pool, sessionId, taskId);
  }

  async #answer(
    sessionId: string,
    taskId: string,
    notice: string | null,
    shown?: { row: number; display: ToolDisplay },
  ): Promise<ShellResult> {
    // The row keeps the person's words, so a reload (or another window) shows them too.
    if (shown) this.#sessions.update(shown.row, { display: shown.display });
    return {
      task: this.#pool.row(sessionId, taskId),
      output: await this.#pool.output(sessionId, taskId),
      notice,
    };
  }
}
