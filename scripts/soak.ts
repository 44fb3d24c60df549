/**
 * `npm run soak`: the kill -9 loop of test/faults at length (500 kills by default; SOAK_ITERATIONS
 * and SOAK_SEED change it). Prints what was acknowledged, found, lost, the integrity checks and
 * the strays, and exits non-zero when anything was lost, damaged or left running.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKillLoop } from '../test/faults/kill-loop.js';

const iterations = Number(process.env.SOAK_ITERATIONS ?? 500);
const seed = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000_007);
const dataDir = mkdtempSync(join(tmpdir(), 'drover-soak-'));
const started = Date.now();
console.log(`soak: ${iterations} kills of the host, seed ${seed}, data in ${dataDir}`);
try {
  const figures = await runKillLoop({ dataDir, iterations, seed, log: (line) => console.log(`  ${line}`) });
  const failures =
    figures.integrityFailures.length + figures.lost.length + figures.strays.length + figures.refused.length;
  console.log(
    [
      `kills: ${figures.iterations} (${figures.cutOff} requests cut off mid-flight)`,
      `rows acknowledged: ${figures.acknowledged}`,
      `rows found: ${figures.found}`,
      `lost: ${figures.lost.length}`,
      `integrity: ${figures.iterations + 1 - figures.integrityFailures.length} of ${figures.iterations + 1} checks ok`,
      `strays: ${figures.strays.length}`,
      `refused while alive: ${figures.refused.length}`,
      `time: ${((Date.now() - started) / 1000).toFixed(0)} s`,
    ].join('\n'),
  );
  for (const line of [...figures.lost, ...figures.integrityFailures, ...figures.refused]) console.log(`  ${line}`);
  if (figures.strays.length) console.log(`  stray pids (killed): ${figures.strays.join(' ')}`);
  process.exitCode = failures ? 1 : 0;
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
