import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { DroverError } from '../../shared/ipc/errors.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import { WS_PATH } from '../../shared/ipc/ws-protocol.js';
import { ContractWsServer } from '../ipc/ws-server.js';
import { REST_PREFIX, handleRest, sendError } from '../ipc/rest.js';
import { bearerToken, originAllowed, tokensMatch } from './auth.js';
import { serveStatic } from './static-files.js';

export const HOST_ADDRESS = '127.0.0.1';

export interface HostServerOptions {
  endpoint: ServerEndpoint;
  token: string;
  /** 0 picks a free port. */
  port: number;
  /** The built renderer (out/renderer). */
  staticDir: string;
}

export interface HostServer {
  readonly port: number;
  /** The address a person opens: it carries the token. */
  readonly url: string;
  close(): Promise<void>;
}

/** HTTP on loopback only: the built UI, the contract over WebSocket, and REST under /api. */
export async function startHostServer(options: HostServerOptions): Promise<HostServer> {
  const ws = new ContractWsServer(options.endpoint);
  let port = options.port;

  const server = createServer((req, res) => {
    void onRequest(req, res).catch((error: unknown) => {
      console.error('[drover] request failed:', error);
      if (!res.headersSent) sendError(res, new DroverError('internal', 'The request failed inside Drover').toJSON());
      else res.destroy();
    });
  });

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', `http://${HOST_ADDRESS}:${port}`);
    if (url.pathname === REST_PREFIX || url.pathname.startsWith(`${REST_PREFIX}/`)) {
      if (!tokensMatch(bearerToken(req), options.token)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="drover"');
        return sendError(res, new DroverError('unauthorized', 'Missing or wrong token: send Authorization: Bearer TOKEN').toJSON());
      }
      return handleRest(options.endpoint, req, res, url);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    return serveStatic(options.staticDir, url.pathname, res);
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', `http://${HOST_ADDRESS}:${port}`);
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (url.pathname !== WS_PATH) return refuse(404, 'Not Found');
    if (!originAllowed(req.headers.origin, port)) return refuse(403, 'Forbidden');
    if (!tokensMatch(url.searchParams.get('token') ?? bearerToken(req), options.token)) return refuse(401, 'Unauthorized');
    ws.accept(req, socket, head);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, HOST_ADDRESS, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    port,
    url: `http://${HOST_ADDRESS}:${port}/?token=${encodeURIComponent(options.token)}`,
    close: () =>
      new Promise<void>((resolve) => {
        ws.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
