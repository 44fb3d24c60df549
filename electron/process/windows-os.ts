import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';

/** An open process handle, held while it is in use so the pid cannot be handed to anyone else. */
export interface WinHandle {
  readonly pid: number;
}

/** The Win32 calls the leftover logic needs; a fake stands in for it in tests on any OS. */
export interface WindowsOs {
  open(pid: number): WinHandle | null;
  /** WaitForSingleObject(handle, 0) timed out: the process has not exited (a retained handle alone is not life). */
  isRunning(handle: WinHandle): boolean;
  /** The exact creation time (FILETIME, 100 ns units, as a decimal string). */
  creationTime(handle: WinHandle): string | null;
  close(handle: WinHandle): void;
  /** `taskkill /T /F /PID pid`: the process and every process that names it as parent. */
  killTree(pid: number): Promise<boolean>;
  /** Job objects: a task's whole tree can be ended even when parent links are stale. */
  createJob(): unknown | null;
  assignToJob(job: unknown, pid: number): boolean;
  terminateJob(job: unknown): boolean;
  closeJob(job: unknown): void;
}

const SYNCHRONIZE = 0x0010_0000;
const PROCESS_QUERY_LIMITED_INFORMATION = 0x1000;
const PROCESS_TERMINATE = 0x0001;
const PROCESS_SET_QUOTA = 0x0100;
const WAIT_TIMEOUT = 0x102;

interface Kernel32 {
  OpenProcess(access: number, inherit: boolean, pid: number): unknown;
  WaitForSingleObject(handle: unknown, ms: number): number;
  GetProcessTimes(handle: unknown, creation: FileTime, exit: FileTime, kernel: FileTime, user: FileTime): boolean;
  CloseHandle(handle: unknown): boolean;
  CreateJobObjectW(attributes: null, name: null): unknown;
  AssignProcessToJobObject(job: unknown, process: unknown): boolean;
  TerminateJobObject(job: unknown, exitCode: number): boolean;
}

interface FileTime {
  dwLowDateTime?: number;
  dwHighDateTime?: number;
}

class Handle implements WinHandle {
  constructor(
    readonly pid: number,
    readonly raw: unknown,
  ) {}
}

let kernel32: Kernel32 | null = null;

/** Binds kernel32 through koffi on first use (only ever on Windows). */
function bind(): Kernel32 {
  if (kernel32) return kernel32;
  const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
  const lib = koffi.load('kernel32.dll');
  const HANDLE = koffi.pointer('HANDLE', koffi.opaque());
  const FILETIME = koffi.struct('FILETIME', { dwLowDateTime: 'uint32', dwHighDateTime: 'uint32' });
  const out = koffi.out(koffi.pointer(FILETIME));
  kernel32 = {
    OpenProcess: lib.func('__stdcall', 'OpenProcess', HANDLE, ['uint32', 'bool', 'uint32']),
    WaitForSingleObject: lib.func('__stdcall', 'WaitForSingleObject', 'uint32', [HANDLE, 'uint32']),
    GetProcessTimes: lib.func('__stdcall', 'GetProcessTimes', 'bool', [HANDLE, out, out, out, out]),
    CloseHandle: lib.func('__stdcall', 'CloseHandle', 'bool', [HANDLE]),
    CreateJobObjectW: lib.func('__stdcall', 'CreateJobObjectW', HANDLE, ['void *', 'void *']),
    AssignProcessToJobObject: lib.func('__stdcall', 'AssignProcessToJobObject', 'bool', [HANDLE, HANDLE]),
    TerminateJobObject: lib.func('__stdcall', 'TerminateJobObject', 'bool', [HANDLE, 'uint32']),
  } as unknown as Kernel32;
  return kernel32;
}

export function win32Os(): WindowsOs {
  return {
    open(pid) {
      const raw = bind().OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_TERMINATE, false, pid);
      return raw ? new Handle(pid, raw) : null;
    },
    isRunning(handle) {
      return bind().WaitForSingleObject((handle as Handle).raw, 0) === WAIT_TIMEOUT;
    },
    creationTime(handle) {
      // Output structs are plain objects that koffi fills in.
      const creation: FileTime = {};
      const ok = bind().GetProcessTimes((handle as Handle).raw, creation, {}, {}, {});
      if (!ok || creation.dwHighDateTime === undefined || creation.dwLowDateTime === undefined) return null;
      return ((BigInt(creation.dwHighDateTime) << 32n) | BigInt(creation.dwLowDateTime)).toString();
    },
    close(handle) {
      bind().CloseHandle((handle as Handle).raw);
    },
    killTree(pid) {
      return new Promise((resolve) => {
        execFile('taskkill', ['/T', '/F', '/PID', String(pid)], { windowsHide: true }, (error) => resolve(!error));
      });
    },
    createJob() {
      try {
        return bind().CreateJobObjectW(null, null) || null;
      } catch {
        return null;
      }
    },
    assignToJob(job, pid) {
      const api = bind();
      const raw = api.OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, false, pid);
      if (!raw) return false;
      try {
        return api.AssignProcessToJobObject(job, raw);
      } finally {
        api.CloseHandle(raw);
      }
    },
    terminateJob(job) {
      return bind().TerminateJobObject(job, 1);
    },
    closeJob(job) {
      bind().CloseHandle(job);
    },
  };
}
