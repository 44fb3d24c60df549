/** Public types of the fake model servers; see index.ts for the entry points. */

export type ScriptedReply =
  | { text: string; delayMs?: number }
  | { toolCalls: { name: string; args: unknown; id?: string }[]; text?: string; delayMs?: number }
  /** An error answer; with `after`, sent only once that settles (a test holds the turn on a retry). */
  | { status: number; body?: unknown; headers?: Record<string, string>; after?: PromiseLike<unknown> }
  | { hangMs: number }
  | ((request: RecordedRequest) => ScriptedReply);

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  stream: boolean;
  /**
   * The conversation as plain text lines (role: content), tool results included, to assert on
   * what the model was shown. The shape is the same for both servers:
   *
   *     system: You are terse.
   *     user: What is the weather in Oslo?
   *     assistant: Let me look.
   *     assistant: [tool call call_1] get_weather {"city":"Oslo"}
   *     tool: [tool result call_1] {"forecast":"sunny"}
   *
   * A tool result the client marked as an error (Anthropic's `is_error`) reads `[tool error ID]`.
   */
  transcript: string;
  /** Names of the tools offered in this request. */
  tools: string[];
}

export interface FakeModelServer {
  readonly kind: 'openai-compatible' | 'anthropic';
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  enqueue(...replies: ScriptedReply[]): void;
  /** Resolves when at least n requests have been received. */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Replies not yet consumed. */
  readonly pending: number;
  close(): Promise<void>;
}

/** A text or tool-call reply after defaults are filled in: what a dialect turns into wire format. */
export interface Answer {
  text: string | undefined;
  toolCalls: { id: string; name: string; args: unknown; argsJson: string }[];
  /** Rough, deterministic token counts, so the SDKs get the usage fields they expect. */
  inputTokens: number;
  outputTokens: number;
  /** Sequence number of the request being answered (1-based). */
  requestNumber: number;
  /** The model name the client asked for. */
  model: string;
}

/** One server-sent event; `event` is the `event:` line (Anthropic names every event, OpenAI none). */
export interface SseEvent {
  event?: string;
  data: string;
}

/** What differs between the two APIs: the path, how to read a request and how to write an answer. */
export interface Dialect {
  readonly kind: FakeModelServer['kind'];
  /** The path served, under the base URL's `/v1`. */
  readonly path: string;
  /** Prefix of generated tool call ids (`call_`, `toolu_`). */
  readonly toolCallIdPrefix: string;
  transcript(body: Record<string, unknown>): string;
  tools(body: Record<string, unknown>): string[];
  errorBody(status: number, message: string): unknown;
  json(answer: Answer): unknown;
  events(answer: Answer): SseEvent[];
}
