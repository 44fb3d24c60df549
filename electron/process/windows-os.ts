import { createRequire } from 'node:module';
import { ProbeFailure } from './unix-os.js';

/** An open process handle, held while it is in use so the pid cannot be handed to anyone else. */
export interface WinHandle {
  readonly pid: number;
}

/**
 * What opening a process by number gave: a handle, or why not. "missing" is only
 * ERROR_INVALID_PARAMETER (no such process); "denied" is ERROR_ACCESS_DENIED: the process
 * exists but may not be looked at, which is never the same as "it has ended".
 */
export type OpenOutcome = WinHandle | 'missing' | 'denied';

/** The Win32 calls the leftover and job logic needs; a fake stands in for it in tests on any OS. */
export interface WindowsOs {
  /** 'query' asks only for SYNCHRONIZE and PROCESS_QUERY_LIMITED_INFORMATION; 'terminate' adds PROCESS_TERMINATE. Other failures throw ProbeFailure. */
  open(pid: number, access: 'query' | 'terminate'): OpenOutcome;
  /** WaitForSingleObject(handle, 0) timed out: the process has not exited (a retained handle alone is not life). Throws ProbeFailure when the wait fails. */
  isRunning(handle: WinHandle): boolean;
  /** The exact creation time (FILETIME, 100 ns units, as a decimal string). */
  creationTime(handle: WinHandle): string | null;
  close(handle: WinHandle): void;
  /** TerminateProcess on a handle opened with 'terminate'. */
  terminate(handle: WinHandle): boolean;
  /** Every process now, with the parent pid each names (which may be stale: Windows never updates it). */
  processes(): { pid: number; parentPid: number }[];
  /** Job objects: a task's whole tree, whatever its parent links say. */
  createJob(): unknown | null;
  assignToJob(job: unknown, pid: number): boolean;
  /** The processes now in the job. */
  jobProcessIds(job: unknown): number[];
  terminateJob(job: unknown): boolean;
  closeJob(job: unknown): void;
}

const SYNCHRONIZE = 0x0010_0000;
const PROCESS_QUERY_LIMITED_INFORMATION = 0x1000;
const PROCESS_TERMINATE = 0x0001;
const PROCESS_SET_QUOTA = 0x0100;
const WAIT_TIMEOUT = 0x102;
const WAIT_FAILED = 0xffff_ffff;
const ERROR_ACCESS_DENIED = 5;
const ERROR_INVALID_PARAMETER = 87;
const TH32CS_SNAPPROCESS = 0x2;
const JOB_OBJECT_BASIC_PROCESS_ID_LIST = 3;
const ERROR_MORE_DATA = 234;
/** Room for this many process ids at first; a larger job gets a buffer of the size it reports. */
const JOB_LIST_CAPACITY = 1024;

/** BOOL is a 32-bit int in Win32: declared as such, and compared with 0, never taken as a JS boolean. */
interface Kernel32 {
  OpenProcess(access: number, inherit: number, pid: number): unknown;
  GetLastError(): number;
  WaitForSingleObject(handle: unknown, ms: number): number;
  GetProcessTimes(handle: unknown, creation: FileTime, exit: FileTime, kernel: FileTime, user: FileTime): number;
  CloseHandle(handle: unknown): number;
  TerminateProcess(handle: unknown, exitCode: number): number;
  CreateToolhelp32Snapshot(flags: number, pid: number): unknown;
  Process32FirstW(snapshot: unknown, entry: ProcessEntry): number;
  Process32NextW(snapshot: unknown, entry: ProcessEntry): number;
  CreateJobObjectW(attributes: null, name: null): unknown;
  AssignProcessToJobObject(job: unknown, process: unknown): number;
  TerminateJobObject(job: unknown, exitCode: number): number;
  QueryInformationJobObject(job: unknown, infoClass: number, buffer: Buffer, length: number, returned: null): number;
}

interface FileTime {
  dwLowDateTime?: number;
  dwHighDateTime?: number;
}

