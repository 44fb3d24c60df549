import { listeningPortsOf, type ListeningSocket } from '../process/listening-ports.js';

/** Between scans while any task runs. */
export const PORT_SCAN_MS = 2_000;

/** Timers the index uses; the globals by default, a fake clock in tests. */
export interface PortIndexTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface PortIndexOptions {
  /** The processes of every running task, by task id (Drover's mark scan). Throws when it could not look: keep the last answer then. */
  processes: () => Map<string, number[]>;
  /** Called with the ids of tasks whose ports changed (gained or lost one). */
  onChange: (taskIds: string[]) => void;
  /** Between scans while active; default 2000 ms. */
  intervalMs?: number;
  /** The scanner (listeningPortsOf by default); tests may pass a fake. */
  scan?: (pids: readonly number[]) => ListeningSocket[] | null;
  /** Timers; default the globals. Tests pass a fake clock so nothing sleeps. */
  timers?: PortIndexTimers;
}

/** One listening socket and the task whose process holds it. */
export interface PortEntry {
  port: number;
  pid: number;
  taskId: string;
}

const GLOBAL_TIMERS: PortIndexTimers = {
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

/** The distinct ports of a task's sockets, lowest first. */
function portsIn(sockets: readonly ListeningSocket[]): number[] {
  return [...new Set(sockets.map((socket) => socket.port))].sort((a, b) => a - b);
}

function samePorts(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((port, i) => port === b[i]);
}

/**
 * Which TCP ports each running task listens on. The pool turns scanning on while any task runs;
 * each scan asks for the tasks' processes, then for the ports those processes listen on, and
 * tells `onChange` which tasks gained or lost a port. A failed look keeps the last answer.
 */
export class PortIndex {
  readonly #processes: () => Map<string, number[]>;
  readonly #onChange: (taskIds: string[]) => void;
  readonly #intervalMs: number;
  readonly #scan: (pids: readonly number[]) => ListeningSocket[] | null;
  readonly #timers: PortIndexTimers;
  /** Each task's listening sockets, by port then pid; a task without any has no entry. */
  #sockets = new Map<string, ListeningSocket[]>();
  #supported: boolean;
  #timer: unknown = null;
  #disposed = false;

  constructor(options: PortIndexOptions) {
    this.#processes = options.processes;
    this.#onChange = options.onChange;
    this.#intervalMs = options.intervalMs ?? PORT_SCAN_MS;
    this.#scan = options.scan ?? listeningPortsOf;
    this.#timers = options.timers ?? GLOBAL_TIMERS;
    // A scan of no processes reads nothing and answers null only where the OS cannot look.
    let probe: ListeningSocket[] | null = [];
    try {
      probe = this.#scan([]);
    } catch {
      // it could not look this once: the OS may still let it
    }
    this.#supported = probe !== null;
  }

  /** True where the OS lets Drover see ports (Linux). */
  get supported(): boolean {
    return this.#supported;
  }

  /** Scans now (synchronously) and reports changes. */
  refresh(): void {
    if (this.#disposed) return;
    let processes: Map<string, number[]>;
    let found: ListeningSocket[] | null;
    try {
      processes = this.#processes();
      found = this.#scan([...new Set([...processes.values()].flat())]);
    } catch {
      return; // could not look: the last answer stands
    }
    this.#supported = found !== null;
    const taskOf = new Map<number, string>();
    for (const [taskId, pids] of processes) for (const pid of pids) if (!taskOf.has(pid)) taskOf.set(pid, taskId);
    const next = new Map<string, ListeningSocket[]>();
    for (const socket of found ?? []) {
      const taskId = taskOf.get(socket.pid);
      if (taskId === undefined) continue; // the scanner answered for a pid it was not asked about
      const list = next.get(taskId);
      if (list) list.push({ port: socket.port, pid: socket.pid });
      else next.set(taskId, [{ port: socket.port, pid: socket.pid }]);
    }
    for (const list of next.values()) list.sort((a, b) => a.port - b.port || a.pid - b.pid);
    const changed: string[] = [];
    for (const taskId of new Set([...this.#sockets.keys(), ...next.keys()]))
      if (!samePorts(portsIn(this.#sockets.get(taskId) ?? []), portsIn(next.get(taskId) ?? []))) changed.push(taskId);
    this.#sockets = next;
    if (changed.length > 0) this.#onChange(changed.sort());
  }

  /**
   * Scans every intervalMs while active (the pool turns it on while any task runs, off when none
   * does); the first scan comes one interval after turning it on (call refresh for one now).
   * Turning it off keeps what is known: call taskEnded for ended tasks.
   */
  setActive(active: boolean): void {
    if (this.#disposed) return;
    if (active && this.#timer === null) {
      this.#timer = this.#timers.setInterval(() => this.#tick(), this.#intervalMs);
      (this.#timer as { unref?: () => void } | null)?.unref?.(); // never keeps Node alive
    } else if (!active && this.#timer !== null) {
      this.#timers.clearInterval(this.#timer);
      this.#timer = null;
    }
  }

  /** Whether it scans on a timer now. */
  get active(): boolean {
    return this.#timer !== null;
  }

  /** The task ended: its ports are forgotten (onChange is called if it had any). */
  taskEnded(taskId: string): void {
    if (this.#disposed || !this.#sockets.delete(taskId)) return;
    this.#onChange([taskId]);
  }

  /** The task's ports now, unique, lowest first; [] when none or unknown. */
  portsOf(taskId: string): number[] {
    return portsIn(this.#sockets.get(taskId) ?? []);
  }

  /** Every listening socket owned by a task: {port, pid, taskId}, by port (then pid). */
  entries(): PortEntry[] {
    const all: PortEntry[] = [];
    for (const [taskId, sockets] of this.#sockets) for (const { port, pid } of sockets) all.push({ port, pid, taskId });
    return all.sort((a, b) => a.port - b.port || a.pid - b.pid);
  }

  /** Which task listens on the port, if one does (the lowest pid holding it, where several do). */
  ownerOf(port: number): { taskId: string; pid: number } | null {
    const entry = this.entries().find((candidate) => candidate.port === port);
    return entry ? { taskId: entry.taskId, pid: entry.pid } : null;
  }

  /** Stops scanning and forgets every port; later calls do nothing. */
  dispose(): void {
    this.setActive(false);
    this.#disposed = true;
    this.#sockets.clear();
  }

  /** A timer's scan: a failing onChange is logged, never thrown into the event loop. */
  #tick(): void {
    try {
      this.refresh();
    } catch (error) {
      console.error('[drover] reporting changed task ports failed:', error);
    }
  }
}
