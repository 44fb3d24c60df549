import type { TunableId, TunableSection } from '../schemas/settings.js';

/** A tunable's section and key (`pool.maxTasks` → pool, maxTasks); zod-free for the renderer's first screen (issue 18). */
export function tunableParts(id: TunableId): [TunableSection, string] {
  return id.split('.') as [TunableSection, string];
}
