import type { Outcome } from '../permissions/permission-service.js';
import { z } from 'zod';
import { DroverError } from '../../shared/ipc/errors.js';
import type { TaskRow } from '../../shared/schemas/task.js';
import type { ToolDisplay } from '../../shared/schemas/message.js';
import {
  ListTasksInput,
  READ_WAIT_MAX_SECONDS,
  ReadTaskOutputInput,
  ReapTasksInput,
  StopTaskInput,
} from '../../shared/schemas/tools.js';
import type { TaskPool } from '../pool/pool.js';
import { ForegroundHandovers, formatDuration } from '../pool/adoption.js';
import { INLINE_OUTPUT_MAX_CHARS } from './inline-output.js';
import { runCommandTool } from './run-command.js';
import { monitorTools } from './monitor-tools.js';
import { fencedOutput } from './task-output.js';
import { exitWords, failureWarning, statusLine } from './task-words.js';

export { INLINE_OUTPUT_MAX_CHARS };

/**
 * `sandboxable`: the command runs as a pool task, so it can be put in the sandbox (run_command,
 * monitor_command); `outside`: the model asked to run it outside the sandbox (`sandbox: false`).
 */
export interface PermitOptions {
  sandboxable?: boolean;
  outside?: boolean;
}

export interface ToolContext {
  sessionId: string;
  cwd: string;
  /** Aborts when the turn is cancelled: a foreground command is then ended, and the answer says so. */
  signal: AbortSignal;
  /** Called as soon as a call has started a task, so the transcript can follow it live. */
  onTask?: (taskId: string) => void;
  /** The permission gate: every command the model runs is allowed by a rule or by the person. */
  permit: (command: string, cwd: string, background: boolean, options?: PermitOptions) => Promise<Outcome>;
  /**
   * Shows a line of the call's progress on its transcript row while it runs, as plain text for
   * the person (never the model's). Written at most once a second; the latest line wins.
   */
  progress?: (text: string) => void;
  /** The person posted a message in this session while the turn runs; absent where nobody can. */
  personMessage?: PersonMessage;
  /** A background sub-agent makes the call: the tasks it starts are its own (they end with it). */
  owner?: { taskId: string; depth: number };
  /**
   * Where the tokens of agents this call starts are charged: the session's budget for unattended
   * turns when the turn is one; absent for the person's own turns.
   */
  spend?: (tokens: number) => void;
}

/** A message from the person arriving during a turn, for a call that waits (sleep) to end early. */
export interface PersonMessage {
  /** Aborts when the message is posted (already aborted when it came earlier in the turn). */
  signal: AbortSignal;
  /**
   * Ends the turn once this step's calls have answered, so the turn queued for the message runs
   * next and the model reads the message in its next request.
   */
  yieldTurn: () => void;
}

export interface ToolOutcome {
  /** What the model is told. */
  text: string;
  /** What the person is shown instead: the same facts, in their words (no fences, no advice to the model). */
  display?: ToolDisplay;
  /** The call did not do what was asked (the command was rejected or not run). */
  failed?: boolean;
  /** The person rejected the command: it never ran. */
  rejected?: boolean;
  /** The task the call started or concerns, so the transcript row can follow it live. */
  taskId?: string;
}

export interface AgentTool {
  name: string;
  description: string;
  input: z.ZodObject;
  /** Other agents' names for the same capability; accepted when called, never offered. */
  aliases: readonly string[];
  execute(args: never, context: ToolContext): Promise<ToolOutcome>;
}

