import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import type { TaskOutput, TaskRow } from '@shared/contract.js';
import { DroverError } from '@shared/ipc/drover-error.js';
import { errorMessage } from '../format.js';
import { TaskRows } from './task-rows.svelte.js';
import { DEFAULT_TAIL } from './task-output.svelte.js';

export { UNDO_CLEAR_MS } from './finished-clear.svelte.js';
export { DEFAULT_TAIL, OUTPUT_REFETCH_MS } from './task-output.svelte.js';

/** What the operator's shell line came to: the task it started, or why it failed. */
export type ShellOutcome =
  { ok: true; task: TaskRow; notice: string | null } | { ok: false; error: string; code: string | null };

/**
 * The tasks of one session (TaskRows: the rows and pages), the output views show, and what the
 * person does to them: stop, run again, reap leftovers, run a shell line.
 */
export class TasksState extends TaskRows {
  readonly #notices = new SvelteMap<string, string>();
  readonly #stopping = new SvelteSet<string>();
  readonly #stopErrors = new SvelteMap<string, string>();
  #reaping = $state(false);
  #reapMessage = $state<string | null>(null);
  #rerunError = $state<string | null>(null);

  /** The last output fetched for the task. */
  output(taskId: string): TaskOutput | undefined {
    return this.outputs.output(taskId);
  }

  /** The tail (in lines) the task's output is fetched with. */
  outputTail(taskId: string): number {
    return this.outputs.tail(taskId);
  }

  outputError(taskId: string): string | null {
    return this.outputs.error(taskId);
  }

  /** Shows the task's output and keeps it current while it runs; returns a function that stops watching. */
  watch(taskId: string, tail = DEFAULT_TAIL): () => void {
    return this.outputs.watch(taskId, tail);
  }

  /** Fetches the last `tail` lines of the task's output (and its row). */
  loadOutput(taskId: string, tail?: number): Promise<void> {
    return this.outputs.load(taskId, tail);
  }

  get reaping(): boolean {
    return this.#reaping;
  }

  /** What the last reap did, in words (or why it failed). */
  get reapMessage(): string | null {
    return this.#reapMessage;
  }

  /** Ends every leftover of this session from an earlier run; only provably ours are touched. */
  async reap(): Promise<void> {
    if (this.#reaping) return;
    this.#reaping = true;
    this.#reapMessage = null;
    try {
      const { reaped, untouched } = await this.api.reapTasks({ sessionId: this.sessionId });
      const pids = reaped.reduce((sum, entry) => sum + entry.pids.length, 0);
      this.#reapMessage =
        reaped.length === 0
          ? 'Nothing was left to end.'
          : `Ended ${reaped.length === 1 ? '1 task' : `${reaped.length} tasks`} (${pids === 1 ? '1 process' : `${pids} processes`}).` +
            (untouched.length > 0 ? ` ${untouched.length} left alone: not provably Drover's.` : '');
      if (this.alive) await this.load();
    } catch (error) {
      this.#reapMessage = `Could not end them: ${errorMessage(error)}`;
    } finally {
      this.#reaping = false;
    }
  }

  /** Why the last rerun failed. */
  get rerunError(): string | null {
    return this.#rerunError;
  }

  /** Runs a task's command again (same folder, same background flag) as the person's shell line. */
  async rerun(taskId: string): Promise<ShellOutcome> {
    this.#rerunError = null;
    try {
      const { task, notice } = await this.api.rerunTask({ sessionId: this.sessionId, taskId });
      if (this.alive) {
        if (notice) this.#notices.set(task.id, notice);
        this.onTaskUpdated(task);
      }
      return { ok: true, task, notice };
    } catch (error) {
      this.#rerunError = `Could not run it again: ${errorMessage(error)}`;
      return { ok: false, error: errorMessage(error), code: error instanceof DroverError ? error.code : null };
    }
  }

  /** Shows the task's log in the file manager where the app can; answers its path either way. */
  async revealLog(taskId: string): Promise<{ revealed: boolean; path: string }> {
    return this.api.revealTaskLog({ sessionId: this.sessionId, taskId });
  }

  /** The desktop app's save dialog: where the copy went, or null when the person cancelled. */
  async saveLog(taskId: string): Promise<string | null> {
    return (await this.api.saveTaskLog({ sessionId: this.sessionId, taskId })).savedTo;
  }

  /** What the shell line that started the task answered (handed to the background, or refused). */
  notice(taskId: string): string | null {
    return this.#notices.get(taskId) ?? null;
  }

  isStopping(taskId: string): boolean {
    return this.#stopping.has(taskId);
  }

  stopError(taskId: string): string | null {
    return this.#stopErrors.get(taskId) ?? null;
  }

  /** Stops the task and its process group; true when the service took the stop. */
  async stop(taskId: string): Promise<boolean> {
    if (this.#stopping.has(taskId)) return false;
    this.#stopping.add(taskId);
    this.#stopErrors.delete(taskId);
    try {
      const { task } = await this.api.stopTask({ sessionId: this.sessionId, taskId });
      if (this.alive) this.onTaskUpdated(task);
      return true;
    } catch (error) {
      this.#stopErrors.set(taskId, `Could not stop: ${errorMessage(error)}`);
      return false;
    } finally {
      this.#stopping.delete(taskId);
    }
  }

  /** Runs the operator's shell line; a foreground run answers when it ends or is handed to the background. */
  async runShell(command: string, background: boolean): Promise<ShellOutcome> {
    try {
      const { task, notice } = await this.api.runShell({ sessionId: this.sessionId, command, background });
      if (this.alive) {
        if (notice) this.#notices.set(task.id, notice);
        this.onTaskUpdated(task);
      }
      return { ok: true, task, notice };
    } catch (error) {
      return { ok: false, error: errorMessage(error), code: error instanceof DroverError ? error.code : null };
    }
  }

  clearStopError(taskId: string): void {
    this.#stopErrors.delete(taskId);
  }

  protected override forgotten(ids: readonly string[]): void {
    for (const id of ids) this.#notices.delete(id);
  }
}
