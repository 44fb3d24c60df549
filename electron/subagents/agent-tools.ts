import type { z } from 'zod';
import { agentStatusOf, type AgentDefinition, type AgentRun } from '../../shared/schemas/subagent.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import { AgentInput, AgentOutputInput, READ_WAIT_MAX_SECONDS } from '../../shared/schemas/tools.js';
import { fence } from '../agent/fence.js';
import { LIST_TOOL, ToolCallError, type AgentTool, type ToolContext } from '../agent/tools.js';
import { formatDuration } from '../pool/adoption.js';
import type { TaskPool } from '../pool/pool.js';
import type { AgentPayload } from './agent-runner.js';
import { GENERAL_PURPOSE, type LoadedDefinitions } from './definitions.js';

/** Sub-agents may start sub-agents one level down, no further. */
export const MAX_AGENT_DEPTH = 2;
export const AGENT_TOOL = 'agent';
export const AGENT_OUTPUT_TOOL = 'agent_output';

export interface AgentToolsDeps {
  pool: TaskPool;
  /** The definitions in force (read again at each use: a new file counts from the next call). */
  definitions: () => LoadedDefinitions;
  /** An agent task's run: status, result, transcript. */
  readRun: (row: TaskRow) => Promise<AgentRun>;
}

/** The model's tools for sub-agents: `agent` starts one, `agent_output` collects (or kills) one. */
export function agentTools(deps: AgentToolsDeps): [AgentTool, AgentTool] {
  const { pool } = deps;
  const agentRow = (sessionId: string, id: string): TaskRow => {
    if (!pool.has(sessionId, id))
      throw new ToolCallError(
        'not_found',
        `No task "${id}" in this session. Call ${LIST_TOOL} to see the task ids; do not assume it finished.`,
        `There is no task ${id} in this session.`,
      );
    const row = pool.row(sessionId, id);
    if (row.kind !== 'agent')
      throw new ToolCallError(
        'invalid_input',
        `${id} is a ${row.kind}, not an agent: read it with read_task_output.`,
        `${id} is not an agent.`,
      );
    return row;
  };

  const agent: AgentTool = {
    name: AGENT_TOOL,
    aliases: ['Task', 'spawn_agent'],
    get description() {
      return describeAgents(deps.definitions().agents);
    },
    input: AgentInput,
    async execute(args: z.output<typeof AgentInput>, context: ToolContext) {
      const depth = (context.owner?.depth ?? 0) + 1;
      if (depth > MAX_AGENT_DEPTH)
        throw new ToolCallError(
          'invalid_input',
          `Agents nest ${MAX_AGENT_DEPTH} deep at most; do this work yourself.`,
          `Agents nest ${MAX_AGENT_DEPTH} deep at most.`,
        );
      const { agents } = deps.definitions();
      const name = args.agent ?? GENERAL_PURPOSE;
      const definition = agents.find((candidate) => candidate.name === name);
      if (!definition)
        throw new ToolCallError(
          'invalid_input',
          `No agent "${name}". The agents: ${agents.map((candidate) => candidate.name).join(', ')}.`,
          `There is no agent named ${name}.`,
        );
      const background = args.background || definition.background === true;
      const payload: AgentPayload = {
        sessionId: context.sessionId,
        definition,
        prompt: args.prompt,
        depth,
        spend: context.spend,
      };
      // An agent's own background agent waits for no place: at the session's limit it would queue
      // behind the very agent that waits for it.
      const full = background && context.owner ? pool.capacityProblem(context.sessionId, 'agent') : null;
      if (full)
        throw new ToolCallError(
          'conflict',
          `Not started: ${full}. Run it in the foreground (background: false), or do the work yourself.`,
          `Not started: ${full}.`,
        );
      const request = {
        sessionId: context.sessionId,
        kind: 'agent' as const,
        command: args.description,
        cwd: context.cwd,
        // An agent works as long as it may; its own limits of calls and tokens end it sooner.
        timeoutSeconds: pool.policy.maxTimeoutSeconds,
        notifyOnFinish: background && args.notify_on_finish,
        owner: context.owner?.taskId,
        agentInfo: {
          name: definition.name,
          description: args.description,
          depth,
          steps: 0,
          maxSteps: pool.policy.agentMaxSteps,
          tokens: 0,
          maxTokens: pool.policy.agentMaxTokens,
        },
        payload,
      };
      if (background) {
        const record = await pool.start(request);
        context.onTask?.(record.id);
        const row = pool.row(context.sessionId, record.id);
        const queued = row.status === 'queued' ? ' It waits for a free place (the session’s limit of agents).' : '';
        const woken = request.notifyOnFinish ? ' You will be woken when it ends.' : '';
        return {
          taskId: row.id,
          display: { kind: 'started', taskId: row.id },
          text:
            `Started agent ${row.id} (${definition.name}) in the background: ${args.description}.${queued}${woken} ` +
            `task_id: ${row.id}. Collect its result with agent_output({task_id: "${row.id}", wait: true}); keep working meanwhile.`,
        };
      }
      const record = await pool.startForeground(request);
      context.onTask?.(record.id);
      await pool.waitFor(record.id, 2 ** 31 - 1, context.signal);
      // Cancelled with the turn: a foreground agent ends with it.
      if (context.signal.aborted) await pool.stop(context.sessionId, record.id, 'cancelled');
      const row = pool.row(context.sessionId, record.id);
      return { taskId: row.id, failed: row.status !== 'succeeded', text: answer(row, await deps.readRun(row)) };
    },
  };

  const agentOutput: AgentTool = {
    name: AGENT_OUTPUT_TOOL,
    aliases: ['AgentOutputTool', 'agent_result'],
    description:
      "An agent's status and, once it ended, its result. wait: true blocks until it ends or the timeout (default 60 s, " +
      'at most 300 s: a longer one is clamped); a timeout is a normal answer meaning it still works. action: "kill" stops it and the tasks it started.',
    input: AgentOutputInput,
    async execute(args: z.output<typeof AgentOutputInput>, context: ToolContext) {
      let row = agentRow(context.sessionId, args.task_id);
      if (args.action === 'kill' && lineageOf(pool, context).includes(row.id))
        throw new ToolCallError(
          'invalid_input',
          `${row.id} is you or the agent that started you: end your turn with your answer instead of killing it.`,
          `An agent may not kill itself or the agent that started it.`,
        );
      if (args.action === 'kill') {
        const { wasSettled } = await pool.stop(context.sessionId, row.id);
        row = pool.row(context.sessionId, row.id);
        const head = wasSettled ? `${row.id} had already ended (${agentStatusOf(row.status)}).` : `Killed ${row.id}.`;
        return {
          taskId: row.id,
          display: { kind: 'stopped', alreadySettled: wasSettled },
          text: `${head}\n${answer(row, await deps.readRun(row))}`,
        };
      }
      const running = () => row.running || row.status === 'queued';
      let retrieval: 'success' | 'not_ready' | 'timeout' = running() ? 'not_ready' : 'success';
      const waitSeconds = Math.min(args.timeout_seconds, READ_WAIT_MAX_SECONDS);
      const notes: string[] = [];
      if (args.wait && args.timeout_seconds > READ_WAIT_MAX_SECONDS)
        notes.push(
          `note: a wait of ${args.timeout_seconds} s was asked; ${READ_WAIT_MAX_SECONDS} s is the most one call waits.`,
        );
      if (args.wait && retrieval === 'not_ready') {
        const settled = await pool.waitFor(row.id, waitSeconds * 1000, context.signal);
        row = pool.row(context.sessionId, row.id);
        retrieval = settled ? 'success' : 'timeout';
      }
      if (retrieval === 'timeout')
        notes.push(`Still working after waiting ${waitSeconds} s; wait again or keep working.`);
      return {
        taskId: row.id,
        display: {
          kind: 'read',
          finished: retrieval === 'success',
          waitedSeconds: args.wait && retrieval !== 'success' ? waitSeconds : null,
        },
        text: `retrieval_status: ${retrieval}\n${notes.map((note) => `${note}\n`).join('')}${answer(row, await deps.readRun(row))}`,
      };
    },
  };
  return [agent, agentOutput];
}

