import { z } from 'zod';
import { IdSchema, TimestampSchema } from './session.js';

/**
 * `allow`: this once (a command; outside the sandbox when it asked to leave it; a connection: this
 * one). `allow_host`: a sandboxed command's host, for the rest of the session.
 */
export const PermissionAnswerSchema = z.enum(['allow', 'allow_always', 'allow_program', 'allow_host', 'reject']);
export type PermissionAnswer = z.infer<typeof PermissionAnswerSchema>;

/** A command the model wants to run that no rule allows: the person decides. */
export const PermissionRequestSchema = z.object({
  id: z.string(),
  sessionId: IdSchema,
  /** Exactly the bytes that would run. */
  command: z.string(),
  /** The same command with whitespace and control characters made visible; what the modal shows. */
  visibleCommand: z.string(),
  cwd: z.string(),
  background: z.boolean(),
  /** The entry "Always allow <program>" would store, or null where it is not offered (never in plan mode). */
  programGrant: z.string().nullable(),
  /** Asked because the session is in plan mode: grants do not apply, so only allow once or reject is offered. */
  planMode: z.boolean(),
  /** Why it asks. */
  reason: z.string(),
  createdAt: TimestampSchema,
  /** A background sub-agent asks (its task id and definition); null when the session's own model does. */
  agent: z.object({ taskId: z.string(), name: z.string() }).nullable(),
  /**
   * Where the command would run: `inside` the session's sandbox, `outside` it (the model asked to
   * leave it: only once or reject is offered), or `none` (no sandbox in force).
   */
  sandbox: z.enum(['inside', 'outside', 'none']).default('none'),
  /** A sandboxed command tried to reach a host the policy does not list: which (the command field says it in words). */
  network: z
    .object({ host: z.string(), port: z.number().int().min(0).max(65_535) })
    .nullable()
    .default(null),
});
export type PermissionRequest = z.infer<typeof PermissionRequestSchema>;

export const GrantSchema = z.object({
  kind: z.enum(['exact', 'program']),
  /** The exact command, or the program entry (`curl`, `git status`). */
  value: z.string(),
  /** What it covers, in words. */
  covers: z.string(),
});
export type Grant = z.infer<typeof GrantSchema>;
