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

/** A frame larger than this is refused by the socket itself. */
export const WS_MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** A client that falls this far behind on events is cut off; it reconnects and reloads. */
export const WS_MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

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

  constructor(endpoint: ServerEndpoint, options: { maxInFlightPerConnection?: number | undefined } = {}) {
    this.#endpoint = endpoint;
    this.#queues = new FairQueues({ maxInFlight: options.maxInFlightPerConnection });
    this.#wss.on('connection', (socket: WebSocket, request: IncomingMessage) => this.#serve(socket, request));
    this.#unsubscribe = endpoint.subscribe((name, payload) => this.#broadcast({ t: 'event', name, payload }));
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
    for (const client of this.#wss.clients) client.close(1001, 'Drover is shutting down');
    this.#wss.close();
  }

  #serve(socket: WebSocket, request: IncomingMessage): void {
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

  async #run(socket: WebSocket, frame: CallFrame): Promise<void> {
    this.#send(socket, await this.#answer(socket, frame));
  }

  /** The carried calls, run as the connection opens; their answers go together, in one frame. */
  async #runCarried(socket: WebSocket, frames: CallFrame[]): Promise<void> {
    const results = await Promise.all(frames.map((frame) => this.#answer(socket, frame)));
    this.#send(socket, { t: 'results', results });
  }

  async #answer(socket: WebSocket, { id, name, input }: CallFrame): Promise<ResultFrame> {
    let result;
    try {
      result = await this.#queues.for(socket).run(() => this.#endpoint.handle(name, input));
    } catch (error) {
      if (!(error instanceof DroverError)) throw error;
      result = { ok: false as const, error: error.toJSON() };
    }
    return result.ok
      ? { t: 'result', id, ok: true, value: result.value }
      : { t: 'result', id, ok: false, error: result.error };
  }

  #broadcast(frame: ServerFrame): void {
    const text = JSON.stringify(frame);
    for (const client of this.#wss.clients) this.#sendText(client, text);
  }

  #send(socket: WebSocket, frame: ServerFrame): void {
    this.#sendText(socket, JSON.stringify(frame));
  }

  #sendText(socket: WebSocket, text: string): void {
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > WS_MAX_BUFFERED_BYTES) {
      socket.terminate();
      return;
    }
    socket.send(text);
  }
}
