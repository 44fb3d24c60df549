/**
 * The HTTP side of the fake model servers: one node:http server per fake, a queue of scripted
 * replies, a record of every request, and the plumbing for delays, hangs and error answers.
 * What the wire format looks like lives in the dialects (openai.ts, anthropic.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isRecord, safeJson, tokenEstimate } from './text.js';
import type { Answer, Dialect, FakeModelServer, RecordedRequest, ScriptedReply } from './types.js';

/** Scripted reply functions may return further functions; past this depth it is a script bug. */
const MAX_REPLY_FUNCTION_DEPTH = 16;
const DEFAULT_WAIT_MS = 5_000;

type TextReply = { text: string; delayMs?: number };
type ToolReply = { toolCalls: { name: string; args: unknown; id?: string }[]; text?: string; delayMs?: number };
type ErrorReply = { status: number; body?: unknown; headers?: Record<string, string>; after?: PromiseLike<unknown> };
type HangReply = { hangMs: number };
type PlainReply = TextReply | ToolReply | ErrorReply | HangReply;

interface Waiter {
  n: number;
  resolve: (requests: RecordedRequest[]) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

export async function startFakeModelServer(dialect: Dialect): Promise<FakeModelServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const waiters = new Set<Waiter>();
  const timers = new Set<NodeJS.Timeout>();
  let toolCallCounter = 0;
  let closed = false;
  let closing: Promise<void> | undefined;

