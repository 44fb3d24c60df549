import { realpathSync, statSync } from 'node:fs';
import type { MetaRepo } from '../store/meta-repo.js';
import { randomId } from './ids.js';

const INSTANCE_ID = 'instance_id';
const INSTANCE_HOME = 'instance_home';

/** Lowercase base36, as randomId makes them: safe inside environment variable names and cgroup names. */
export const INSTANCE_ID_PATTERN = /^[0-9a-z]{12}$/;

/**
 * The random id of this data folder, made on first open. Every mark, cgroup and lock that
 * leaves the process carries it, so two Drovers never mistake each other's processes.
 *
 * The id is tied to where the folder lives (its real path and inode): a copy or a move of the
 * folder gets a fresh id, so records copied along never claim processes the original started.
 */
export function instanceIdFor(meta: MetaRepo, dataDir: string): string {
  const home = folderIdentity(dataDir);
  const stored = meta.get(INSTANCE_ID);
  if (stored && INSTANCE_ID_PATTERN.test(stored) && meta.get(INSTANCE_HOME) === home) return stored;
  const fresh = randomId(12);
  meta.set(INSTANCE_ID, fresh);
  meta.set(INSTANCE_HOME, home);
  return fresh;
}

function folderIdentity(dataDir: string): string {
  const real = realpathSync(dataDir);
  const info = statSync(real, { bigint: true });
  return `${real}\0${info.dev}:${info.ino}`;
}
