import type { SignalOutcome, UnixOs } from '../../electron/process/unix-os.js';
import type { WinHandle, WindowsOs } from '../../electron/process/windows-os.js';

export interface FakeProcess {
  pid: number;
  pgid: number;
  start: string;
  mark: string | null | 'unreadable';
  /** Ignores SIGTERM (only SIGKILL ends it). */
  stubborn?: boolean;
}

/** A process table in memory that behaves like unix for the calls the leftover logic makes. */
export class FakeUnix implements UnixOs {
  processes = new Map<number, FakeProcess>();
  signals: string[] = [];
  boot = 'boot-1';

  add(process: FakeProcess): this {
    this.processes.set(process.pid, process);
    return this;
  }

  signalGroup(pgid: number, signal: NodeJS.Signals | 0): SignalOutcome {
    const members = [...this.processes.values()].filter((p) => p.pgid === pgid);
    if (members.length === 0) return 'missing';
    if (signal !== 0) {
      this.signals.push(`-${pgid}:${signal}`);
      for (const member of members) this.#deliver(member, signal);
    }
    return 'ok';
  }

  signalProcess(pid: number, signal: NodeJS.Signals | 0): SignalOutcome {
    const target = this.processes.get(pid);
    if (!target) return 'missing';
    if (signal !== 0) {
      this.signals.push(`${pid}:${signal}`);
      this.#deliver(target, signal);
    }
    return 'ok';
  }

  #deliver(target: FakeProcess, signal: NodeJS.Signals): void {
    if (signal === 'SIGKILL' || (signal === 'SIGTERM' && !target.stubborn)) this.processes.delete(target.pid);
  }

  startTime(pid: number): string | null {
    return this.processes.get(pid)?.start ?? null;
  }

  bootId(): string | null {
    return this.boot;
  }

  groupMembers(pgid: number): number[] {
    return [...this.processes.values()].filter((p) => p.pgid === pgid).map((p) => p.pid);
  }

  markOf(pid: number): string | null | 'unreadable' {
    const target = this.processes.get(pid);
    return target ? target.mark : 'unreadable';
  }

  processesWithMark(taskId: string): number[] {
    return [...this.processes.values()].filter((p) => p.mark === taskId).map((p) => p.pid);
  }
}

interface FakeWinProcess {
  pid: number;
  created: string;
  exited: boolean;
  children: number[];
}

/** Windows semantics: an exited process stays openable while a handle to it is held. */
export class FakeWindows implements WindowsOs {
  processes = new Map<number, FakeWinProcess>();
  openHandles = new Map<number, number>();
  killed: number[] = [];
  /** Whether the pid was held open while taskkill ran. */
  heldDuringKill: boolean[] = [];
  jobs = 0;

  add(process: FakeWinProcess): this {
    this.processes.set(process.pid, process);
    return this;
  }

  open(pid: number): WinHandle | null {
    const target = this.processes.get(pid);
    if (!target || (target.exited && !this.openHandles.get(pid))) return null;
    this.openHandles.set(pid, (this.openHandles.get(pid) ?? 0) + 1);
    return { pid };
  }

  isRunning(handle: WinHandle): boolean {
    return !this.processes.get(handle.pid)?.exited;
  }

  creationTime(handle: WinHandle): string | null {
    return this.processes.get(handle.pid)?.created ?? null;
  }

  close(handle: WinHandle): void {
    this.openHandles.set(handle.pid, (this.openHandles.get(handle.pid) ?? 1) - 1);
  }

  async killTree(pid: number): Promise<boolean> {
    this.heldDuringKill.push((this.openHandles.get(pid) ?? 0) > 0);
    const target = this.processes.get(pid);
    if (!target) return false;
    this.killed.push(pid, ...target.children);
    target.exited = true;
    return true;
  }

  createJob(): unknown {
    this.jobs++;
    return { job: this.jobs };
  }
  assignToJob(): boolean {
    return true;
  }
  terminateJob(): boolean {
    return true;
  }
  closeJob(): void {}
}
