import { generateText, jsonSchema, NoSuchToolError, streamText, tool, type LanguageModel, type ToolSet } from 'ai';
import { z } from 'zod';
import type { AgentEvent } from '../../shared/schemas/subagent.js';
import { failureForPerson, parseArgs, resolveCall, type AgentTool, type ToolContext } from '../agent/tools.js';
import { withRetries, type RetryOptions } from '../agent/providers.js';
import { describeModelError } from '../agent/model-errors.js';
import { safeJson } from '../agent/safe-json.js';

/** What a sub-agent's run ended with. */
export interface SubagentOutcome {
  outcome: 'completed' | 'failed' | 'killed';
  /** Its last text: the answer when it completed, what it had so far otherwise. */
  result: string | null;
  error: string | null;
  steps: number;
  tokens: number;
}

export interface SubagentRun {
  model: { model: LanguageModel; streaming: boolean };
  system: string;
  prompt: string;
  tools: readonly AgentTool[];
  /** The tool context every call gets (the parent session, the agent as owner, its permission gate). */
  context: Omit<ToolContext, 'signal' | 'onTask' | 'progress'>;
  maxSteps: number;
  maxTokens: number;
  /** Aborts when the agent is killed (or Drover shuts down). */
  signal: AbortSignal;
  /** Each transcript event, as it happens. */
  emit: (event: AgentEvent) => void;
  /** The tokens of each model call, as it answers (charged where the turn that started the agent is). */
  spend?: (tokens: number) => void;
  retryDelayMs?: RetryOptions['delayMs'];
}

/**
 * Runs one sub-agent to its end: the prompt, then model calls and tool calls until it answers,
 * fails, is killed, or reaches its limit of steps or tokens. Never throws: every end is an outcome.
 */
export async function runSubagent(run: SubagentRun): Promise<SubagentOutcome> {
  let steps = 0;
  let tokens = 0;
  let lastText = '';
  let stepText = '';
  /** The last step asked for tools: stopped there by a limit, the agent had not finished. */
  let wantedTools = false;
  const at = () => new Date().toISOString();
  const limitHit = () =>
    steps >= run.maxSteps
      ? `it reached its limit of ${run.maxSteps} model calls`
      : tokens >= run.maxTokens
        ? `it reached its limit of ${run.maxTokens.toLocaleString('en-US')} tokens`
        : null;
  const onStepFinish = (step: { text: string; finishReason?: string }) => {
    steps++;
    wantedTools = step.finishReason === 'tool-calls';
    const text = run.model.streaming ? stepText : step.text;
    if (!run.model.streaming && step.text) run.emit({ type: 'text', at: at(), text: step.text });
    if (text.trim()) lastText = text.trim();
    stepText = '';
    run.emit({ type: 'usage', at: at(), steps, tokens });
  };
  const options = {
    model: withRetries(run.model.model, {
      signal: run.signal,
      onRetry: () => {},
      onUsage: (used) => {
        tokens += used;
        run.spend?.(used);
      },
      ...(run.retryDelayMs ? { delayMs: run.retryDelayMs } : {}),
    }),
    system: run.system,
    messages: [{ role: 'user' as const, content: run.prompt }],
    tools: sdkTools(run),
    stopWhen: () => limitHit() !== null,
    abortSignal: run.signal,
    maxRetries: 0,
    onStepFinish,
    experimental_repairToolCall: async ({ toolCall, error }: { toolCall: ToolCallText; error: unknown }) => {
      if (!NoSuchToolError.isInstance(error)) return null;
      const resolved = resolveCall(run.tools, toolCall.toolName, safeJson(toolCall.input));
      return resolved ? { ...toolCall, toolName: resolved.tool.name, input: JSON.stringify(resolved.args) } : null;
    },
  };
  const work = async (): Promise<'done'> => {
    if (run.model.streaming) {
      const result = streamText({ ...options, onError: () => {} } as Parameters<typeof streamText>[0]);
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') {
          stepText += part.text;
          run.emit({ type: 'text', at: at(), text: part.text });
        } else if (part.type === 'error') throw part.error;
      }
    } else {
      await generateText(options as Parameters<typeof generateText>[0]);
    }
    return 'done';
  };
  const killed = (): SubagentOutcome => ({
    outcome: 'killed',
    result: lastText || null,
    error: 'it was killed',
    steps,
    tokens,
  });
  // A kill ends the run at once: the SDK would otherwise wait for the step's tool calls, and a call
  // that waits for this very agent to end (it stopping itself) would never return.
  const aborted = new Promise<'aborted'>((resolve) => {
    if (run.signal.aborted) resolve('aborted');
    else run.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  const running = work();
  // What the SDK still throws after a kill is of no one's interest.
  running.catch(() => {});
  try {
    if ((await Promise.race([running, aborted])) === 'aborted') return killed();
  } catch (error) {
    if (run.signal.aborted) return killed();
    return { outcome: 'failed', result: lastText || null, error: describeModelError(error), steps, tokens };
  }
  if (run.signal.aborted) return killed();
  const limit = limitHit();
  // Stopped by a limit while it still had calls to make: it did not finish, what it has is partial.
  if (limit && (wantedTools || !lastText))
    return { outcome: 'failed', result: lastText || null, error: limit, steps, tokens };
  return { outcome: 'completed', result: lastText || null, error: null, steps, tokens };
}

/** What a tool answered, for the person: the model's fence markers (and their nonces) left out. */
function forPerson(text: string): string {
  return text.replace(/^<\/?untrusted-output nonce="[^"]*"(?: source="[^"]*")?>\n?/gm, '');
}

function sdkTools(run: SubagentRun): ToolSet {
  const set: ToolSet = {};
  for (const agentTool of run.tools) {
    set[agentTool.name] = tool({
      description: agentTool.description,
      inputSchema: jsonSchema(z.toJSONSchema(agentTool.input, { io: 'input' }) as Parameters<typeof jsonSchema>[0]),
      execute: async (input: unknown, { toolCallId }: { toolCallId: string }) => {
        const resolved = resolveCall(run.tools, agentTool.name, input)!;
        const at = () => new Date().toISOString();
        run.emit({ type: 'tool_call', at: at(), id: toolCallId, name: agentTool.name, args: resolved.args });
        let started: string | null = null;
        try {
          const args = parseArgs(agentTool, resolved.args);
          const outcome = await agentTool.execute(args as never, {
            ...run.context,
            signal: run.signal,
            onTask: (taskId) => (started = taskId),
          });
          run.emit({
            type: 'tool_result',
            at: at(),
            id: toolCallId,
            status: outcome.rejected ? 'rejected' : outcome.failed ? 'error' : 'done',
            text: forPerson(outcome.text),
            taskId: outcome.taskId ?? started,
          });
          return outcome.text;
        } catch (failure) {
          const text = `Error: ${failure instanceof Error ? failure.message : String(failure)}`;
          run.emit({
            type: 'tool_result',
            at: at(),
            id: toolCallId,
            status: 'error',
            text: failureForPerson(failure),
            taskId: started,
          });
          return text;
        }
      },
    });
  }
  return set;
}

interface ToolCallText {
  toolName: string;
  input: string;
}
