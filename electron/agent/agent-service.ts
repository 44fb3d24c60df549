import type { Outcome } from '../permissions/permission-service.js';
import {
  generateText,
  jsonSchema,
  NoSuchToolError,
  stepCountIs,
  streamText,
  tool,
  type LanguageModel,
  type ToolSet,
} from 'ai';
import { z } from 'zod';
import { DroverError } from '../../shared/ipc/errors.js';
import type { DroverContract } from '../../shared/contract.js';
import type { Message, MessageSchedule } from '../../shared/schemas/message.js';
import type { EventBus } from '../core/event-bus.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import { toModelMessages } from './history.js';
import { systemPrompt } from './prompt.js';
import { failureForPerson, parseArgs, resolveCall, type AgentTool } from './tools.js';
import { offeredTools } from './tool-offer.js';
import { TranscriptWriter } from './transcript-writer.js';
import { withRetries, type RetryOptions } from './providers.js';
import { describeModelError } from './model-errors.js';
import { safeJson } from './safe-json.js';

/** Steps (model calls) one turn may take before it is ended. */
export const MAX_STEPS_PER_TURN = 50;

export interface AgentDeps {
  sessions: SessionsService;
  bus: EventBus<DroverContract>;
  tools: readonly AgentTool[];
  /** Whether background work is on in the settings; off, the model is offered foreground commands only. */
  backgroundEnabled?: () => boolean;
  /** The model for a turn, or null when no provider is configured. */
  model: () => { model: LanguageModel; streaming: boolean } | null;
  cwd: () => string;
  /** The permission gate for the model's commands. */
  /** `onAsk` is called when no rule covers the command and the person is asked. */
  permit: (
    request: {
      sessionId: string;
      command: string;
      cwd: string;
      background: boolean;
      outside?: boolean | undefined;
      sandboxable?: boolean | undefined;
    },
    signal: AbortSignal,
    onAsk?: () => void,
  ) => Promise<Outcome>;
  log?: (message: string) => void;
  /** What Drover must tell the model at the start of a turn (the person's edits to its checklist), taken once. */
  turnNotes?: (sessionId: string) => string[];
  /** The budget unattended turns draw from: each counts a turn and the tokens it used. */
  budget?: {
    allows(sessionId: string): boolean;
    spendTurn(sessionId: string): void;
    spendTokens(sessionId: string, tokens: number): void;
  };
  /** The wait before each retry of a model call; the backoff policy in providers.ts unless a test shortens it. */
  retryDelayMs?: RetryOptions['delayMs'];
}

interface Turn {
  controller: AbortController;
  automated: boolean;
  /** The tokens the turn's finished steps used, as the provider reported them. */
  tokens: number;
  /** Aborts when the person posts a message during the turn: a sleep wakes for it. */
  personMessage: AbortController;
  /** A call woke for the person's message: the turn ends after this step, and their queued turn runs. */
  yielded: boolean;
}

/**
 * The agent's turns: one at a time per session under a lock, streamed into the transcript
 * as they happen, cancellable without touching background tasks.
 */
export class AgentService {
  readonly #deps: AgentDeps;
  readonly #locks = new Map<string, Promise<void>>();
  readonly #turns = new Map<string, Turn>();
  /** Why the last turn of a session failed, until another turn starts: what Retry reruns. */
  readonly #failed = new Map<string, { error: string; automated: boolean }>();
  #disposed = false;

  constructor(deps: AgentDeps) {
    this.#deps = deps;
  }

  isBusy(sessionId: string): boolean {
    return this.#turns.has(sessionId);
  }

