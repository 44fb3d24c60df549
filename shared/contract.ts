import { z } from 'zod';
import { defineContract, event, request } from './ipc/define.js';
import { ShellResultSchema, taskRequests } from './task-requests.js';
import { workEvents, workRequests } from './work-requests.js';
import { scheduleEvents, scheduleRequests } from './schedule-requests.js';
import { IdSchema, SessionModeSchema, SessionSchema, TitleSchema } from './schemas/session.js';
import { PublicSettingsSchema, SettingsUpdateSchema } from './schemas/settings.js';
import { ConnectionTestRequestSchema, ConnectionTestResultSchema } from './schemas/connection-test.js';
import { GrantSchema, PermissionAnswerSchema, PermissionRequestSchema } from './schemas/permission.js';
import { MessageIdSchema, MessagePageLimitSchema, MessageSchema, MessageTextSchema } from './schemas/message.js';
import { StorageStateSchema } from './schemas/storage.js';
import { SandboxHostSchema, SandboxStatusSchema, SessionSandboxSchema } from './schemas/sandbox.js';
import { CommandSchema, ContainmentSchema, TaskIdSchema, TaskRowSchema } from './schemas/task.js';

const Empty = z.object({}).strict();
const ById = z.object({ id: IdSchema }).strict();
const BySession = z.object({ sessionId: IdSchema }).strict();

export { ShellResultSchema, type ShellResult } from './task-requests.js';