/** Other agents' argument names, mapped to ours. */
const ARG_ALIASES: Record<string, string> = {
  taskId: 'task_id',
  shell_id: 'task_id',
  bash_id: 'task_id',
  id: 'task_id',
  run_in_background: 'background',
  subagent_type: 'agent',
  tail: 'tail_lines',
  tailLines: 'tail_lines',
  block: 'wait',
  includeStopped: 'include_settled',
  include_stopped: 'include_settled',
  expectedSeconds: 'expected_seconds',
  timeoutSeconds: 'timeout_seconds',
  notifyOnFinish: 'notify_on_finish',
  notifyOnReady: 'notify_on_ready',
  workItemId: 'work_item_id',
  checkAfterSeconds: 'check_after_seconds',
  fromOffset: 'from_offset',
  maxBytes: 'max_bytes',
};

/**
 * Arguments implied by an alias's name, as the spec that names it says: background_wait waits,
 * background_output shows the last 100 lines, task_output (TaskOutput) blocks unless told not to.
 */
const ALIAS_DEFAULTS: Record<string, Record<string, unknown>> = {
  background_wait: { wait: true },
  background_output: { tail_lines: 100 },
  task_output: { wait: true },
  TaskOutput: { wait: true },
};

/** Other agents' arguments counted in milliseconds (task_output's and Bash's `timeout`), mapped to our seconds. */
const MS_ARG_ALIASES: Record<string, string> = { timeout: 'timeout_seconds', checkAfterMs: 'check_after_seconds' };

export const LIST_TOOL = 'list_tasks';

/**
 * A tool call's failure in two wordings: the message is the model's (with advice on what to call
 * next), `forPerson` is what the transcript shows (the person never reads tool advice).
 */
export class ToolCallError extends DroverError {
  readonly forPerson: string;

  constructor(code: ConstructorParameters<typeof DroverError>[0], forModel: string, forPerson: string) {
    super(code, forModel);
    this.forPerson = forPerson;
  }
}

/** What the transcript shows for a call that failed: its own words for a person, else the error's message. */
export function failureForPerson(failure: unknown): string {
  if (failure instanceof ToolCallError) return failure.forPerson;
  return failure instanceof Error ? failure.message : String(failure);
}

function unknownTask(id: string): DroverError {
  return new ToolCallError(
    'not_found',
    `No task "${id}" in this session. Call ${LIST_TOOL} to see the task ids; do not assume it finished.`,
    `There is no task ${id} in this session.`,
  );
}

/** The model's background tools over the pool. One canonical name each; other agents' names are aliases. */
/** Finds the work item a task is started for, in the session's list; throws naming it when there is none. */
export type WorkItemLink = (sessionId: string, itemId: number) => { listId: string; itemId: number };

