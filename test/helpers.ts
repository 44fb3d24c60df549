import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const made: string[] = [];

/** A fresh folder removed after the test. */
export function tempDir(prefix = 'drover-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Resolves once `predicate` holds, polling briefly; fails with `what` after the limit. */
export async function until(predicate: () => boolean | Promise<boolean>, what: string, limitMs = 5_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
