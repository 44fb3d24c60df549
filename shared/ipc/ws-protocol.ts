// zod/mini: the page parses every frame with these, on its first load (see errors.ts).
import * as z from 'zod/mini';
import { IpcErrorSchema } from './errors.js';
import { HANDSHAKE_CALLS, HANDSHAKE_MAX_CALLS } from './ws-connect.js';

// Where and how a client connects, in a module free of zod (the page's first script needs them).
export * from './ws-connect.js';

/** Frames carried over the headless host's WebSocket, one JSON object per message. */
export const CallFrameSchema = z.strictObject({
  t: z.literal('call'),
  id: z.int().check(z.nonnegative()),
  name: z.string(),
  input: z.unknown(),
});
export type CallFrame = z.infer<typeof CallFrameSchema>;

// Discriminated unions throughout: a frame is checked against the one shape its `t` (and `ok`) names.
// A plain union tried the shapes in turn and wrote out every failed one's issues, for every event.
export const ResultFrameSchema = z.discriminatedUnion('ok', [
  z.object({ t: z.literal('result'), id: z.number(), ok: z.literal(true), value: z.unknown() }),
  z.object({ t: z.literal('result'), id: z.number(), ok: z.literal(false), error: IpcErrorSchema }),
]);

export type ResultFrame = z.infer<typeof ResultFrameSchema>;

/**
 * The answers to the calls a client carried in its handshake, together in one frame, in the
 * order they were carried: a page takes them in one task and builds its first screen once, where
 * a frame each had it lay out and paint a half-built screen between them (issue 18).
 */
export const ResultsFrameSchema = z.object({ t: z.literal('results'), results: z.array(ResultFrameSchema) });

export const EventFrameSchema = z.object({ t: z.literal('event'), name: z.string(), payload: z.unknown() });

/**
 * The events of one turn of the host's event loop, in the order they happened, in one frame: a
 * page takes them in one task and updates once. Fifty busy tasks' output ticks came as fifty frames,
 * each read, parsed and laid out on its own (issue 18: the host's lag under chatty tasks). A turn
 * with a single event sends it as an `event` frame.
 */
export const EventsFrameSchema = z.object({
  t: z.literal('events'),
  events: z.array(z.object({ name: z.string(), payload: z.unknown() })),
});

/** Sent when a frame cannot be read at all (not JSON, no id); the connection stays open. */
export const ProtocolErrorFrameSchema = z.object({ t: z.literal('protocol_error'), error: IpcErrorSchema });

export const ServerFrameSchema = z.discriminatedUnion('t', [
  ResultFrameSchema,
  ResultsFrameSchema,
  EventFrameSchema,
  EventsFrameSchema,
  ProtocolErrorFrameSchema,
]);
export type ServerFrame = z.infer<typeof ServerFrameSchema>;

export const HandshakeCallsSchema = z
  .array(
    CallFrameSchema.check(
      z.superRefine((frame, context) => {
        if (HANDSHAKE_CALLS.has(frame.name)) return;
        context.addIssue({
          code: 'custom',
          path: ['name'],
          message: `${frame.name} may not be carried in the handshake (only ${[...HANDSHAKE_CALLS].join(', ')})`,
        });
      }),
    ),
  )
  .check(z.maxLength(HANDSHAKE_MAX_CALLS));