export function backgroundTools(
  pool: TaskPool,
  handovers: ForegroundHandovers = new ForegroundHandovers(),
  link?: WorkItemLink,
): AgentTool[] {
  const output = (task: TaskRow, tailLines?: number) => fencedOutput(pool, task, tailLines);
  const row = (sessionId: string, id: string): TaskRow => {
    if (!pool.has(sessionId, id)) throw unknownTask(id);
    return pool.row(sessionId, id);
  };

  const runCommand = runCommandTool(pool, handovers, link);

  const listTasks: AgentTool = {
    name: LIST_TOOL,
    aliases: ['shell_tasks', 'background_list', 'BashList'],
    description:
      'Every task of this session: id, kind (command, monitor or agent), status, elapsed and estimate, overdue, silence, pid, ports it listens on, readiness, command, cwd, times and log path. ' +
      'include_settled: false (include_stopped) lists only tasks still running or queued.',
    input: ListTasksInput,
    async execute(args: z.output<typeof ListTasksInput>, context) {
      const rows = pool
        .list(context.sessionId)
        .filter((task) => args.include_settled || task.running || task.status === 'queued' || task.leftover);
      if (rows.length === 0) return { display: { kind: 'listed', count: 0 }, text: 'No tasks in this session.' };
      const lines = rows.map((task) =>
        [
          `${task.id} [${task.kind}, ${task.status}${task.leftover ? ', still running from an earlier run' : ''}]`,
          `elapsed ${formatDuration(task.elapsedSeconds)}${task.expectedSeconds ? ` of ~${formatDuration(task.expectedSeconds)}` : ''}${task.overdue ? ' (overdue)' : ''}`,
          task.silentForSeconds !== null ? `silent for ${formatDuration(task.silentForSeconds)}` : '',
          task.leaderExited ? 'its shell exited; processes it started still run (stop_task ends them)' : '',
          task.error ? `error: ${task.error}` : '',
          task.logNote ? `log: ${task.logNote}` : '',
          task.exitCode !== null ? (exitWords(task) ?? '') : '',
          task.pid ? `pid ${task.pid}` : '',
          task.ports.length > 0 ? `listening on port ${task.ports.join(', ')}` : '',
          readyWords(task),
          task.pingDueAt ? `check due ${task.pingDueAt}` : '',
          task.agent
            ? `agent ${task.agent.name}: ${task.agent.steps} of ${task.agent.maxSteps} model calls, ${task.agent.tokens} of ${task.agent.maxTokens} tokens (its result: agent_output)`
            : '',
          task.ownerTaskId ? `started by agent ${task.ownerTaskId}` : '',
          `started ${task.startedAt ?? 'not yet'}${task.endedAt ? `, ended ${task.endedAt}` : ''}`,
          `cwd ${task.cwd}`,
          `log ${task.logPath}`,
          `command: ${task.command}`,
        ]
          .filter(Boolean)
          .join(' | '),
      );
      return { display: { kind: 'listed', count: rows.length }, text: lines.join('\n') };
    },
  };

  const readOutput: AgentTool = {
    name: 'read_task_output',
    aliases: [
      'shell_output',
      'bash_output',
      'task_output',
      'background_output',
      'background_wait',
      'BashOutput',
      'TaskOutput',
    ],
    description:
      "Read a task's output (newest 30,000 characters inline) and status. wait: true blocks until it ends or the timeout " +
      '(default 60 s, at most 300 s: a longer one is clamped); a timeout is a normal answer meaning it is still running.',
    input: ReadTaskOutputInput,
    async execute(args: z.output<typeof ReadTaskOutputInput>, context) {
      let current = row(context.sessionId, args.task_id);
      if (current.kind === 'agent')
        throw new ToolCallError(
          'invalid_input',
          `${current.id} is an agent, not a command: read its result with agent_output.`,
          `${current.id} is an agent; its result is read with agent_output.`,
        );
      let retrieval: 'success' | 'not_ready' | 'timeout' =
        current.running || current.status === 'queued' ? 'not_ready' : 'success';
      // A longer wait than the maximum is clamped and said so, not refused: the model asked to wait, so it waits.
      const waitSeconds = Math.min(args.timeout_seconds, READ_WAIT_MAX_SECONDS);
      const clamped = args.wait && args.timeout_seconds > READ_WAIT_MAX_SECONDS;
      if (args.wait && retrieval === 'not_ready') {
        const settled = await pool.waitFor(args.task_id, waitSeconds * 1000, context.signal);
        current = pool.row(context.sessionId, args.task_id);
        retrieval = settled ? 'success' : 'timeout';
      }
      const head = [
        `retrieval_status: ${retrieval}`,
        `task_status: ${current.status}`,
        `exit_code: ${current.exitCode ?? 'none'}${current.exitNote ? ` (${current.exitNote})` : ''}`,
        `signal: ${current.signal ?? 'none'}`,
        `log_path: ${current.logPath}`,
        ...(current.logNote ? [`log_note: ${current.logNote}`] : []),
      ];
      if (clamped)
        head.push(
          `note: a wait of ${args.timeout_seconds} s was asked; ${READ_WAIT_MAX_SECONDS} s is the most one call waits.`,
        );
      if (retrieval === 'timeout')
        head.push(`Still running after waiting ${waitSeconds} s; wait again or keep working.`);
      return {
        taskId: current.id,
        display: {
          kind: 'read',
          finished: retrieval === 'success',
          waitedSeconds: args.wait && retrieval !== 'success' ? waitSeconds : null,
        },
        text: `${head.join('\n')}${failureWarning(current)}\n${await output(current, args.tail_lines)}`,
      };
    },
  };

  const stopTask: AgentTool = {
    name: 'stop_task',
    // kill_shell (by id, pid or port) is its own tool: kill-tool.ts.
    aliases: ['background_stop', 'task_stop'],
    description:
      'Stop a task by id: its whole process group (SIGTERM, then SIGKILL after a grace). Reaches leftovers of earlier runs too.',
    input: StopTaskInput,
    async execute(args: z.output<typeof StopTaskInput>, context) {
      row(context.sessionId, args.task_id);
      const { wasSettled } = await pool.stop(context.sessionId, args.task_id);
      const after = pool.row(context.sessionId, args.task_id);
      if (wasSettled)
        return {
          taskId: after.id,
          display: { kind: 'stopped', alreadySettled: true },
          text: `Task ${after.id} had already settled: ${statusLine(after)}. Nothing was stopped.`,
        };
      return {
        taskId: after.id,
        display: { kind: 'stopped', alreadySettled: false },
        text: `Stopped. ${statusLine(after)}.`,
      };
    },
  };

  const reap: AgentTool = {
    name: 'reap_leftovers',
    aliases: ['background_reap'],
    description:
      'End every process of this session still running from an earlier run of Drover (only those provably its own).',
    input: ReapTasksInput,
    async execute(_args: z.output<typeof ReapTasksInput>, context) {
      const report = await pool.reap(context.sessionId);
      const lines = [
        ...report.reaped.map((entry) => `Ended ${entry.taskId} (pids ${entry.pids.join(', ')}).`),
        ...report.untouched.map((entry) => `Left ${entry.taskId} alone: ${entry.reason}.`),
      ];
      const text = lines.length ? lines.join('\n') : 'No leftovers from earlier runs in this session.';
      // Drover's own words, nothing addressed to the model: the person reads the same.
      return { display: { kind: 'text', text }, text };
    },
  };

  return [runCommand, listTasks, readOutput, stopTask, reap, ...monitorTools(pool, row, link)];
}

