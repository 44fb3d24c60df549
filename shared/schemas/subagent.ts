import { z } from 'zod';
import { TimestampSchema } from './session.js';

/**
 * Background sub-agents (issue #17): the definitions the model chooses from, the transcript an agent
 * task writes (its log is these events as JSON lines), and what a client reads of one run.
 */

/** `researcher`, `test-fixer`: lower-case words joined by hyphens. */
export const AgentNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, 'must be lower-case letters and digits joined by hyphens (like test-fixer)')
  .max(40);

/** The frontmatter of an agent definition file (`.drover/agents/NAME.md`); the body is its system prompt. */
export const AgentDefinitionFrontmatterSchema = z
  .object({
    name: AgentNameSchema,
    description: z.string().trim().min(1, 'must say what the agent is for').max(500),
    /** The tools it may use, by name; absent: the parent's tools less `agent` itself. */
    tools: z.array(z.string().min(1).max(60)).max(60).optional(),
    /** A model name for the connected provider; absent: the session's model. */
    model: z.string().trim().min(1).max(200).optional(),
    /** Always runs in the background, whatever the call says. */
    background: z.boolean().optional(),
  })
  .strict();
export type AgentDefinitionFrontmatter = z.infer<typeof AgentDefinitionFrontmatterSchema>;

/** The longest system prompt a definition may carry. */
export const AGENT_PROMPT_MAX_CHARS = 20_000;

export const AgentDefinitionSchema = AgentDefinitionFrontmatterSchema.extend({
  /** The system prompt (the file's body). */
  prompt: z.string().max(AGENT_PROMPT_MAX_CHARS),
  /** Where it came from: built in, the project's `.drover/agents/`, or the user's agents folder. */
  source: z.enum(['builtin', 'project', 'user']),
  /** The file it was read from; null for a built-in agent. */
  file: z.string().nullable(),
  /** Built-in researcher: its commands are judged as in plan mode (read-only ones run, the rest ask). */
  readOnly: z.boolean().optional(),
});
export type AgentDefinition = z.infer<typeof AgentDefinitionSchema>;

/** A definition file that could not be used: the file, the field, and why. */
export const AgentDefinitionProblemSchema = z.object({
  file: z.string(),
  field: z.string().nullable(),
  message: z.string(),
});
export type AgentDefinitionProblem = z.infer<typeof AgentDefinitionProblemSchema>;

/** An agent's status as the model and the README name it; Drover's row statuses map onto these. */
export const AgentStatusSchema = z.enum(['queued', 'running', 'completed', 'failed', 'killed']);
export type AgentStatus = z.infer<typeof AgentStatusSchema>;

export { agentStatusOf } from '../domain/task-status.js';

/** One line of an agent's transcript (its log holds them as JSON lines, oldest first). */
export const AgentEventSchema = z.discriminatedUnion('type', [
  /** The task it was given, and by which definition it runs. */
  z.object({ type: z.literal('start'), at: TimestampSchema, agent: AgentNameSchema, prompt: z.string() }),
  /** Text the agent wrote, as it streamed (consecutive pieces join into one message). */
  z.object({ type: z.literal('text'), at: TimestampSchema, text: z.string() }),
  /** A tool call it made. */
  z.object({ type: z.literal('tool_call'), at: TimestampSchema, id: z.string(), name: z.string(), args: z.unknown() }),
  /** What the call answered, for the person (never fenced output meant for the model). */
  z.object({
    type: z.literal('tool_result'),
    at: TimestampSchema,
    id: z.string(),
    status: z.enum(['done', 'error', 'rejected']),
    text: z.string(),
    /** The task the call started, if it started one (it belongs to this agent). */
    taskId: z.string().nullable(),
  }),
  /** A model call (step) ended: what the run has used so far. */
  z.object({ type: z.literal('usage'), at: TimestampSchema, steps: z.number().int(), tokens: z.number().int() }),
  /** The run ended: its result (the agent's last text) or why it did not finish. */
  z.object({
    type: z.literal('end'),
    at: TimestampSchema,
    outcome: z.enum(['completed', 'failed', 'killed']),
    result: z.string().nullable(),
    error: z.string().nullable(),
  }),
]);
export type AgentEvent = z.infer<typeof AgentEventSchema>;

/** What a row shows of an agent task: which definition, and what it used of its limits. */
export const AgentRowInfoSchema = z.object({
  name: AgentNameSchema,
  description: z.string(),
  /** 1 for an agent the session's model started, 2 for one a sub-agent started. */
  depth: z.number().int().min(1),
  steps: z.number().int().nonnegative(),
  maxSteps: z.number().int().positive(),
  tokens: z.number().int().nonnegative(),
  maxTokens: z.number().int().positive(),
});
export type AgentRowInfo = z.infer<typeof AgentRowInfoSchema>;

/** One agent run as a client reads it: its status, result and transcript so far. */
export const AgentRunSchema = z.object({
  status: AgentStatusSchema,
  /** The agent's final answer; null until it completed. */
  result: z.string().nullable(),
  /** Why it failed or was killed; null otherwise. */
  error: z.string().nullable(),
  events: z.array(AgentEventSchema),
  /** True when the transcript starts later than the run did (a long one read back from disk). */
  truncated: z.boolean(),
});
export type AgentRun = z.infer<typeof AgentRunSchema>;