  /** No turn runs or waits in the session: what a scheduled run waits for. */
  isIdle(sessionId: string): boolean {
    return !this.#locks.has(sessionId);
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** Stores the message and runs a turn for it once any turn in flight has ended. */
  submit(
    sessionId: string,
    text: string,
    options: {
      automated?: boolean;
      schedule?: MessageSchedule;
      /**
       * Whether the turn draws from the unattended budget: by default what is automated does. An
       * automated turn the person asked for (a loop's first pass, Run now) does not.
       */
      charged?: boolean;
      /** Called when the turn is refused as it comes to run (the budget ran out while it waited). */
      refused?: () => void;
    } = {},
  ): { message: Message; done: Promise<void> } {
    const { charged, refused, ...posted } = options;
    const message = this.#deps.sessions.postUserMessage(sessionId, text, posted);
    if (!options.automated) this.#turns.get(sessionId)?.personMessage.abort();
    const automated = options.automated ?? false;
    const done = this.#enqueue(sessionId, () => this.#runTurn(sessionId, automated, charged ?? automated, refused));
    return { message, done };
  }

  /** Why the last turn of this session failed; null when it ended well (or was retried). */
  failure(sessionId: string): string | null {
    return this.#failed.get(sessionId)?.error ?? null;
  }

  /**
   * Runs the failed last turn again on the same transcript (no new message). Refused while a turn
   * is in flight or queued, and when the last turn did not fail. The person asked for it, so it
   * never draws from the unattended budget; the failure is kept until the turn really starts.
   */
  retry(sessionId: string): { done: Promise<void> } {
    if (this.#turns.has(sessionId) || this.#locks.has(sessionId))
      throw new DroverError('conflict', 'A turn is in progress in this session; retry once it has ended.');
    const failed = this.#failed.get(sessionId);
    if (!failed)
      throw new DroverError('conflict', 'The last turn of this session did not fail, so there is nothing to retry.');
    return { done: this.#enqueue(sessionId, () => this.#runTurn(sessionId, failed.automated, false)) };
  }

  /** Cancels the turn in flight; background tasks are never touched. */
  cancel(sessionId: string): boolean {
    const turn = this.#turns.get(sessionId);
    if (!turn) return false;
    turn.controller.abort();
    return true;
  }

  /** Ends every turn and takes no more (shutdown). */
  async dispose(): Promise<void> {
    this.#disposed = true;
    for (const turn of this.#turns.values()) turn.controller.abort();
    await Promise.allSettled([...this.#locks.values()]);
  }

  #enqueue(sessionId: string, work: () => Promise<void>): Promise<void> {
    const previous = this.#locks.get(sessionId) ?? Promise.resolve();
    // A turn that fails past its own handling (the transcript cannot be written: a full disk) is
    // logged; it never becomes an unhandled rejection that would end the host.
    const guarded = () =>
      work().catch((error: unknown) =>
        this.#deps.log?.(`a turn in session ${sessionId} failed: ${(error as Error).message}`),
      );
    const next = previous.then(guarded, guarded).finally(() => {
      if (this.#locks.get(sessionId) === next) this.#locks.delete(sessionId);
    });
    this.#locks.set(sessionId, next);
    return next;
  }

  async #runTurn(sessionId: string, automated: boolean, charged: boolean, refused?: () => void): Promise<void> {
    if (this.#disposed) return;
    const { sessions, bus } = this.#deps;
    const connection = this.#deps.model();
    if (!connection) {
      sessions.append({
        sessionId,
        role: 'system',
        text: 'No model is connected, so nothing answered. Connect one in Settings; meanwhile !command and &command run shell commands.',
        automated,
      });
      return;
    }
    const budget = charged ? this.#deps.budget : undefined;
    if (budget && !budget.allows(sessionId)) {
      // Queued before the budget ran out: it waits for the person, like the rest.
      sessions.append({
        sessionId,
        role: 'system',
        text: 'Not answered: the budget for unattended turns is spent. Resume it in the header, or raise it in settings.',
        automated,
      });
      refused?.();
      return;
    }
    budget?.spendTurn(sessionId);
    const turn: Turn = {
      controller: new AbortController(),
      automated,
      tokens: 0,
      personMessage: new AbortController(),
      yielded: false,
    };
    this.#turns.set(sessionId, turn);
    this.#failed.delete(sessionId);
    bus.emit('turnChanged', { sessionId, busy: true, error: null });
    const writer = new TranscriptWriter(sessions, sessionId, automated);
    let error: string | null = null;
    // Read once per turn: a settings change applies from the next turn, never halfway through one.
    const background = this.#deps.backgroundEnabled?.() ?? true;
    const tools = offeredTools(this.#deps.tools, background);
    const onStepFinish = (step: { text: string }) => {
      if (!connection.streaming) {
        if (step.text) writer.text(step.text);
        writer.endText();
      }
    };
    try {
      const options = {
        // Retries are ours (each one told to the person as it happens), never the SDK's silent ones.
        model: withRetries(connection.model, {
          signal: turn.controller.signal,
          onRetry: (notice) => bus.emit('turnRetrying', { sessionId, ...notice }),
          // Each model call counts as soon as it answered, so a turn that fails or is stopped
          // halfway (even during a tool) still pays for what it used.
          onUsage: (tokens) => (turn.tokens += tokens),
          ...(this.#deps.retryDelayMs ? { delayMs: this.#deps.retryDelayMs } : {}),
        }),
        system: systemPrompt({
          cwd: this.#deps.cwd(),
          now: new Date(),
          background,
          notes: this.#deps.turnNotes?.(sessionId) ?? [],
          plan: sessions.get(sessionId).mode === 'plan',
        }),
        messages: toModelMessages(sessions.messages(sessionId).filter((m) => m.status !== 'streaming')),
        // Agents this turn starts charge their tokens where the turn charges its own.
        tools: this.#sdkTools(
          sessionId,
          turn,
          writer,
          tools,
          budget && ((tokens) => budget.spendTokens(sessionId, tokens)),
        ),
        // A sleep woken by the person's message ends the turn after its step: their message is queued
        // as the next turn (submit), whose request holds the interrupted call and then the message.
        // Going on instead, the model would not see the message, and every later sleep would end at once.
        stopWhen: [stepCountIs(MAX_STEPS_PER_TURN), () => turn.yielded],
        abortSignal: turn.controller.signal,
        maxRetries: 0,
        onStepFinish,
        experimental_repairToolCall: async ({
          toolCall,
          error: callError,
        }: {
          toolCall: { toolName: string; input: string };
          error: unknown;
        }) => {
          // Other agents' tool names are accepted as aliases of ours.
          if (!NoSuchToolError.isInstance(callError)) return null;
          const resolved = resolveCall(tools, toolCall.toolName, safeJson(toolCall.input));
          return resolved ? { ...toolCall, toolName: resolved.tool.name, input: JSON.stringify(resolved.args) } : null;
        },
      };
      if (connection.streaming) {
        const result = streamText({ ...options, onError: () => {} } as Parameters<typeof streamText>[0]);
        for await (const part of result.fullStream) {
          if (part.type === 'text-delta') writer.text(part.text);
          else if (part.type === 'tool-call' || part.type === 'finish-step') writer.endText();
          else if (part.type === 'error') throw part.error;
        }
      } else {
        await generateText(options as Parameters<typeof generateText>[0]);
      }
      // On abort the SDK may end the stream quietly instead of throwing.
      if (turn.controller.signal.aborted) writer.cancel();
      else writer.endText();
    } catch (caught) {
      if (turn.controller.signal.aborted) {
        writer.cancel();
      } else {
        error = describeModelError(caught);
        this.#failed.set(sessionId, { error, automated });
        writer.endText('error');
        sessions.append({
          sessionId,
          role: 'system',
          text: `The model request failed: ${error}`,
          status: 'error',
          automated,
        });
        this.#deps.log?.(`turn failed in session ${sessionId}: ${error}`);
      }
    } finally {
      this.#turns.delete(sessionId);
      try {
        budget?.spendTokens(sessionId, turn.tokens);
      } catch (spendError) {
        this.#deps.log?.(`the tokens of a turn in session ${sessionId} could not be counted: ${String(spendError)}`);
      }
      try {
        writer.settleRunningTools(turn.controller.signal.aborted ? 'cancelled' : 'error');
      } finally {
        bus.emit('turnChanged', { sessionId, busy: false, error });
      }
    }
  }

  #sdkTools(
    sessionId: string,
    turn: Turn,
    writer: TranscriptWriter,
    tools: readonly AgentTool[],
    spend: ((tokens: number) => void) | undefined,
  ): ToolSet {
    const set: ToolSet = {};
    for (const agentTool of tools) {
      set[agentTool.name] = tool({
        description: agentTool.description,
        inputSchema: jsonSchema(z.toJSONSchema(agentTool.input, { io: 'input' }) as Parameters<typeof jsonSchema>[0]),
        execute: async (input: unknown, { toolCallId }: { toolCallId: string }) => {
          const resolved = resolveCall(tools, agentTool.name, input)!;
          const row = writer.toolStarted(agentTool.name, toolCallId, resolved.args);
          try {
            const args = parseArgs(agentTool, resolved.args);
            const outcome = await agentTool.execute(args as never, {
              sessionId,
              cwd: this.#deps.cwd(),
              signal: turn.controller.signal,
              // The row follows the task live from the moment it starts, not only when the call returns.
              onTask: (taskId) => writer.attachTask(row, taskId),
              progress: (text) => writer.toolProgress(row, text),
              personMessage: { signal: turn.personMessage.signal, yieldTurn: () => (turn.yielded = true) },
              ...(spend ? { spend } : {}),
              permit: async (command, cwd, background, options) => {
                let asked = false;
                const result = await this.#deps.permit(
                  {
                    sessionId,
                    command,
                    cwd,
                    background,
                    outside: options?.outside,
                    sandboxable: options?.sandboxable,
                  },
                  turn.controller.signal,
                  () => {
                    asked = true;
                    writer.toolStatus(row, 'waiting');
                  },
                );
                if (asked && result.allowed) writer.toolStatus(row, 'running');
                return result;
              },
            });
            writer.toolFinished(
              row,
              outcome.text,
              outcome.rejected ? 'rejected' : outcome.failed ? 'error' : 'done',
              outcome.taskId,
              outcome.display,
            );
            return outcome.text;
          } catch (failure) {
            const text = `Error: ${failure instanceof Error ? failure.message : String(failure)}`;
            // The model reads the error with its advice; the person reads their own words.
            writer.toolFinished(row, text, 'error', undefined, { kind: 'text', text: failureForPerson(failure) });
            return text;
          }
        },
      });
    }
    return set;
  }
}
