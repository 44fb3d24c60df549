import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { commandLine, listenRows, readTable, socketInodesOf } from './listening-ports.js';

/** Who listens on a TCP port: the process holding the socket, and what it runs. */
export interface PortOwner {
  port: number;
  pid: number;
  /** Its command line, arguments joined by spaces ('' when it cannot be read). */
  command: string;
  /** Every process holding the listening socket (a server that forked after listening shares it), lowest first; `pid` is the first. */
  holders: number[];
}

/**
 * What a look-up found: the owner, nobody listening, or a socket whose holder this user cannot
 * see (another user's process) or an OS where Drover cannot look.
 */
export type PortLookup =
  { found: true; owner: PortOwner } | { found: false; reason: 'none' | 'hidden' | 'unsupported'; detail: string };

/** Inodes of sockets listening on `port`, from one /proc/net table (IPv4 or IPv6). */
export function listeningInodes(table: string, port: number): string[] {
  return listenRows(table)
    .filter((row) => row.port === port)
    .map((row) => row.inode);
}

/** Linux: the LISTEN sockets of the port, then the processes whose descriptors point at them. */
function linuxOwner(port: number): PortLookup {
  const inodes = new Set([
    ...listeningInodes(readTable('/proc/net/tcp'), port),
    ...listeningInodes(readTable('/proc/net/tcp6'), port),
  ]);
  if (inodes.size === 0) return { found: false, reason: 'none', detail: `nothing listens on TCP port ${port}` };
  const holders: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    // A process gone meanwhile, or another user's, holds nothing we can see.
    if (socketInodesOf(Number(name)).some((inode) => inodes.has(inode))) holders.push(Number(name));
  }
  if (holders.length === 0)
    return {
      found: false,
      reason: 'hidden',
      detail: `something listens on TCP port ${port}, but its process is not visible to this user`,
    };
  holders.sort((a, b) => a - b);
  const pid = holders[0]!;
  return { found: true, owner: { port, pid, command: commandLine(pid), holders } };
}

/** The optional pid-port package, where it is installed; Drover does not depend on it. */
interface PidPort {
  portToPid(port: number | { port: number; host?: string }): Promise<number | undefined>;
}

async function loadPidPort(): Promise<PidPort | null> {
  try {
    const require = createRequire(import.meta.url);
    const path = require.resolve('pid-port');
    return (await import(path)) as PidPort;
  } catch {
    return null;
  }
}

/** macOS and Windows: pid-port when it is installed, else an honest "cannot look here". */
async function otherOwner(port: number): Promise<PortLookup> {
  const pidPort = await loadPidPort();
  if (!pidPort)
    return {
      found: false,
      reason: 'unsupported',
      detail: `finding who listens on a port is unsupported on this OS (${process.platform})`,
    };
  let pid: number | undefined;
  try {
    pid = await pidPort.portToPid(port);
  } catch {
    pid = undefined; // pid-port throws when nothing listens
  }
  if (!pid) return { found: false, reason: 'none', detail: `nothing listens on TCP port ${port}` };
  return { found: true, owner: { port, pid, command: '', holders: [pid] } };
}

/** Who listens on TCP `port`, on IPv4 or IPv6. */
export async function findPortOwner(port: number): Promise<PortLookup> {
  return process.platform === 'linux' ? linuxOwner(port) : otherOwner(port);
}