export const AppInfoSchema = z.object({
  version: z.string(),
  /** Where this app keeps its data; shown in troubleshooting. */
  dataDir: z.string(),
  host: z.enum(['electron', 'headless']),
  /** How this machine holds each task's processes together, and why (cgroups, or the fallback and its reason). */
  containment: z.object({ kind: ContainmentSchema, detail: z.string() }),
  /** Whether this machine can sandbox the model's commands, with what, or why not (issue 19). */
  sandbox: SandboxStatusSchema,
  /** Whether the disk holding the data folder has room (a full disk is shown as a banner, and REST answers 507). */
  storage: StorageStateSchema,
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

/**
 * The one contract between the renderer (or any script) and the services. Every
 * transport derives from it: the preload bridge, the WebSocket, REST and the tests.
 */
export const contract = defineContract({
  requests: {
    appInfo: request({ input: Empty, output: AppInfoSchema, summary: 'Version and data directory of this app' }),
    listSessions: request({
      input: Empty,
      output: z.array(SessionSchema),
      summary: 'Every session, most recently updated first',
    }),
    createSession: request({
      input: z.object({ title: TitleSchema.optional() }).strict(),
      output: SessionSchema,
      summary: 'Start a new chat session',
    }),
    getSession: request({ input: ById, output: SessionSchema, summary: 'One session by id' }),
    renameSession: request({
      input: z.object({ id: IdSchema, title: TitleSchema }).strict(),
      output: SessionSchema,
      summary: 'Give a session a new title',
    }),
    setSessionMode: request({
      input: z.object({ id: IdSchema, mode: SessionModeSchema }).strict(),
      output: SessionSchema,
      summary:
        "Switch a session between agent and plan mode (the person's act: in plan mode only read-only commands run without asking, whatever the grants)",
    }),
    deleteSession: request({
      input: ById,
      output: z.object({ id: IdSchema }),
      summary: 'Delete a session and its transcript',
    }),
    listMessages: request({
      input: BySession.extend({
        /** Only messages older than this id (an earlier page's first id). */
        beforeId: MessageIdSchema.optional(),
        /** Only the newest this many (before `beforeId`); the whole transcript when absent. */
        limit: MessagePageLimitSchema.optional(),
      }).strict(),
      output: z.array(MessageSchema),
      summary:
        'The transcript of a session, oldest first; with limit, only its newest messages (before beforeId), to load older ones as the reader scrolls up',
    }),
    postMessage: request({
      input: z.object({ sessionId: IdSchema, text: MessageTextSchema }).strict(),
      output: MessageSchema,
      summary: "The person's message: stored at once, then answered by the agent in a turn (after any turn in flight)",
    }),
    cancelTurn: request({
      input: BySession,
      output: z.object({ cancelled: z.boolean() }),
      summary: 'Cancel the turn in flight; background tasks keep running',
    }),
    retryTurn: request({
      input: BySession,
      output: z.object({ retrying: z.literal(true) }),
      summary: 'Run the failed last turn again on the same transcript (conflict when it did not fail or a turn runs)',
    }),
    agentStatus: request({
      input: BySession,
      output: z.object({ busy: z.boolean(), connected: z.boolean(), error: z.string().nullable() }),
      summary: 'Whether a turn is in flight, whether a model is connected, and why the last turn failed (null if not)',
    }),
    getSettings: request({ input: Empty, output: PublicSettingsSchema, summary: 'The settings, without any secret' }),
    updateSettings: request({
      input: SettingsUpdateSchema,
      output: PublicSettingsSchema,
      summary: 'Change the settings (the API key is stored apart and never returned)',
    }),
    testConnection: request({
      input: ConnectionTestRequestSchema,
      output: ConnectionTestResultSchema,
      summary: 'A one-token request to the saved model (or the one given) that proves its URL, key and model',
    }),
    detectLocalModel: request({
      input: Empty,
      output: z.object({ ollama: z.object({ baseUrl: z.string(), models: z.array(z.string()) }).nullable() }),
      summary: 'Look for a local Ollama on 127.0.0.1:11434 to offer when no model is connected',
    }),
    listPermissions: request({
      input: BySession,
      output: z.object({ pending: z.array(PermissionRequestSchema), grants: z.array(GrantSchema) }),
      summary: "Commands waiting for the person's answer, and the grants of this session",
    }),
    waitingPermissions: request({
      input: Empty,
      output: z.object({ waiting: z.array(z.object({ sessionId: IdSchema, requestId: z.string() })) }),
      summary: 'Every command waiting for an answer, in any session (for a mark in the session list)',
    }),
    answerPermission: request({
      input: z.object({ sessionId: IdSchema, requestId: z.string().min(1), answer: PermissionAnswerSchema }).strict(),
      output: z.object({ answered: z.boolean(), grants: z.array(GrantSchema) }),
      summary: 'Answer a pending request: allow once, allow always (exact), always allow the program, or reject',
    }),
    revokeGrant: request({
      input: z.object({ sessionId: IdSchema, kind: z.enum(['exact', 'program']), value: z.string().min(1) }).strict(),
      output: z.object({ grants: z.array(GrantSchema) }),
      summary: 'Remove one grant of this session',
    }),
    promoteGrant: request({
      input: z.object({ sessionId: IdSchema, kind: z.enum(['exact', 'program']), value: z.string().min(1) }).strict(),
      output: z.object({ grants: z.array(GrantSchema), allowlist: z.array(z.string()) }),
      summary: 'Make a grant permanent: add it to the allowlist in settings',
    }),
    getSandbox: request({
      input: BySession,
      output: SessionSandboxSchema,
      summary:
        "The session's sandbox: the policy in force, the hosts allowed for this session, whether this machine has one",
    }),
    allowSandboxHost: request({
      input: z.object({ sessionId: IdSchema, host: SandboxHostSchema }).strict(),
      output: SessionSandboxSchema,
      summary: "Let this session's sandboxed commands reach a host (name, *.domain or address, with an optional :port)",
    }),
    removeSandboxHost: request({
      input: z.object({ sessionId: IdSchema, host: z.string().min(1).max(300) }).strict(),
      output: SessionSandboxSchema,
      summary: "Take a host back from this session (the settings' hosts stay)",
    }),
    runShell: request({
      input: z.object({ sessionId: IdSchema, command: CommandSchema, background: z.boolean().default(false) }).strict(),
      output: ShellResultSchema,
      summary: "The operator's shell line (!cmd in the foreground, &cmd in the background), shown in the transcript",
    }),
    ...taskRequests,
    ...workRequests,
    ...scheduleRequests,
  },
  events: {
    ...workEvents,
    ...scheduleEvents,
    sessionUpserted: event({
      payload: z.object({ session: SessionSchema }),
      summary: 'A session was created or changed',
    }),
    sessionDeleted: event({ payload: z.object({ id: IdSchema }), summary: 'A session was deleted' }),
    messageAdded: event({ payload: z.object({ message: MessageSchema }), summary: 'A message joined a transcript' }),
    messageUpdated: event({
      payload: z.object({ message: MessageSchema }),
      summary: 'A message changed (streaming text, a tool call settling)',
    }),
    permissionRequested: event({
      payload: z.object({ request: PermissionRequestSchema }),
      summary: "The model wants to run a command that needs the person's answer",
    }),
    permissionResolved: event({
      payload: z.object({
        sessionId: IdSchema,
        requestId: z.string(),
        answer: z.union([PermissionAnswerSchema, z.literal('withdrawn')]),
      }),
      summary: 'A pending request was answered, or withdrawn (its turn ended)',
    }),
    sandboxChanged: event({
      payload: z.object({ sandbox: SessionSandboxSchema }),
      summary: "A session's sandbox changed (a host allowed or taken back)",
    }),
    grantsChanged: event({
      payload: z.object({ sessionId: IdSchema, grants: z.array(GrantSchema) }),
      summary: 'The grants of a session changed',
    }),
    openSession: event({
      payload: z.object({ sessionId: IdSchema }),
      summary: 'The person asked (from a notification) to see this session',
    }),
    openTask: event({
      payload: z.object({ sessionId: IdSchema, taskId: TaskIdSchema }),
      summary: 'The person asked (from a notification or the tray) to see this task',
    }),
    turnChanged: event({
      payload: z.object({ sessionId: IdSchema, busy: z.boolean(), error: z.string().nullable() }),
      summary: 'A turn of the agent started or ended (with the error that ended it, if any)',
    }),
    turnRetrying: event({
      payload: z.object({
        sessionId: IdSchema,
        /** Which retry is about to run (1-based), of how many at most. */
        retry: z.number().int().positive(),
        retries: z.number().int().positive(),
        /** Why the last attempt failed, for the person ("Model server not answering"). */
        reason: z.string(),
      }),
      summary: 'A model call of the turn in flight failed and is being retried',
    }),
    taskUpdated: event({ payload: z.object({ task: TaskRowSchema }), summary: 'A task changed state' }),
    taskOutput: event({
      payload: z.object({ sessionId: IdSchema, taskId: TaskIdSchema, totalBytes: z.number().int().nonnegative() }),
      summary: 'A task printed more output (batched, at most a few times a second per task)',
    }),
    storageChanged: event({
      payload: z.object({ storage: StorageStateSchema }),
      summary: 'The disk holding the data folder filled up, or has room again',
    }),
    tasksCleared: event({
      payload: z.object({ sessionId: IdSchema, removed: z.array(TaskIdSchema) }),
      summary: 'Settled tasks of a session were cleared',
    }),
  },
});

export type DroverContract = typeof contract;
export type { Session, SessionMode } from './schemas/session.js';
export type { Message, Role, MessageStatus } from './schemas/message.js';
export type { PublicSettings, SettingsUpdate, ProviderKind } from './schemas/settings.js';
export type { PermissionRequest, PermissionAnswer, Grant } from './schemas/permission.js';
export type { StorageState } from './schemas/storage.js';
export type { Containment, TaskRow, TaskOutput, TaskStatus, TaskList, TaskWithOutput } from './schemas/task.js';
