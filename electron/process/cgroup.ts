import {
  accessSync,
  constants as fsConstants,
  existsSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * cgroup v2, read and written through its filesystem. Paths are given as the kernel gives them
 * in /proc/<pid>/cgroup ("/user.slice/…/drover-k3x9/bg_3"), so a record stays valid however the
 * hierarchy happens to be mounted on the next run.
 */
export interface CgroupHierarchy {
  /** Where the cgroup2 filesystem is mounted (not always /sys/fs/cgroup). */
  readonly mount: string;
  /** The part of the hierarchy the mount shows ("/" unless a subtree is bind-mounted). */
  readonly mountRoot: string;
}

/** How long a freeze may take before members are signalled anyway (a member in uninterruptible sleep never freezes). */
const FREEZE_WAIT_MS = 20;

/** The cgroup2 mount of this machine, read from mountinfo; null where there is none. */
export function findCgroup2(mountinfo?: string): CgroupHierarchy | null {
  let text = mountinfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/mountinfo', 'utf8');
    } catch {
      return null;
    }
  }
  for (const line of text.split('\n')) {
    // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPEROPTIONS
    const dash = line.indexOf(' - ');
    if (dash < 0) continue;
    const [fsType] = line.slice(dash + 3).split(' ');
    if (fsType !== 'cgroup2') continue;
    const fields = line.slice(0, dash).split(' ');
    if (fields.length < 5) continue;
    return { mountRoot: unescapeMountField(fields[3]!), mount: unescapeMountField(fields[4]!) };
  }
  return null;
}

/** mountinfo writes space, tab, newline and backslash as octal escapes. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** The cgroup v2 path of a process ("0::/path" in /proc/<pid>/cgroup), or null when it is gone or has none. */
export function cgroupOf(pid: number | 'self'): string | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) if (line.startsWith('0::')) return line.slice(3).replace(/ \(deleted\)$/, '');
  return null;
}

/** An absolute path of plain names: no empty, `.` or `..` part that could lead outside where it says. */
function isCleanCgroupPath(path: string): boolean {
  if (path === '/') return true;
  return (
    path.startsWith('/') &&
    path
      .slice(1)
      .split('/')
      .every((part) => part !== '' && part !== '.' && part !== '..')
  );
}

/** Whether `path` is the cgroup this instance makes for this task: `…/drover-<instance>/<task id>`, and nothing else. */
export function isTaskCgroupPath(path: string, instanceId: string, taskId: string): boolean {
  return (
    /^[a-z]+_[1-9][0-9]{0,11}$/.test(taskId) &&
    isCleanCgroupPath(path) &&
    path.endsWith(`/drover-${instanceId}/${taskId}`)
  );
}

/** The directory of a cgroup path under this mount, or null when the mount does not show it (or the path is not plain). */
export function cgroupDir(hierarchy: CgroupHierarchy, path: string): string | null {
  if (!isCleanCgroupPath(path)) return null;
  const root = hierarchy.mountRoot === '/' ? '' : hierarchy.mountRoot;
  if (root && path !== root && !path.startsWith(`${root}/`)) return null;
  return join(hierarchy.mount, path.slice(root.length));
}

/** Whether this process may create cgroups under `path` and move its children into them. */
export function canDelegate(hierarchy: CgroupHierarchy, path: string): string | null {
  const dir = cgroupDir(hierarchy, path);
  if (!dir) return `the cgroup2 mount does not show ${path}`;
  try {
    // Moving a process needs write access to cgroup.procs of the common ancestor: our own cgroup.
    accessSync(dir, fsConstants.W_OK);
    accessSync(join(dir, 'cgroup.procs'), fsConstants.W_OK);
  } catch (error) {
    return `${dir} is not writable by Drover (${(error as NodeJS.ErrnoException).code ?? 'denied'}): cgroups are not delegated to this user`;
  }
  return null;
}

/** Operations on one hierarchy. Every method takes a path as the kernel shows it. */
export class Cgroups {
  constructor(readonly hierarchy: CgroupHierarchy) {}