/** The calling agent and the agents above it (empty for the session's own model). */
function lineageOf(pool: TaskPool, context: ToolContext): string[] {
  const lineage: string[] = [];
  for (let id = context.owner?.taskId; id && !lineage.includes(id);) {
    lineage.push(id);
    id = pool.has(context.sessionId, id) ? (pool.row(context.sessionId, id).ownerTaskId ?? undefined) : undefined;
  }
  return lineage;
}

/** What the model is told of an agent: its status, what it used, and its result fenced as task data. */
function answer(row: TaskRow, run: AgentRun): string {
  const info = row.agent;
  const lines = [
    `task_id: ${row.id}`,
    `agent_status: ${run.status}`,
    ...(info
      ? [
          `agent: ${info.name}`,
          `used: ${info.steps} of ${info.maxSteps} model calls, ${info.tokens} of ${info.maxTokens} tokens, ${formatDuration(row.elapsedSeconds)}`,
        ]
      : []),
    ...(run.error ? [`error: ${run.error}`] : []),
  ];
  if (run.result === null) {
    lines.push(run.status === 'running' || run.status === 'queued' ? 'result: none yet' : 'result: none');
    return lines.join('\n');
  }
  const partial = run.status === 'completed' ? '' : ' (partial: it did not finish)';
  // The result is what a model wrote after reading files and command output: data, never instructions.
  return `${lines.join('\n')}\nresult${partial}:\n${fence(run.result, row.id)}`;
}

/** The `agent` tool's description, naming the agents there are now. */
export function describeAgents(agents: readonly AgentDefinition[]): string {
  const list = agents.map((definition) => `- ${definition.name}: ${oneLine(definition.description)}`).join('\n');
  return (
    'Hand a self-contained task to a sub-agent. It sees nothing of this conversation: the prompt must say everything. ' +
    'background: true (run_in_background) returns at once with its task id (agt_N) and it works beside you; several run in parallel. ' +
    'Foreground, you wait for its answer. Collect a background agent with agent_output; agent_output action "kill" stops one. ' +
    `The agents:\n${list}`
  );
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
