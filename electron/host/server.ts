import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { DroverError } from '../../shared/ipc/errors.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import { WS_PATH } from '../../shared/ipc/ws-protocol.js';
import { ContractWsServer } from '../ipc/ws-server.js';
import { REST_PREFIX, handleRest, sendError } from '../ipc/rest.js';
import { FairQueues } from '../ipc/fair-queue.js';
import { bearerToken, hostAllowed, originAllowed, tokensMatch } from './auth.js';
import { StaticFiles } from './static-files.js';
import { DOWNLOAD_PATH, DOWNLOAD_PREFIX, DownloadTickets, type DownloadTicketsOptions } from './download-tickets.js';
import { streamTaskLog } from '../ipc/log-download.js';

export const HOST_ADDRESS = '127.0.0.1';
/** A client must send its request line and headers within this time (slowloris)… */
export const HEADERS_TIMEOUT_MS = 10_000;
/** …and the whole request, its body included (1 MB at most), within this. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How often those limits are checked; Node's default of 30 s would let a slow client hold on far past them. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

export interface HostServerOptions {
  endpoint: ServerEndpoint;
  token: string;
  /** 0 picks a free port. */
  port: number;
  /** The built renderer (out/renderer). */
  staticDir: string;
  /** Requests one connection (a WebSocket, or one keep-alive HTTP connection) may have running at once; more wait. */
  maxInFlightPerConnection?: number;
  /** How long a WebSocket client may take nothing of what is sent to it before it is cut off. */
  wsStallMs?: number;
  /** The log download tickets' lifetime, cap and clock (tests shorten them). */
  downloadTickets?: DownloadTicketsOptions;
}

export interface HostServer {
  readonly port: number;
  /** The address a person opens: it carries the token. */
  readonly url: string;
  close(): Promise<void>;
}

/** HTTP on loopback only: the built UI, the contract over WebSocket, and REST under /api. */
export async function startHostServer(options: HostServerOptions): Promise<HostServer> {
  const ws = new ContractWsServer(options.endpoint, {
    maxInFlightPerConnection: options.maxInFlightPerConnection,
    stallMs: options.wsStallMs,
  });
  const restQueues = new FairQueues<object>({ maxInFlight: options.maxInFlightPerConnection });
  // Each server its own: a ticket one host issued is unknown to any other.
  const tickets = new DownloadTickets(options.downloadTickets);
  const statics = new StaticFiles(options.staticDir);
  let port = options.port;

  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    (req, res) => {
      void onRequest(req, res).catch((error: unknown) => {
        // A client that went away mid-body is not a failure of Drover's: nothing to answer, nothing to log.
        if (req.destroyed && !req.complete) return void res.destroy();
        console.error('[drover] request failed:', error);
        if (!res.headersSent) sendError(res, new DroverError('internal', 'The request failed inside Drover').toJSON());
        else res.destroy();
      });
    },
  );

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    if (!hostAllowed(req.headers.host, port)) {
      return sendError(res, new DroverError('misdirected', misdirected(req.headers.host, port)).toJSON());
    }
    const url = new URL(req.url ?? '/', `http://${HOST_ADDRESS}:${port}`);
    if (url.pathname === REST_PREFIX || url.pathname.startsWith(`${REST_PREFIX}/`)) {
      if (!tokensMatch(bearerToken(req), options.token)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="drover"');
        return sendError(
          res,
          new DroverError('unauthorized', 'Missing or wrong token: send Authorization: Bearer TOKEN').toJSON(),
        );
      }
      // Pipelined requests on one keep-alive connection share that connection's fair share.
      try {
        return await restQueues.for(req.socket).run(() => handleRest(options.endpoint, req, res, url, tickets));
      } catch (error) {
        if (error instanceof DroverError) return sendError(res, error.toJSON());
        throw error;
      }
    }
    if (url.pathname.startsWith(DOWNLOAD_PREFIX)) return spendTicket(req, res, url);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    return statics.serve(url.pathname, res);
  };

  /**
   * `GET /download/TICKET`: no token here (a link cannot send the header); the ticket, issued over
   * an authorised call, stands in for it once. The Host check above applies as everywhere.
   */
  const spendTicket = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method !== 'GET') {
      // Checked before the ticket is spent, so a stray HEAD or POST does not use it up.
      res.setHeader('Allow', 'GET');
      return sendError(
        res,
        new DroverError('method_not_allowed', `${req.method} is not allowed on a download`).toJSON(),
      );
    }
    const ticket = DOWNLOAD_PATH.exec(url.pathname)?.[1];
    const target = ticket === undefined ? undefined : tickets.take(ticket);
    if (target === undefined) {
      return sendError(res, new DroverError('not_found', 'This download link is unknown, used or expired').toJSON());
    }
    // Not through the connection's fair queue: each download was paid for by an authorised call
    // that went through it, and a spent ticket must not then be answered 'busy'.
    return streamTaskLog(options.endpoint, res, target.sessionId, target.taskId, sendError);
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', `http://${HOST_ADDRESS}:${port}`);
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (!hostAllowed(req.headers.host, port)) return refuse(421, 'Misdirected Request');
    if (url.pathname !== WS_PATH) return refuse(404, 'Not Found');
    if (!originAllowed(req.headers.origin, port)) return refuse(403, 'Forbidden');
    if (!tokensMatch(url.searchParams.get('token') ?? bearerToken(req), options.token))
      return refuse(401, 'Unauthorized');
    ws.accept(req, socket, head);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, HOST_ADDRESS, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    // Nothing of a server that never listened stays behind (its socket server hears the services' events).
    ws.close();
    throw error;
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

function misdirected(host: string | undefined, port: number): string {
  return `This host answers only to 127.0.0.1:${port} and localhost:${port}, not to ${host === undefined ? 'a request without a Host header' : `"${host}"`}`;
}