  #dir(path: string): string {
    const dir = cgroupDir(this.hierarchy, path);
    if (!dir) throw new Error(`the cgroup2 mount does not show ${path}`);
    return dir;
  }

  /*
   * A task's cgroup is made and removed off the event loop (create, ensure, removeAsync): making or
   * removing a cgroup waits for the kernel's cgroup lock, which a shell entering its cgroup holds
   * while the kernel waits out an RCU grace period (5 to 25 ms). Done synchronously, a burst of
   * starts stalled the event loop for up to 20 ms at a time.
   */

  /** Creates a cgroup (its parent must exist). Rejects with the OS's reason (EAGAIN: a limit on descendants). */
  async create(path: string): Promise<void> {
    await mkdir(this.#dir(path));
  }

  /** Creates a cgroup unless it exists. */
  async ensure(path: string): Promise<void> {
    try {
      await this.create(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }

  exists(path: string): boolean {
    try {
      accessSync(join(this.#dir(path), 'cgroup.procs'));
      return true;
    } catch {
      return false;
    }
  }

  /** Whether any process is in the cgroup or below it; null when the cgroup is gone. */
  populated(path: string): boolean | null {
    const events = this.#read(path, 'cgroup.events');
    if (events === null) return null;
    return /^populated 1$/m.test(events);
  }

  /** Every process in the cgroup and below it. */
  members(path: string): number[] {
    const dir = cgroupDir(this.hierarchy, path);
    return dir ? membersBelow(dir) : [];
  }

  /**
   * SIGKILL to everything in the cgroup and below: atomically where the kernel has cgroup.kill
   * (5.14), else each member while the cgroup is frozen. (A missing cgroupfs file answers EACCES,
   * not ENOENT, so its presence is looked up, not inferred from the error.)
   */
  kill(path: string): void {
    const dir = this.#dir(path);
    const file = join(dir, 'cgroup.kill');
    if (existsSync(file)) {
      try {
        writeFileSync(file, '1');
        return;
      } catch {
        /* the per-member way below still ends them */
      }
    }
    this.signal(path, 'SIGKILL');
  }

  /**
   * Sends a signal to every member. Frozen meanwhile where the kernel allows it (5.2), so nothing
   * forks past the list and no member's pid can be freed and reused before it is signalled.
   */
  signal(path: string, signal: NodeJS.Signals): number[] {
    const dir = this.#dir(path);
    // SIGCONT only wakes what is there; freezing for it would buy nothing.
    const frozen = signal !== 'SIGCONT' && freeze(dir);
    if (frozen) {
      const deadline = Date.now() + FREEZE_WAIT_MS;
      while (Date.now() < deadline && isFrozen(dir) === false);
    }
    return signalFrozen(dir, signal, frozen);
  }

  /**
   * signal(), waiting for the freeze off the event loop: the kernel completes a freeze on its own
   * time, 2 to 15 ms here for a shell and two children (longer while other tasks enter their
   * cgroups), and a stop of 30 tasks at once, each waiting in a busy loop, held the event loop for
   * 30 to 40 ms. Polled every millisecond instead, for at most `freezeWaitMs`.
   */
  async signalAsync(path: string, signal: NodeJS.Signals, freezeWaitMs = FREEZE_WAIT_MS): Promise<number[]> {
    const dir = this.#dir(path);
    const frozen = signal !== 'SIGCONT' && freeze(dir);
    if (frozen) {
      const deadline = Date.now() + freezeWaitMs;
      while (Date.now() < deadline && isFrozen(dir) === false) await delay(1);
    }
    return signalFrozen(dir, signal, frozen);
  }

  /** Removes an empty cgroup and every empty cgroup below it. False when something is still inside. */
  remove(path: string): boolean {
    const dir = cgroupDir(this.hierarchy, path);
    return dir ? removeTree(dir) : true;
  }

  /** remove(), off the event loop: a finished task's cgroup. Never rejects. */
  async removeAsync(path: string): Promise<boolean> {
    const dir = cgroupDir(this.hierarchy, path);
    return dir ? removeTreeAsync(dir) : true;
  }

  #read(path: string, file: string): string | null {
    try {
      return readFileSync(join(this.#dir(path), file), 'utf8');
    } catch {
      return null;
    }
  }
}

/** Asks the kernel to freeze the cgroup; false where it cannot (no cgroup.freeze before Linux 5.2, or the cgroup is gone). */
function freeze(dir: string): boolean {
  try {
    writeFileSync(join(dir, 'cgroup.freeze'), '1');
    return true;
  } catch {
    return false;
  }
}

/** Whether every member has stopped for the freeze ("frozen 1"); null when the cgroup cannot be read (gone). */
function isFrozen(dir: string): boolean | null {
  try {
    return /^frozen 1$/m.test(readFileSync(join(dir, 'cgroup.events'), 'utf8'));
  } catch {
    return null;
  }
}

/** Signals every member of a cgroup (frozen by the caller where `frozen`), then thaws it; returns the members. */
function signalFrozen(dir: string, signal: NodeJS.Signals, frozen: boolean): number[] {
  try {
    const members = membersBelow(dir);
    for (const pid of members) {
      try {
        process.kill(pid, signal);
      } catch {
        /* ended meanwhile */
      }
    }
    return members;
  } finally {
    if (frozen) {
      try {
        writeFileSync(join(dir, 'cgroup.freeze'), '0');
      } catch {
        /* the cgroup is gone, and its freeze with it */
      }
    }
  }
}

let mounted: CgroupHierarchy | null | undefined;

/** This machine's cgroup2 mount, looked up once per run. */
export function mountedCgroup2(): CgroupHierarchy | null {
  mounted ??= findCgroup2();
  return mounted;
}

/** Every process in a recorded cgroup (its path) and its children; null where the cgroup cannot be read. */
export function cgroupMembers(path: string): number[] | null {
  const hierarchy = mountedCgroup2();
  const dir = hierarchy && cgroupDir(hierarchy, path);
  return dir ? membersBelow(dir) : null;
}

/** The CPU time of everything in a recorded cgroup (its path) and below it, in microseconds; null where it cannot be read. */
export function cgroupCpuMicros(path: string): number | null {
  const hierarchy = mountedCgroup2();
  const dir = hierarchy && cgroupDir(hierarchy, path);
  if (!dir) return null;
  try {
    const usage = /^usage_usec (\d+)$/m.exec(readFileSync(join(dir, 'cpu.stat'), 'utf8'));
    return usage ? Number(usage[1]) : null;
  } catch {
    return null;
  }
}

function membersBelow(dir: string): number[] {
  const out: number[] = [];
  let procs: string;
  try {
    procs = readFileSync(join(dir, 'cgroup.procs'), 'utf8');
  } catch {
    return out;
  }
  for (const line of procs.split('\n')) if (line) out.push(Number(line));
  for (const child of childCgroups(dir)) out.push(...membersBelow(join(dir, child)));
  return out;
}

function childCgroups(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

async function removeTreeAsync(dir: string): Promise<boolean> {
  let clean = true;
  let children: string[] = [];
  try {
    children = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    /* gone already, or unreadable: the rmdir below says which */
  }
  for (const child of children) clean = (await removeTreeAsync(join(dir, child))) && clean;
  try {
    await rmdir(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? clean : false;
  }
}

function removeTree(dir: string): boolean {
  let clean = true;
  for (const child of childCgroups(dir)) clean = removeTree(join(dir, child)) && clean;
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? clean : false;
  }
}
