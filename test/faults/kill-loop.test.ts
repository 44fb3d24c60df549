import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { runKillLoop } from './kill-loop.js';

/** Seeded so a failure replays: FAULT_SEED=<seed> npx vitest run test/faults/kill-loop.test.ts */
const SEED = Number(process.env.FAULT_SEED ?? 20_260_512);
const ITERATIONS = 50;

describe('kill -9 of the host at random points of a write burst', () => {
  it(`loses no acknowledged row and never damages the database (${ITERATIONS} kills, seed ${SEED})`, async () => {
    const figures = await runKillLoop({ dataDir: tempDir(), iterations: ITERATIONS, seed: SEED });
    expect(figures.iterations).toBe(ITERATIONS);
    expect(figures.lost).toEqual([]);
    expect(figures.integrityFailures).toEqual([]);
    expect(figures.strays).toEqual([]);
    expect(figures.refused).toEqual([]);
    // The kills landed while requests were in flight, and the bursts wrote something worth checking.
    expect(figures.cutOff).toBeGreaterThan(0);
    expect(figures.acknowledged).toBeGreaterThan(ITERATIONS * 2);
    // Each kill starts a host again, and that slows with the machine: 112 s in a CI run with two CPU
    // burners beside the other test files, so the limit is well above that.
  }, 300_000);
});
