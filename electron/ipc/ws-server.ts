import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  CallFrameSchema,
  HANDSHAKE_PARAM,
  HandshakeCallsSchema,
  type CallFrame,
  type ResultFrame,
  type ServerFrame,
} from '../../shared/ipc/ws-protocol.js';
import { DroverError, invalidInput } from '../../shared/ipc/errors.js';
import type { ServerEndpoint } from '../../shared/ipc/transport.js';
import { FairQueues } from './fair-queue.js';
import { TurnBatch, type ContractEvent } from './turn-batch.js';
import { resultFrameJson } from '../core/wire-json.js';

/** A frame larger than this is refused by the socket itself. */
export const WS_MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** A client that falls this far behind on events is cut off; it reconnects and reloads. */
export const WS_MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
/**
 * An answer waits, holding its connection's slot, while this much is still unsent to its client: a
 * client that reads slowly paces its own requests instead of piling answers up in the host.
 */
export const WS_SEND_WINDOW_BYTES = 4 * 1024 * 1024;
/** A client that takes none of what is waiting for it in this long is cut off (settings.json "host"). */
export const DEFAULT_WS_STALL_MS = 60_000;

export interface ContractWsServerOptions {
  maxInFlightPerConnection?: number | undefined;
  /** How long a client may leave what is sent to it untaken before it is cut off. */
  stallMs?: number | undefined;
}

/** Carries the contract over WebSockets: one endpoint, any number of clients. */
export class ContractWsServer {
  // One message per turn of the event loop: a client that sends a thousand frames at once has them
  // read one at a time, between everyone else's requests, instead of all in one blocking turn.
  readonly #wss = new WebSocketServer({
    noServer: true,
    maxPayload: WS_MAX_FRAME_BYTES,
    allowSynchronousEvents: false,
  });
  readonly #endpoint: ServerEndpoint;
  readonly #unsubscribe: () => void;
  readonly #queues: FairQueues<WebSocket>;
  readonly #outboxes = new WeakMap<WebSocket, Outbox>();
  readonly #stallMs: number;
  /**
   * Events wait for the end of the turn of the event loop they happened in, then go to every
   * client together: one `events` frame (one `event` frame for a lone one), serialised once.
   */
  readonly #events = new TurnBatch<ContractEvent>((events) => this.#sendEvents(events));

  constructor(endpoint: ServerEndpoint, options: ContractWsServerOptions = {}) {
    this.#endpoint = endpoint;
    this.#queues = new FairQueues({ maxInFlight: options.maxInFlightPerConnection });
    this.#stallMs = options.stallMs ?? DEFAULT_WS_STALL_MS;
    this.#wss.on('connection', (socket: WebSocket, request: IncomingMessage) => this.#serve(socket, request));
    this.#unsubscribe = endpoint.subscribe((name, payload) => this.#events.add({ name, payload }));
  }

  /** Completes an upgrade the caller has already authorised. */
  accept(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#wss.handleUpgrade(request, socket, head, (ws) => this.#wss.emit('connection', ws, request));
  }

  get clientCount(): number {
    return this.#wss.clients.size;
  }

  close(): void {
    this.#unsubscribe();
    this.#events.close();
    for (const client of this.#wss.clients) client.close(1001, 'Drover is shutting down');
    this.#wss.close();
  }

  #serve(socket: WebSocket, request: IncomingMessage): void {
    const outbox = new Outbox(socket, this.#stallMs);
    this.#outboxes.set(socket, outbox);
    socket.on('close', () => outbox.close());
    socket.on('message', (data, isBinary) => {
      void this.#onMessage(socket, isBinary ? null : data.toString());
    });
    socket.on('error', () => socket.terminate());
    this.#runHandshakeCalls(socket, request.url);
  }

  /** The reads a client carried in its handshake, run as if they were its first frames. */
  #runHandshakeCalls(socket: WebSocket, url: string | undefined): void {
    const carried = new URL(url ?? '/', 'http://host').searchParams.get(HANDSHAKE_PARAM);
    if (carried === null) return;
    let raw: unknown;
    try {
      raw = JSON.parse(carried);
    } catch {
      raw = undefined;
    }
    const calls = HandshakeCallsSchema.safeParse(raw);
    if (calls.success) {
      void this.#runCarried(socket, calls.data);
      return;
    }
    const error = invalidInput('handshake calls', calls.error).toJSON();
    // Each call that can be told apart by its id gets its answer; without any, the connection hears why.
    const ids = Array.isArray(raw) ? raw.map((call) => (call as { id?: unknown } | null)?.id) : [];
    const numbered = ids.filter((id): id is number => typeof id === 'number');
    if (numbered.length === 0) this.#send(socket, { t: 'protocol_error', error });
    for (const id of numbered) this.#send(socket, { t: 'result', id, ok: false, error });
  }

  async #onMessage(socket: WebSocket, text: string | null): Promise<void> {
    let raw: unknown;
    try {
      if (text === null) throw new Error('binary');
      raw = JSON.parse(text);
    } catch {
      this.#send(socket, {
        t: 'protocol_error',
        error: new DroverError('invalid_input', 'A frame must be one JSON object as text').toJSON(),
      });
      return;
    }
    const frame = CallFrameSchema.safeParse(raw);
    if (!frame.success) {
      const id = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
      const error = invalidInput('frame', frame.error).toJSON();
      if (typeof id === 'number') this.#send(socket, { t: 'result', id, ok: false, error });
      else this.#send(socket, { t: 'protocol_error', error });
      return;
    }
    await this.#run(socket, frame.data);
  }

  /**
   * One call in the connection's queue. Its slot is held until the answer is on its way, which waits
   * while the client has much unread: a client that floods and reads slowly is served at its own pace.
   */
  async #run(socket: WebSocket, frame: CallFrame): Promise<void> {
    const outbox = this.#outboxes.get(socket);
    if (!outbox) return;
    try {
      await this.#queues.for(socket).run(async () => {
        // A call whose turn comes after its client has gone is not run.
        if (socket.readyState !== socket.OPEN) return;
        const result = await this.#answer(frame);
        // A settled task's output goes in as the bytes made for its first read (wire-json.ts).
        const answer = result.ok ? resultFrameJson(result.id, result.value) : JSON.stringify(result);
        this.#events.flush(); // what happened before the answer reaches the client before it
        await outbox.sendWhenRoom(answer);
      });
    } catch (error) {
      // Refused before it ran (the connection's queue is full): that answer is small and goes at once.
      this.#send(socket, failed(frame.id, error));
    }
  }

  /** The carried calls, run as the connection opens; their answers go together, in one frame. */
  async #runCarried(socket: WebSocket, frames: CallFrame[]): Promise<void> {
    const queue = this.#queues.for(socket);
    const results = await Promise.all(
      frames.map((frame) => queue.run(() => this.#answer(frame)).catch((error: unknown) => failed(frame.id, error))),
    );
    this.#send(socket, { t: 'results', results });
  }

  async #answer({ id, name, input }: CallFrame): Promise<ResultFrame> {
    let result;
    try {
      result = await this.#endpoint.handle(name, input);
    } catch (error) {
      return failed(id, error);
    }
    return result.ok
      ? { t: 'result', id, ok: true, value: result.value }
      : { t: 'result', id, ok: false, error: result.error };
  }

  #sendEvents(events: ContractEvent[]): void {
    const frame: ServerFrame = events.length === 1 ? { t: 'event', ...events[0]! } : { t: 'events', events };
    const text = JSON.stringify(frame);
    for (const client of this.#wss.clients) this.#sendText(client, text);
  }

  /** Sends the waiting events first, so a client sees everything in the order it happened. */
  #send(socket: WebSocket, frame: ServerFrame): void {
    this.#events.flush();
    this.#sendText(socket, JSON.stringify(frame));
  }

  #sendText(socket: WebSocket, text: string): void {
    this.#outboxes.get(socket)?.send(text);
  }
}

