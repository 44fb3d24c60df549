import type { IncomingMessage, ServerResponse } from 'node:http';
import { DroverError, type ErrorCode, type IpcError } from '../../shared/ipc/errors.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import { KeyShapeError, snake, toCamelKeys, toSnakeKeys } from './case.js';
import { OPENAPI_PATH, openApiDocument } from './openapi.js';
import { LOG_DOWNLOAD, LOG_TICKET, issueLogTicket, sendTaskLog, type LogTicketIssuer } from './log-download.js';
import { routes } from './rest-routes.js';

/** The REST surface's paths live in rest-routes.ts; this file serves them over HTTP. */
export { REST_PREFIX, routes, type Route } from './rest-routes.js';
export const REST_MAX_BODY_BYTES = 1024 * 1024;

export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  unknown_request: 404,
  not_found: 404,
  conflict: 409,
  unauthorized: 401,
  misdirected: 421,
  unavailable: 503,
  disk_full: 507,
  busy: 429,
  method_not_allowed: 405,
  disconnected: 503,
  internal: 500,
};

/** Answers one authorised /api request. Never throws; every failure is JSON `{error}` with a 4xx/5xx. */
export async function handleRest(
  endpoint: ServerEndpoint,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  /** The host server's download tickets; without them there is no log-ticket route. */
  tickets?: LogTicketIssuer,
): Promise<void> {
  if (url.pathname === OPENAPI_PATH && req.method === 'GET') return sendOpenApi(endpoint, res);
  const log = LOG_DOWNLOAD.exec(url.pathname);
  if (log) return sendTaskLog(endpoint, req, res, log.slice(1).map(safeDecode), sendError);
  const ticket = LOG_TICKET.exec(url.pathname);
  if (ticket && tickets) return issueLogTicket(endpoint, req, res, ticket.slice(1).map(safeDecode), tickets, sendError);
  const matching = routes.filter((route) => route.pattern.test(url.pathname));
  if (matching.length === 0) {
    return sendError(res, new DroverError('not_found', `No API route ${url.pathname}`).toJSON());
  }
  const route = matching.find((candidate) => candidate.method === req.method);
  if (!route) {
    res.setHeader('Allow', matching.map((candidate) => candidate.method).join(', '));
    return sendJson(res, 405, {
      error: { code: 'method_not_allowed', message: `${req.method} is not allowed on ${url.pathname}` },
    });
  }
  let body: Record<string, unknown> = {};
  if (req.method !== 'GET' && req.method !== 'DELETE') {
    const read = await readJsonBody(req);
    if ('error' in read) return sendError(res, read.error);
    body = read.value;
  }
  const params = route.pattern
    .exec(url.pathname)!
    .slice(1)
    .map((part) => safeDecode(part));
  const result = await endpoint.handle(route.request, route.input(params, body, url.searchParams));
  if (!result.ok) return sendError(res, result.error);
  sendJson(res, route.status ?? 200, toSnakeKeys(route.present ? route.present(result.value) : result.value));
}

async function readJsonBody(req: IncomingMessage): Promise<{ value: Record<string, unknown> } | { error: IpcError }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > REST_MAX_BODY_BYTES) {
      return { error: new DroverError('invalid_input', `Body is larger than ${REST_MAX_BODY_BYTES} bytes`).toJSON() };
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return { value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: new DroverError('invalid_input', 'Body is not valid JSON').toJSON() };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { error: new DroverError('invalid_input', 'Body must be a JSON object').toJSON() };
  }
  try {
    return { value: toCamelKeys(parsed) as Record<string, unknown> };
  } catch (error) {
    if (!(error instanceof KeyShapeError)) throw error;
    const detail = error.path === '' ? {} : { path: error.path };
    return { error: new DroverError('invalid_input', error.message, detail).toJSON() };
  }
}

/** Each endpoint's document, built once (it depends only on code and the app's version) and sent as the same bytes. */
const described = new WeakMap<ServerEndpoint, string>();

async function sendOpenApi(endpoint: ServerEndpoint, res: ServerResponse): Promise<void> {
  let text = described.get(endpoint);
  if (text === undefined) {
    const info = await endpoint.handle('appInfo', {});
    if (!info.ok) return sendError(res, info.error);
    text = JSON.stringify(openApiDocument((info.value as { version: string }).version));
    described.set(endpoint, text);
  }
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text);
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function sendError(res: ServerResponse, error: IpcError): void {
  const shown: IpcError = { ...error };
  if (shown.path !== undefined) shown.path = snakePath(shown.path);
  if (shown.issues) shown.issues = shown.issues.map((issue) => ({ ...issue, path: snakePath(issue.path) }));
  // Only the "path: " that invalidInput writes is renamed; a path quoted elsewhere in the text stays as sent.
  if (shown.path !== undefined) shown.message = shown.message.replace(`${error.path!}: `, `${shown.path}: `);
  sendJson(res, ERROR_STATUS[error.code], { error: shown });
}

function snakePath(path: string): string {
  return path.split('.').map(snake).join('.');
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(body);
}
