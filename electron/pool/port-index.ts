import { performance } from 'node:perf_hooks';
import { finish, listeningPortsSteps, type ListeningSocket, type ScanSteps } from '../process/listening-ports.js';

/** Between scans while any task runs. */
export const PORT_SCAN_MS = 2_000;
/**
 * A timed scan runs in slices of about this long, with the event loop's other work between them:
 * reading fifty chatty tasks' descriptors at once held the host's event loop for 40 to 90 ms on a
 * loaded two-core machine (bench/lag.bench.ts).
 */
export const PORT_SCAN_SLICE_MS = 2;

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
  /** The scanner, in steps (listeningPortsSteps by default); tests may pass a fake. */
  scan?: (pids: readonly number[]) => ScanSteps;
  /** How long a timed scan runs before it lets other work in (default PORT_SCAN_SLICE_MS). */
  sliceMs?: number;
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
  readonly #scan: (pids: readonly number[]) => ScanSteps;
  readonly #sliceMs: number;
  readonly #timers: PortIndexTimers;
  /** Each task's listening sockets, by port then pid; a task without any has no entry. */
  #sockets = new Map<string, ListeningSocket[]>();
  #supported: boolean;
  #timer: unknown = null;
  #disposed = false;
  /** A timed scan is under way (between slices). */
  #scanning = false;
  /** Counts scans begun: a timed scan that a later one overtook keeps its answer to itself. */
  #generation = 0;

  constructor(options: PortIndexOptions) {
    this.#processes = options.processes;
    this.#onChange = options.onChange;
    this.#intervalMs = options.intervalMs ?? PORT_SCAN_MS;
    this.#scan = options.scan ?? listeningPortsSteps;
    this.#sliceMs = options.sliceMs ?? PORT_SCAN_SLICE_MS;
    this.#timers = options.timers ?? GLOBAL_TIMERS;
    // A scan of no processes reads nothing and answers null only where the OS cannot look.
    let probe: ListeningSocket[] | null = [];
    try {
      probe = finish(this.#scan([]));
    } catch {
      // it could not look this once: the OS may still let it
    }
    this.#supported = probe !== null;
  }

  /** True where the OS lets Drover see ports (Linux). */
  get supported(): boolean {
    return this.#supported;
  }

  /** Scans now (synchronously, in one go) and reports changes. */
  refresh(): void {
    const scan = this.#begin();
    if (!scan) return;
    let found: ListeningSocket[] | null;
    try {
      found = finish(scan.steps);
    } catch {
      return; // could not look: the last answer stands
    }
    this.#apply(scan.processes, found);
  }

  /** A new scan: the processes to look at, and the steps that look. Null when they could not be named. */
  #begin(): { processes: Map<string, number[]>; steps: ScanSteps; generation: number } | null {
    if (this.#disposed) return null;
    try {
      const processes = this.#processes();
      const steps = this.#scan([...new Set([...processes.values()].flat())]);
      return { processes, steps, generation: ++this.#generation };
    } catch {
      return null; // could not look: the last answer stands
    }
  }

  /** What a scan found becomes the index; tasks whose ports changed are reported. */
  #apply(processes: Map<string, number[]>, found: ListeningSocket[] | null): void {
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
    if (this.#disposed) return;
    this.#generation += 1; // a timed scan under way may have named its processes: its answer is dropped
    if (!this.#sockets.delete(taskId)) return;
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

  /**
   * A timer's scan, in slices of about sliceMs with the event loop's other work between them. One
   * still under way is left to finish (the next tick starts none); a refresh meanwhile overtakes it.
   * A failing onChange is logged, never thrown into the event loop.
   */
  #tick(): void {
    if (this.#scanning) return;
    const scan = this.#begin();
    if (!scan) return;
    this.#scanning = true;
    const slice = (): void => {
      const until = performance.now() + this.#sliceMs;
      let found: ListeningSocket[] | null;
      try {
        for (;;) {
          if (this.#disposed) return void (this.#scanning = false);
          const step = scan.steps.next();
          if (step.done) {
            found = step.value;
            break;
          }
          if (performance.now() >= until) return void setImmediate(slice);
        }
      } catch {
        return void (this.#scanning = false); // could not look: the last answer stands
      }
      this.#scanning = false;
      if (scan.generation !== this.#generation) return; // a later scan answered already
      try {
        this.#apply(scan.processes, found);
      } catch (error) {
        console.error('[drover] reporting changed task ports failed:', error);
      }
    };
    slice();
  }
}
