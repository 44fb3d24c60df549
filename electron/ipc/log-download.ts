import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { DroverError } from '../../shared/ipc/errors.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import type { TaskWithOutput } from '../../shared/schemas/task.js';

/** `GET /api/sessions/{id}/background-tasks/{task_id}/log`: the whole raw log, as a file to save. */
export const LOG_DOWNLOAD = /^\/api\/sessions\/([^/]+)\/background-tasks\/([^/]+)\/log\/?$/;
/** `POST /api/sessions/{id}/background-tasks/{task_id}/log-ticket`: a one-time link to that same download. */
export const LOG_TICKET = /^\/api\/sessions\/([^/]+)\/background-tasks\/([^/]+)\/log-ticket\/?$/;

export type ErrorSender = (res: ServerResponse, error: ReturnType<DroverError['toJSON']>) => void;

/** What hands out download tickets (the host server's store); the REST layer only asks it for one. */
export interface LogTicketIssuer {
  issue(target: { sessionId: string; taskId: string }): { url: string };
}

/** `GET …/log` with the bearer token: scripts save a log this way. */
export async function sendTaskLog(
  endpoint: ServerEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  params: readonly string[],
  sendError: ErrorSender,
): Promise<void> {
  if (!allowMethod(req, res, 'GET', sendError)) return;
  const [sessionId = '', taskId = ''] = params;
  return streamTaskLog(endpoint, res, sessionId, taskId, sendError);
}

/**
 * `POST …/log-ticket`: a browser saves a file to disk as it arrives only by following a link,
 * and a link carries no Authorization header. The page therefore trades its token (in the header
 * of this call) for a single-use ticket URL under /download/, which never holds the token. The
 * task is looked up first, so a ticket is only ever issued for a task that exists.
 */
export async function issueLogTicket(
  endpoint: ServerEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  params: readonly string[],
  tickets: LogTicketIssuer,
  sendError: ErrorSender,
): Promise<void> {
  if (!allowMethod(req, res, 'POST', sendError)) return;
  const [sessionId = '', taskId = ''] = params;
  const found = await endpoint.handle('getTask', { sessionId, taskId, tail: 1 });
  if (!found.ok) return sendError(res, found.error);
  // The contract's id (not the path's spelling of it), so the ticket names exactly the task found.
  const { task } = found.value as TaskWithOutput;
  const { url } = tickets.issue({ sessionId, taskId: task.id });
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify({ url }));
}

/**
 * Sends a task's whole log as an attachment. The bytes are the log as written (escape sequences
 * and all), streamed from disk so a log of any size costs no memory; `nosniff` keeps a browser
 * from ever treating a child's output as a page. The task is looked up through the contract, so
 * a bad id or an unknown task answers the same errors as every other route.
 */
export async function streamTaskLog(
  endpoint: ServerEndpoint,
  res: ServerResponse,
  sessionId: string,
  taskId: string,
  sendError: ErrorSender,
): Promise<void> {
  const found = await endpoint.handle('getTask', { sessionId, taskId, tail: 1 });
  if (!found.ok) return sendError(res, found.error);
  const { task } = found.value as TaskWithOutput;
  const size = await stat(task.logPath).then(
    (info) => info.size,
    () => 0,
  );
  res.writeHead(200, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Disposition': `attachment; filename="${task.id}.log"`,
    'Content-Length': String(size),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  if (size === 0) return void res.end();
  // Only the bytes there when the answer began: a running task's log keeps growing past Content-Length.
  await pipeline(createReadStream(task.logPath, { start: 0, end: size - 1 }), res).catch(() => res.destroy());
}

function allowMethod(req: IncomingMessage, res: ServerResponse, method: string, sendError: ErrorSender): boolean {
  if (req.method === method) return true;
  res.setHeader('Allow', method);
  sendError(
    res,
    new DroverError('method_not_allowed', `${req.method ?? 'This method'} is not allowed on a task's log`).toJSON(),
  );
  return false;
}
