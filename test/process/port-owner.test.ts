import { createServer } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { findPortOwner, listeningInodes } from '../../electron/process/port-owner.js';
import { killChildren, serverScript, startNode } from './child-lines.js';

afterEach(killChildren);

/** A port nobody listens on now: one the OS gave out and that was closed again. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

describe.runIf(process.platform === 'linux')('who listens on a port (Linux /proc)', () => {
  it('finds the pid and command of a real IPv4 server', async () => {
    const { child, line } = await startNode(serverScript('127.0.0.1'));
    const lookup = await findPortOwner(Number(line));
    expect(lookup).toMatchObject({ found: true, owner: { port: Number(line), pid: child.pid, holders: [child.pid] } });
    if (lookup.found) expect(lookup.owner.command).toContain('createServer');
  });

  it('finds an IPv6 server too', async () => {
    const { child, line } = await startNode(serverScript('::'));
    expect(await findPortOwner(Number(line))).toMatchObject({ found: true, owner: { pid: child.pid } });
  });

  it('says nobody listens on a closed port', async () => {
    const port = await freePort();
    expect(await findPortOwner(port)).toEqual({
      found: false,
      reason: 'none',
      detail: `nothing listens on TCP port ${port}`,
    });
  });

  it('reads only LISTEN rows of the port asked for', () => {
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0 100 0 0 10 0',
      '   1: 0100007F:0BB8 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000  1000        0 222 1 0 20 4 30 10 -1',
      '   2: 0100007F:0BB9 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 333 1 0 100 0 0 10 0',
    ].join('\n');
    expect(listeningInodes(table, 3000)).toEqual(['111']);
    expect(listeningInodes(table, 3001)).toEqual(['333']);
    expect(listeningInodes(table, 80)).toEqual([]);
  });
});
