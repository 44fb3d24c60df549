import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ContractWsServer } from '../../electron/ipc/ws-server.js';

/**
 * Puts `contract` behind an HTTP server on a free port of 127.0.0.1, every upgrade accepted; both
 * are closed by the closer it adds to `closers`. Returns the WebSocket's address.
 */
export async function serveContract(contract: ContractWsServer, closers: (() => void)[]): Promise<string> {
  const http = createServer();
  http.on('upgrade', (req, socket, head) => contract.accept(req, socket, head));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    contract.close();
    http.close();
  });
  return `ws://127.0.0.1:${(http.address() as AddressInfo).port}/ws`;
}
