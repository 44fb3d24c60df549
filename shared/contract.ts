import { z } from 'zod';
import { defineContract, event, request } from './ipc/define.js';
import { IdSchema, SessionSchema, TitleSchema } from './schemas/session.js';
import { MessageSchema, MessageTextSchema } from './schemas/message.js';

const Empty = z.object({}).strict();
const ById = z.object({ id: IdSchema }).strict();
const BySession = z.object({ sessionId: IdSchema }).strict();

export const AppInfoSchema = z.object({
  version: z.string(),
  /** Where this app keeps its data; shown in troubleshooting. */
  dataDir: z.string(),
  host: z.enum(['electron', 'headless']),
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
    deleteSession: request({
      input: ById,
      output: z.object({ id: IdSchema }),
      summary: 'Delete a session and its transcript',
    }),
    listMessages: request({
      input: BySession,
      output: z.array(MessageSchema),
      summary: 'The transcript of a session, oldest first',
    }),
    postMessage: request({
      input: z.object({ sessionId: IdSchema, text: MessageTextSchema }).strict(),
      output: MessageSchema,
      summary: 'Add the person\'s message to a session transcript',
    }),
  },
  events: {
    sessionUpserted: event({ payload: z.object({ session: SessionSchema }), summary: 'A session was created or changed' }),
    sessionDeleted: event({ payload: z.object({ id: IdSchema }), summary: 'A session was deleted' }),
    messageAdded: event({ payload: z.object({ message: MessageSchema }), summary: 'A message joined a transcript' }),
  },
});

export type DroverContract = typeof contract;
export type { Session } from './schemas/session.js';
export type { Message, Role } from './schemas/message.js';
