import { z } from 'zod';

/** `settings.json` in the data folder. Every field is optional; absent ones keep their defaults. */
export const BackgroundSettingsSchema = z
  .object({
    enabled: z.boolean(),
    maxConcurrent: z.number().int().min(1).max(64),
    defaultTimeoutSeconds: z.number().int().min(1).max(24 * 3600),
    maxTimeoutSeconds: z.number().int().min(1).max(7 * 24 * 3600),
    outputBufferBytes: z.number().int().min(4096).max(64 * 1024 * 1024),
    stopGraceSeconds: z.number().min(0).max(300),
    foregroundWaitSeconds: z.number().min(1).max(3600),
  })
  .partial()
  .strict();

export const SettingsSchema = z
  .object({
    background: BackgroundSettingsSchema.optional(),
  })
  .strict();
export type Settings = z.infer<typeof SettingsSchema>;
