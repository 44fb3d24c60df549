import type { PortIndex } from './port-index.js';
import { ReadinessWatch } from './readiness.js';
import { cgroupMembers } from '../process/cgroup.js';
import type { TaskRecord } from './task-record.js';

/** The part of the port index the pool uses (absent where the OS cannot tell which task listens where). */
export type PortSource = Pick<PortIndex, 'portsOf' | 'entries' | 'setActive' | 'taskEnded'>;

export interface TaskSignalsOptions {
  ports: PortSource | null;
  /** A running task's declared readiness now holds. */
  onReady: (record: TaskRecord) => void;
  /** Where problems that reach no caller go (a ready pattern too slow to run). */
  log?: (message: string) => void;
}

/**
 * What the pool learns from a running task beyond its output and exit: which ports it listens
 * on, and when it is ready. Ports are scanned only while tasks run; readiness only while the
 * task that declared it runs.
 */
export class TaskSignals {
  readonly #ports: PortSource | null;
  readonly #onReady: (record: TaskRecord) => void;
  readonly #log: (message: string) => void;
  readonly #ready = new Map<string, ReadinessWatch>();
  /** Running tasks' records: their cgroups name their processes for the port scan. */
  readonly #running = new Map<string, TaskRecord>();

  constructor(options: TaskSignalsOptions) {
    this.#ports = options.ports;
    this.#onReady = options.onReady;
    this.#log = options.log ?? ((message) => console.error(`drover: ${message}`));
  }

  started(record: TaskRecord): void {
    this.#running.set(record.id, record);
    this.#ports?.setActive(true);
    if (!record.readyCheck || record.readyAt !== null) return;
    const watch = new ReadinessWatch({
      check: record.readyCheck,
      portsOf: () => (this.#ports ? this.#ports.portsOf(record.id) : null),
      heldByOther: (port) => this.listening().some((entry) => entry.port === port && entry.taskId !== record.id),
      onProblem: (message) => this.#log(`${record.id}: ${message}`),
      onReady: () => {
        this.#ready.delete(record.id);
        this.#onReady(record);
      },
    });
    this.#ready.set(record.id, watch);
    watch.start();
  }

  output(record: TaskRecord, chunk: Buffer): void {
    this.#ready.get(record.id)?.output(chunk);
  }

  ended(record: TaskRecord): void {
    this.#ready.get(record.id)?.stop();
    this.#ready.delete(record.id);
    this.#running.delete(record.id);
    this.#ports?.taskEnded(record.id);
    if (this.#running.size === 0) this.#ports?.setActive(false);
  }

  /** The task is being stopped: it is not made ready now (no "is ready" for a server on its way out). */
  stopping(id: string): void {
    this.#ready.get(id)?.stop();
    this.#ready.delete(id);
  }

  /**
   * Each running task's processes, for the port scan: read from its cgroup where it has one (cheap:
   * a file per task), null where it has none (the caller then finds them by their mark).
   */
  processes(): Map<string, number[] | null> {
    return new Map([...this.#running].map(([id, record]) => [id, record.cgroup ? cgroupMembers(record.cgroup) : null]));
  }

  portsOf(id: string): number[] {
    return this.#running.has(id) ? (this.#ports?.portsOf(id) ?? []) : [];
  }

  /** Every port a running task listens on, by port. */
  listening(): { port: number; pid: number; taskId: string }[] {
    return this.#ports?.entries().filter((entry) => this.#running.has(entry.taskId)) ?? [];
  }

  dispose(): void {
    for (const watch of this.#ready.values()) watch.stop();
    this.#ready.clear();
    this.#ports?.setActive(false);
  }
}
