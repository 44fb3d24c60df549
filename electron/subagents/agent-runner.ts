import { DroverError } from '../../shared/ipc/errors.js';
import type { AgentDefinition, AgentEvent, AgentRun } from '../../shared/schemas/subagent.js';
import {
  StartError,
  type Runner,
  type RunnerExit,
  type RunnerHandle,
  type RunnerListener,
  type Spec,
} from '../pool/runner.js';
import type { SubagentOutcome } from './subagent-loop.js';
import { transcriptText } from './agent-runs.js';

/** What an agent task's request carries for the runner. */
export interface AgentPayload {
  sessionId: string;
  definition: AgentDefinition;
  prompt: string;
  /** 1 for an agent the session's model started, 2 for one a sub-agent started. */
  depth: number;
  /** Where its tokens are charged (the session's budget when an unattended turn started it). */
  spend?: ((tokens: number) => void) | undefined;
}

export interface AgentRunnerDeps {
  /** Runs the agent to its end (the loop with its model, tools and context); never throws. */
  execute: (
    payload: AgentPayload,
    taskId: string,
    signal: AbortSignal,
    emit: (event: AgentEvent) => void,
  ) => Promise<SubagentOutcome>;
  /** Ends the background tasks the agent's run started: they end with it. */
  stopOwned: (sessionId: string, taskId: string) => Promise<void>;
  /** What the run has used so far (for its row). */
  used: (taskId: string, steps: number, tokens: number) => void;
  log: (message: string) => void;
}

/** Streamed text reaches the log at least this often, joined into one event. */
export const TEXT_FLUSH_MS = 200;
/** Runs whose transcript this run keeps in memory; older settled ones are read back from their logs. */
const KEPT_RUNS = 200;

interface LiveRun {
  events: AgentEvent[];
  end: Extract<AgentEvent, { type: 'end' }> | null;
}

/**
 * The pool's runner for agent tasks: an agent holds no process (pid 0, no containment, never
 * probed), its log is its transcript as JSON lines, and stopping it aborts its run and ends the
 * background tasks it started.
 */
export class AgentRunner implements Runner {
  readonly #deps: AgentRunnerDeps;
  readonly #runs = new Map<string, LiveRun>();

  constructor(deps: AgentRunnerDeps) {
    this.#deps = deps;
  }

  readable(log: string, tailLines?: number): string {
    return transcriptText(log, tailLines);
  }

  /** The transcript this run holds of an agent task (joined text), or null when it has none. */
  run(taskId: string): Pick<AgentRun, 'events' | 'result' | 'error'> | null {
    const live = this.#runs.get(taskId);
    if (!live) return null;
    return { events: [...live.events], result: live.end?.result ?? null, error: live.end?.error ?? null };
  }

  async start(spec: Spec, listener: RunnerListener): Promise<RunnerHandle> {
    const payload = spec.payload as AgentPayload | undefined;
    if (!payload?.definition) throw new StartError('an agent task needs its definition and prompt');
    const controller = new AbortController();
    const live: LiveRun = { events: [], end: null };
    this.#keep(spec.taskId, live);
    let pending: Extract<AgentEvent, { type: 'text' }> | null = null;
    let timer: NodeJS.Timeout | null = null;
    const write = (event: AgentEvent) => listener.output(Buffer.from(`${JSON.stringify(event)}\n`));
    const flush = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (pending) write(pending);
      pending = null;
    };
    const emit = (event: AgentEvent) => {
      if (event.type === 'text') {
        const last = live.events.at(-1);
        if (last?.type === 'text') last.text += event.text;
        else live.events.push({ ...event });
        pending = pending ? { ...pending, text: pending.text + event.text } : { ...event };
        timer ??= setTimeout(flush, TEXT_FLUSH_MS);
        return;
      }
      flush();
      live.events.push(event);
      if (event.type === 'usage') this.#deps.used(spec.taskId, event.steps, event.tokens);
      write(event);
    };
    emit({
      type: 'start',
      at: new Date().toISOString(),
      agent: payload.definition.name,
      prompt: payload.prompt,
    });
    const done: Promise<RunnerExit> = this.#deps
      .execute(payload, spec.taskId, controller.signal, emit)
      // Even a failure before the run began ends it: a row that can never end cannot be stopped.
      .catch((error: unknown): SubagentOutcome => ({
        outcome: 'failed',
        result: null,
        error: `it could not run: ${error instanceof Error ? error.message : String(error)}`,
        steps: 0,
        tokens: 0,
      }))
      .then(async (outcome) => {
        const end = {
          type: 'end' as const,
          at: new Date().toISOString(),
          outcome: outcome.outcome,
          result: outcome.result,
          error: outcome.error,
        };
        live.end = end;
        emit(end);
        // Its background tasks end with it: nothing it started is left running unowned.
        await this.#deps
          .stopOwned(payload.sessionId, spec.taskId)
          .catch((error: unknown) =>
            this.#deps.log(`the tasks of agent ${spec.taskId} could not all be stopped: ${String(error)}`),
          );
        return {
          exitCode: outcome.outcome === 'completed' ? 0 : 1,
          signal: null,
          error: outcome.outcome === 'failed' ? outcome.error : null,
        };
      });
    return {
      pid: 0,
      processStartedAt: null,
      containment: null,
      cgroup: null,
      containmentNote: null,
      wait: () => done,
      stop: async () => {
        controller.abort();
        await done;
        return { outside: [] };
      },
      pause: () => {},
      resume: () => {},
      write: () => {
        throw new DroverError('conflict', `Task ${spec.taskId} is an agent: it takes no terminal input`);
      },
    };
  }

  #keep(taskId: string, live: LiveRun): void {
    this.#runs.set(taskId, live);
    for (const [id, run] of this.#runs) {
      if (this.#runs.size <= KEPT_RUNS) break;
      if (run.end) this.#runs.delete(id);
    }
  }
}