interface ProcessEntry {
  dwSize: number;
  th32ProcessID?: number;
  th32ParentProcessID?: number;
}

class Handle implements WinHandle {
  constructor(
    readonly pid: number,
    readonly raw: unknown,
  ) {}
}

let kernel32: Kernel32 | null = null;
let entrySize = 0;
let pointerSize = 8;

/** Binds kernel32 through koffi on first use (only ever on Windows). Throws with the reason when it cannot. */
function bind(): Kernel32 {
  if (kernel32) return kernel32;
  const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
  const lib = koffi.load('kernel32.dll');
  const HANDLE = koffi.pointer('HANDLE', koffi.opaque());
  const FILETIME = koffi.struct('FILETIME', { dwLowDateTime: 'uint32', dwHighDateTime: 'uint32' });
  const PROCESSENTRY32W = koffi.struct('PROCESSENTRY32W', {
    dwSize: 'uint32',
    cntUsage: 'uint32',
    th32ProcessID: 'uint32',
    th32DefaultHeapID: 'uintptr_t',
    th32ModuleID: 'uint32',
    cntThreads: 'uint32',
    th32ParentProcessID: 'uint32',
    pcPriClassBase: 'int32',
    dwFlags: 'uint32',
    szExeFile: koffi.array('char16_t', 260),
  });
  entrySize = koffi.sizeof(PROCESSENTRY32W);
  pointerSize = koffi.sizeof('uintptr_t');
  const out = koffi.out(koffi.pointer(FILETIME));
  const entry = koffi.inout(koffi.pointer(PROCESSENTRY32W));
  const BOOL = 'int';
  kernel32 = {
    OpenProcess: lib.func('__stdcall', 'OpenProcess', HANDLE, ['uint32', BOOL, 'uint32']),
    GetLastError: lib.func('__stdcall', 'GetLastError', 'uint32', []),
    WaitForSingleObject: lib.func('__stdcall', 'WaitForSingleObject', 'uint32', [HANDLE, 'uint32']),
    GetProcessTimes: lib.func('__stdcall', 'GetProcessTimes', BOOL, [HANDLE, out, out, out, out]),
    CloseHandle: lib.func('__stdcall', 'CloseHandle', BOOL, [HANDLE]),
    TerminateProcess: lib.func('__stdcall', 'TerminateProcess', BOOL, [HANDLE, 'uint32']),
    CreateToolhelp32Snapshot: lib.func('__stdcall', 'CreateToolhelp32Snapshot', HANDLE, ['uint32', 'uint32']),
    Process32FirstW: lib.func('__stdcall', 'Process32FirstW', BOOL, [HANDLE, entry]),
    Process32NextW: lib.func('__stdcall', 'Process32NextW', BOOL, [HANDLE, entry]),
    CreateJobObjectW: lib.func('__stdcall', 'CreateJobObjectW', HANDLE, ['void *', 'void *']),
    AssignProcessToJobObject: lib.func('__stdcall', 'AssignProcessToJobObject', BOOL, [HANDLE, HANDLE]),
    TerminateJobObject: lib.func('__stdcall', 'TerminateJobObject', BOOL, [HANDLE, 'uint32']),
    QueryInformationJobObject: lib.func('__stdcall', 'QueryInformationJobObject', BOOL, [
      HANDLE,
      'int',
      'void *',
      'uint32',
      'void *',
    ]),
  } as unknown as Kernel32;
  return kernel32;
}

/** A snapshot handle is INVALID_HANDLE_VALUE ((HANDLE)-1) on failure, not NULL. */
function validSnapshot(raw: unknown): boolean {
  if (!raw) return false;
  const address = (createRequire(import.meta.url)('koffi') as typeof import('koffi')).address(raw);
  return address !== BigInt.asUintN(64, -1n) && address !== 0xffff_ffffn;
}

