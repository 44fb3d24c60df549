import type { ShellResult } from '../../shared/contract.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { TaskPool } from '../pool/pool.js';
import { adoptionNotice, refusedAdoptionNotice } from '../pool/adoption.js';

/**
 * The operator's shell mode: `!cmd` runs in the foreground (handed to the background if it
 * outlives the wait), `&cmd` starts in the background. Both leave a tool row in the transcript.
 */
export class OperatorShell {
  readonly #pool: TaskPool;
  readonly #sessions: SessionsService;
  readonly #cwd: () => string;

  constructor(pool: TaskPool, sessions: SessionsService, cwd: () => string) {
    this.#pool = pool;
    this.#sessions = sessions;
    this.#cwd = cwd;
  }

  /** `cwd`: where it runs (a rerun keeps the folder of the task it repeats); the configured folder by default. */
  async run(sessionId: string, command: string, background: boolean, cwd = this.#cwd()): Promise<ShellResult> {
    this.#sessions.get(sessionId);
    const request = { sessionId, command, cwd };
    if (background) {
      const record = await this.#pool.start(request);
      this.#sessions.addToolMessage(sessionId, command, record.id);
      return { task: this.#pool.row(sessionId, record.id), output: null, notice: null };
    }

    const record = await this.#pool.startForeground(request);
    this.#sessions.addToolMessage(sessionId, command, record.id);
    const waitMs = this.#pool.policy.foregroundWaitMs;
    const settled = await this.#pool.waitFor(record.id, waitMs);
    if (settled) return this.#answer(sessionId, record.id, null);

    const refused = this.#pool.adopt(record.id);
    if (refused === null) {
      const follow = { read: 'the tasks list (or GET …/background-tasks/' + record.id + ')', stop: 'its Stop button' };
      return this.#answer(sessionId, record.id, adoptionNotice(this.#pool.row(sessionId, record.id), waitMs, follow));
    }
    await this.#pool.stop(sessionId, record.id, 'refused', refused);
    const hint = 'Start it with &command to run it in the background from the outset.';
    return this.#answer(
      sessionId,
      record.id,
      refusedAdoptionNotice(this.#pool.row(sessionId, record.id), refused, hint),
    );
  }

  async #answer(sessionId: string, taskId: string, notice: string | null): Promise<ShellResult> {
    return {
      task: this.#pool.row(sessionId, taskId),
      output: await this.#pool.output(sessionId, taskId),
      notice,
    };
  }
}
