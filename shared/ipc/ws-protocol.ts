import { z } from 'zod';
import { IpcErrorSchema } from './errors.js';

/** Frames carried over the headless host's WebSocket, one JSON object per message. */
export const CallFrameSchema = z.strictObject({
  t: z.literal('call'),
  id: z.number().int().nonnegative(),
  name: z.string(),
  input: z.unknown(),
});
export type CallFrame = z.infer<typeof CallFrameSchema>;

export const ResultFrameSchema = z.union([
  z.object({ t: z.literal('result'), id: z.number(), ok: z.literal(true), value: z.unknown() }),
  z.object({ t: z.literal('result'), id: z.number(), ok: z.literal(false), error: IpcErrorSchema }),
]);

export const EventFrameSchema = z.object({ t: z.literal('event'), name: z.string(), payload: z.unknown() });

/** Sent when a frame cannot be read at all (not JSON, no id); the connection stays open. */
export const ProtocolErrorFrameSchema = z.object({ t: z.literal('protocol_error'), error: IpcErrorSchema });

export const ServerFrameSchema = z.union([ResultFrameSchema, EventFrameSchema, ProtocolErrorFrameSchema]);
export type ServerFrame = z.infer<typeof ServerFrameSchema>;

/** Path of the WebSocket endpoint on the host; the token travels as `?token=`. */
export const WS_PATH = '/ws';