/** A DroverError as the answer to call `id`; anything else is a fault of Drover's and is thrown on. */
function failed(id: number, error: unknown): ResultFrame {
  if (!(error instanceof DroverError)) throw error;
  return { t: 'result', id, ok: false, error: error.toJSON() };
}

/**
 * What one connection has on its way to its client. Events go at once; answers wait their turn while
 * more than WS_SEND_WINDOW_BYTES is unsent. A client is cut off when it falls WS_MAX_BUFFERED_BYTES
 * behind (events keep coming while it reads nothing), or when nothing sent to it has been taken for
 * the stall time: it reconnects and reloads, and the host holds nothing for it meanwhile.
 */
class Outbox {
  readonly #socket: WebSocket;
  readonly #stallMs: number;
  /** Answers waiting for room, in order. */
  readonly #waiting: { text: string | Buffer; sent: () => void }[] = [];
  /** Sends whose writes have not completed yet. */
  #unwritten = 0;
  #stall: NodeJS.Timeout | undefined;

  constructor(socket: WebSocket, stallMs: number) {
    this.#socket = socket;
    this.#stallMs = stallMs;
  }

  /** Sends `text` now, whatever is unsent (an event, a refusal, the handshake's answers); bytes go as UTF-8 text. */
  send(text: string | Buffer): void {
    const socket = this.#socket;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > WS_MAX_BUFFERED_BYTES) {
      socket.terminate();
      return;
    }
    if (this.#unwritten++ === 0) this.#armStall();
    socket.send(text, { binary: false }, () => this.#written());
  }

  /** Sends `text` once less than the window is unsent; resolves when it is sent, or dropped with the connection. */
  sendWhenRoom(text: string | Buffer): Promise<void> {
    return new Promise((sent) => {
      this.#waiting.push({ text, sent });
      this.#flush();
    });
  }

  close(): void {
    clearTimeout(this.#stall);
    this.#stall = undefined;
    for (const { sent } of this.#waiting.splice(0)) sent();
  }

  #flush(): void {
    const socket = this.#socket;
    if (socket.readyState !== socket.OPEN) return this.close();
    // Each send adds to the unsent amount at once, so this lets one window's worth through, not every waiter.
    while (this.#waiting.length > 0 && socket.bufferedAmount < WS_SEND_WINDOW_BYTES) {
      const { text, sent } = this.#waiting.shift()!;
      this.send(text);
      sent();
    }
  }

  #written(): void {
    if (--this.#unwritten === 0) {
      clearTimeout(this.#stall);
      this.#stall = undefined;
    } else {
      this.#stall?.refresh();
    }
    this.#flush();
  }

  #armStall(): void {
    this.#stall = setTimeout(() => {
      console.error(
        `drover: a WebSocket client took nothing sent to it for ${Math.round(this.#stallMs / 1000)} s; its connection is closed`,
      );
      this.#socket.terminate();
    }, this.#stallMs);
    this.#stall.unref();
  }
}
