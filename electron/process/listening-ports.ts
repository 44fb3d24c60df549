import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** One TCP socket in LISTEN state and one process holding it. */
export interface ListeningSocket {
  port: number;
  pid: number;
}

/** One LISTEN row of a /proc/net table: the socket's inode and its local port. */
export interface ListenRow {
  inode: string;
  port: number;
}

/** TCP state 0A in /proc/net/tcp{,6}: LISTEN. */
const LISTEN = '0A';

/** The LISTEN sockets of one /proc/net table (IPv4 or IPv6); rows without an inode (0) are left out. */
export function listenRows(table: string): ListenRow[] {
  const rows: ListenRow[] = [];
  for (const line of table.split('\n').slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || fields[3] !== LISTEN || fields[9] === '0') continue;
    const local = fields[1]!;
    rows.push({ inode: fields[9]!, port: parseInt(local.slice(local.lastIndexOf(':') + 1), 16) });
  }
  return rows;
}

/** A /proc/net table's text; '' where it cannot be read (no IPv6 in this kernel: IPv4 answers alone). */
export function readTable(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Linux: the inodes of the sockets among a process's descriptors; [] when it is gone or not ours to read. */
export function socketInodesOf(pid: number): string[] {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return []; // gone meanwhile, or another user's
  }
  const inodes: string[] = [];
  for (const fd of fds) {
    let link: string;
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    if (link.startsWith('socket:[') && link.endsWith(']')) inodes.push(link.slice(8, -1));
  }
  return inodes;
}

/** A process's command line, arguments joined by spaces ('' when it cannot be read, or off Linux). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').split('\0').join(' ');
  } catch {
    return '';
  }
}

/**
 * The TCP ports the given processes listen on (IPv4 and IPv6): one entry per (port, pid), sorted
 * by port then pid. A pid that is gone or cannot be read is skipped. Reads only these pids'
 * descriptors, and the /proc/net tables once, and only when one of them holds a socket; it never
 * walks all of /proc. Null off Linux, where Drover cannot look (the caller shows no ports).
 */
export function listeningPortsOf(pids: readonly number[]): ListeningSocket[] | null {
  return finish(listeningPortsSteps(pids));
}

/** What a scan in steps is: `next()` does one step; the last one returns the answer. */
export type ScanSteps = Iterator<void, ListeningSocket[] | null, void>;

/** Runs a scan's steps to the end, here and now. */
export function finish(steps: ScanSteps): ListeningSocket[] | null {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * listeningPortsOf in steps, one per process (its descriptors are read link by link: a few
 * hundred system calls for a busy server) and one for the tables, so a caller that runs it on the
 * event loop can let other work in between (PortIndex).
 */
export function* listeningPortsSteps(pids: readonly number[]): Generator<void, ListeningSocket[] | null, void> {
  if (process.platform !== 'linux') return null;
  const holders = new Map<string, number[]>(); // socket inode → the pids holding it
  for (const pid of new Set(pids)) {
    if (!Number.isInteger(pid) || pid <= 0) continue;
    for (const inode of new Set(socketInodesOf(pid))) {
      const list = holders.get(inode);
      if (list) list.push(pid);
      else holders.set(inode, [pid]);
    }
    yield;
  }
  if (holders.size === 0) return [];
  const seen = new Set<string>();
  const found: ListeningSocket[] = [];
  for (const path of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const { inode, port } of listenRows(readTable(path)))
      for (const pid of holders.get(inode) ?? []) {
        const key = `${port}/${pid}`;
        if (seen.has(key)) continue; // one port on both IPv4 and IPv6
        seen.add(key);
        found.push({ port, pid });
      }
    yield;
  }
  return found.sort((a, b) => a.port - b.port || a.pid - b.pid);
}