/** A task's readiness for the list: ready (and when), still waiting, or nothing when none was declared. */
function readyWords(task: TaskRow): string {
  if (task.ready === null) return '';
  if (task.ready) return `ready since ${task.readyAt}`;
  return task.running ? 'not ready yet' : 'never became ready';
}

/** Maps a called name (canonical or alias) and its arguments to our tool and our argument names. */
export function resolveCall(
  tools: readonly AgentTool[],
  name: string,
  args: unknown,
): { tool: AgentTool; args: Record<string, unknown> } | null {
  const tool = tools.find((candidate) => candidate.name === name || candidate.aliases.includes(name));
  if (!tool) return null;
  const raw =
    typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const renamed: Record<string, unknown> = { ...(ALIAS_DEFAULTS[name] ?? {}) };
  for (const [key, value] of Object.entries(raw)) {
    const seconds = MS_ARG_ALIASES[key];
    // A whole second at least, so a wait of 1,500 ms is not cut short; a non-number is left for the schema to name.
    if (seconds) renamed[seconds] = typeof value === 'number' ? Math.ceil(value / 1000) : value;
    else renamed[ARG_ALIASES[key] ?? key] = value;
  }
  return { tool, args: renamed };
}

/** Validates arguments against the tool's schema; a bad argument is an error naming it, for the model to fix. */
export function parseArgs(tool: AgentTool, args: Record<string, unknown>): unknown {
  const parsed = tool.input.safeParse(args);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  throw new ToolCallError(
    'invalid_input',
    `Invalid arguments for ${tool.name}: ${where}${issue.message}`,
    `The model called ${tool.name} with an argument it does not take (${where}${issue.message}); it was told so.`,
  );
}
