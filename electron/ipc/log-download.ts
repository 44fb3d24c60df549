import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { DroverError } from '../../shared/ipc/errors.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import type { TaskWithOutput } from '../../shared/schemas/task.js';

/** `GET /api/sessions/{id}/background-tasks/{task_id}/log`: the whole raw log, as a file to save. */
export const LOG_DOWNLOAD = /^\/api\/sessions\/([^/]+)\/background-tasks\/([^/]+)\/log\/?$/;

export type ErrorSender = (res: ServerResponse, error: ReturnType<DroverError['toJSON']>) => void;

/**
 * Sends a task's whole log as an attachment. The bytes are the log as written (escape sequences
 * and all), streamed from disk so a log of any size costs no memory; `nosniff` keeps a browser
 * from ever treating a child's output as a page. The task is looked up through the contract, so
 * a bad id or an unknown task answers the same errors as every other route.
 */
export async function sendTaskLog(
  endpoint: ServerEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  params: readonly string[],
  sendError: ErrorSender,
): Promise<void> {
  if (req.method !== 'GET') {
    res.setHeader('Allow', 'GET');
    return sendError(
      res,
      new DroverError('method_not_allowed', `${req.method ?? 'This method'} is not allowed on a task's log`).toJSON(),
    );
  }
  const [sessionId, taskId] = params;
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
