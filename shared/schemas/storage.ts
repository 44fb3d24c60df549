import { z } from 'zod';
import { TimestampSchema } from './session.js';

/** Whether Drover can save: a full disk is a state the page shows, not a crash. */
export const StorageStateSchema = z.object({
  /** The disk holding the data folder has no room: new rows and output are not being saved. */
  full: z.boolean(),
  /** The data folder. */
  folder: z.string(),
  /** When a write first failed for lack of room; null while there is room. */
  since: TimestampSchema.nullable(),
  /** What the person is told while it lasts; null while there is room. */
  message: z.string().nullable(),
});
export type StorageState = z.infer<typeof StorageStateSchema>;
