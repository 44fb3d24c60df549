import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFileAtomic } from '../store/private-files.js';

/**
 * The port the headless host listened on last time, kept in its data folder. Started without
 * --port, the host asks for that port again (and takes any free one when it is in use): the
 * address stays the same across restarts, so a browser keeps its cached copy of the page and its
 * compiled code for the next visit (the open bench's "open again" against "first open") and
 * its history still names the host.
 */
export const LAST_PORT_FILE = 'host-port';

/** The port saved by an earlier start; none when the file is missing or does not hold a port. */
export function readLastPort(dataDir: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, LAST_PORT_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const port = /^\s*(\d{1,5})\s*$/.exec(text)?.[1];
  return port !== undefined && Number(port) >= 1 && Number(port) <= 65_535 ? Number(port) : undefined;
}

/** Best effort: a host that cannot save its port still runs; the next start takes any free one. */
export function saveLastPort(dataDir: string, port: number): void {
  try {
    writePrivateFileAtomic(join(dataDir, LAST_PORT_FILE), `${port}\n`);
  } catch (error) {
    console.error(`drover: could not remember the port for the next start: ${(error as Error).message}`);
  }
}

/**
 * Whether a listen failed because that port cannot be had now: another program holds it, or the
 * system has since reserved it (Windows answers EACCES for the port ranges it excludes).
 */
export function portUnavailable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EADDRINUSE' || code === 'EACCES';
}