export function win32Os(): WindowsOs {
  return {
    open(pid, access) {
      const api = bind();
      const rights = SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION | (access === 'terminate' ? PROCESS_TERMINATE : 0);
      const raw = api.OpenProcess(rights, 0, pid);
      if (raw) return new Handle(pid, raw);
      const error = api.GetLastError();
      if (error === ERROR_INVALID_PARAMETER) return 'missing';
      if (error === ERROR_ACCESS_DENIED) return 'denied';
      throw new ProbeFailure(`OpenProcess(${pid}) failed with error ${error}`);
    },
    isRunning(handle) {
      const api = bind();
      const result = api.WaitForSingleObject((handle as Handle).raw, 0);
      if (result === WAIT_FAILED) throw new ProbeFailure(`WaitForSingleObject failed with error ${api.GetLastError()}`);
      return result === WAIT_TIMEOUT;
    },
    creationTime(handle) {
      // Output structs are plain objects that koffi fills in.
      const creation: FileTime = {};
      const ok = bind().GetProcessTimes((handle as Handle).raw, creation, {}, {}, {});
      if (ok === 0 || creation.dwHighDateTime === undefined || creation.dwLowDateTime === undefined) return null;
      return ((BigInt(creation.dwHighDateTime) << 32n) | BigInt(creation.dwLowDateTime)).toString();
    },
    close(handle) {
      bind().CloseHandle((handle as Handle).raw);
    },
    terminate(handle) {
      return bind().TerminateProcess((handle as Handle).raw, 1) !== 0;
    },
    processes() {
      const api = bind();
      const snapshot = api.CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
      if (!validSnapshot(snapshot))
        throw new ProbeFailure(`CreateToolhelp32Snapshot failed with error ${api.GetLastError()}`);
      const out: { pid: number; parentPid: number }[] = [];
      try {
        const entry: ProcessEntry = { dwSize: entrySize };
        for (let ok = api.Process32FirstW(snapshot, entry); ok !== 0; ok = api.Process32NextW(snapshot, entry)) {
          out.push({ pid: entry.th32ProcessID ?? 0, parentPid: entry.th32ParentProcessID ?? 0 });
          entry.dwSize = entrySize;
        }
      } finally {
        api.CloseHandle(snapshot);
      }
      return out;
    },
    createJob() {
      return bind().CreateJobObjectW(null, null) || null;
    },
    assignToJob(job, pid) {
      const api = bind();
      const raw = api.OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, 0, pid);
      if (!raw) return false;
      try {
        return api.AssignProcessToJobObject(job, raw) !== 0;
      } finally {
        api.CloseHandle(raw);
      }
    },
    jobProcessIds(job) {
      // JOBOBJECT_BASIC_PROCESS_ID_LIST: two DWORD counts (assigned, listed), then ULONG_PTR ids (aligned to a pointer).
      const header = 8;
      const api = bind();
      let capacity = JOB_LIST_CAPACITY;
      let buffer = Buffer.alloc(header + capacity * pointerSize);
      for (
        let attempt = 0;
        api.QueryInformationJobObject(job, JOB_OBJECT_BASIC_PROCESS_ID_LIST, buffer, buffer.length, null) === 0;
        attempt++
      ) {
        const error = api.GetLastError();
        if (error !== ERROR_MORE_DATA || attempt >= 3)
          throw new ProbeFailure(`QueryInformationJobObject failed with error ${error}`);
        // The job grew past the buffer: make room for what it says it holds, and some.
        capacity = Math.max(capacity * 2, buffer.readUInt32LE(0) + 64);
        buffer = Buffer.alloc(header + capacity * pointerSize);
      }
      const count = buffer.readUInt32LE(4);
      const ids: number[] = [];
      for (let i = 0; i < count; i++)
        ids.push(
          pointerSize === 8 ? Number(buffer.readBigUInt64LE(header + i * 8)) : buffer.readUInt32LE(header + i * 4),
        );
      return ids;
    },
    terminateJob(job) {
      return bind().TerminateJobObject(job, 1) !== 0;
    },
    closeJob(job) {
      bind().CloseHandle(job);
    },
  };
}