  /** Waits `ms`, or less if the client goes away; true when the response can still be written. */
  function pause(ms: number, res: ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      if (res.destroyed) return resolve(false);
      const done = (): void => {
        clearTimeout(timer);
        timers.delete(timer);
        res.off('close', done);
        resolve(!res.destroyed && !res.writableEnded);
      };
      const timer = setTimeout(done, Math.max(0, ms));
      timers.add(timer);
      res.on('close', done);
    });
  }

  function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
    if (res.destroyed || res.headersSent) return;
    const body = typeof payload === 'string' ? payload : safeJson(payload);
    res.writeHead(status, {
      'content-type': typeof payload === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
      ...headers,
    });
    res.end(body);
  }

  /** An error answer in the dialect's own error shape, immediately retryable (see retry-after-ms). */
  function sendError(res: ServerResponse, status: number, message: string): void {
    sendJson(res, status, dialect.errorBody(status, message), { 'retry-after-ms': '0' });
  }

  function notifyWaiters(): void {
    for (const waiter of waiters) {
      if (requests.length >= waiter.n) {
        clearTimeout(waiter.timer);
        waiters.delete(waiter);
        waiter.resolve([...requests]);
      }
    }
  }

  function resolveReply(reply: ScriptedReply, request: RecordedRequest): PlainReply {
    let current = reply;
    for (let depth = 0; typeof current === 'function'; depth++) {
      if (depth >= MAX_REPLY_FUNCTION_DEPTH)
        throw new Error(`reply functions nested deeper than ${MAX_REPLY_FUNCTION_DEPTH}`);
      current = current(request);
    }
    return current;
  }

  function toAnswer(reply: TextReply | ToolReply, request: RecordedRequest, requestNumber: number): Answer {
    const toolCalls = ('toolCalls' in reply ? reply.toolCalls : []).map((call) => {
      const args = call.args === undefined ? {} : call.args;
      return {
        id: call.id ?? `${dialect.toolCallIdPrefix}${++toolCallCounter}`,
        name: call.name,
        args,
        argsJson: safeJson(args),
      };
    });
    const text = reply.text ?? (toolCalls.length === 0 ? '' : undefined);
    const outputChars =
      (text ?? '').length + toolCalls.reduce((sum, call) => sum + call.name.length + call.argsJson.length, 0);
    const body = request.body as Record<string, unknown>;
    return {
      text,
      toolCalls,
      inputTokens: tokenEstimate(safeJson(body['messages'] ?? '') + safeJson(body['system'] ?? '')),
      outputTokens: Math.max(1, Math.ceil(outputChars / 4)),
      requestNumber,
      model: typeof body['model'] === 'string' ? body['model'] : 'fake-model',
    };
  }

  async function sendAnswer(res: ServerResponse, answer: Answer, stream: boolean): Promise<void> {
    if (!stream) {
      sendJson(res, 200, dialect.json(answer));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const event of dialect.events(answer)) {
      if (res.destroyed) return;
      res.write(`${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${event.data}\n\n`);
      // A turn of the event loop between events, so they tend to arrive as separate chunks.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path !== dialect.path) {
      req.resume();
      sendError(
        res,
        404,
        `fake model (${dialect.kind}): no route for ${req.method ?? '?'} ${path}; only POST ${dialect.path} is served`,
      );
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      sendError(res, 405, `fake model (${dialect.kind}): ${path} takes POST, not ${req.method ?? '?'}`);
      return;
    }
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (error) {
      sendError(res, 400, `fake model: request body is not valid JSON (${(error as Error).message})`);
      return;
    }
    if (!isRecord(body)) {
      sendError(res, 400, 'fake model: request body must be a JSON object');
      return;
    }

    const requestNumber = requests.length + 1;
    const recorded: RecordedRequest = {
      path,
      headers: { ...req.headers },
      body,
      stream: body['stream'] === true,
      transcript: dialect.transcript(body),
      tools: dialect.tools(body),
    };
    requests.push(recorded);
    notifyWaiters();

    const scripted = queue.shift();
    if (scripted === undefined) {
      sendError(res, 500, `fake model: no scripted reply left for request ${requestNumber}`);
      return;
    }
    let reply: PlainReply;
    try {
      reply = resolveReply(scripted, recorded);
    } catch (error) {
      sendError(
        res,
        500,
        `fake model: the scripted reply function for request ${requestNumber} threw: ${(error as Error).message}`,
      );
      return;
    }

    if ('hangMs' in reply) {
      if (await pause(reply.hangMs, res)) res.destroy();
      return;
    }
    if ('status' in reply) {
      if (reply.after) await reply.after;
      const headers = { ...reply.headers };
      if (!hasHeader(headers, 'retry-after-ms') && !hasHeader(headers, 'retry-after')) headers['retry-after-ms'] = '0';
      const payload =
        reply.body === undefined
          ? dialect.errorBody(reply.status, `fake model: scripted HTTP ${reply.status} for request ${requestNumber}`)
          : reply.body;
      sendJson(res, reply.status, payload, headers);
      return;
    }
    if ('toolCalls' in reply || 'text' in reply) {
      if (reply.delayMs !== undefined && reply.delayMs > 0 && !(await pause(reply.delayMs, res))) return;
      await sendAnswer(res, toAnswer(reply, recorded, requestNumber), recorded.stream);
      return;
    }
    sendError(
      res,
      500,
      `fake model: scripted reply for request ${requestNumber} is none of text, toolCalls, status or hangMs: ${safeJson(reply)}`,
    );
  }

  const server = createServer((req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendError(res, 500, `fake model: internal error: ${(error as Error)?.message ?? String(error)}`);
      else res.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    kind: dialect.kind,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get pending() {
      return queue.length;
    },
    enqueue(...replies: ScriptedReply[]): void {
      queue.push(...replies);
    },
    waitForRequests(n: number, timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedRequest[]> {
      if (requests.length >= n) return Promise.resolve([...requests]);
      if (closed)
        return Promise.reject(new Error(`fake model: server closed with ${requests.length} of ${n} requests received`));
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          n,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            reject(new Error(`fake model: waited ${timeoutMs} ms for ${n} requests, received ${requests.length}`));
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        closed = true;
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        for (const waiter of waiters) {
          clearTimeout(waiter.timer);
          waiter.reject(
            new Error(`fake model: server closed with ${requests.length} of ${waiter.n} requests received`),
          );
        }
        waiters.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
