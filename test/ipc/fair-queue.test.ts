import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../electron/ipc/fair-queue.js';
import { KeyShapeError, toCamelKeys, toSnakeKeys } from '../../electron/ipc/case.js';

describe("one connection's fair share", () => {
  it('runs at most maxInFlight at once, queues maxQueued in order, and refuses the rest as busy', async () => {
    const queue = new FairQueue({ maxInFlight: 2, maxQueued: 3 });
    const release: (() => void)[] = [];
    const started: number[] = [];
    const runs = Array.from({ length: 6 }, (_, i) =>
      queue.run(
        () =>
          new Promise<number>((resolve) => {
            started.push(i);
            release.push(() => resolve(i));
          }),
      ),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(queue.queued).toBe(3);
    await expect(runs[5]).rejects.toMatchObject({ code: 'busy' });
    while (release.length > 0) {
      release.shift()!();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    expect(await Promise.all(runs.slice(0, 5))).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(queue.inFlight).toBe(0);
  });
});

describe('REST key case', () => {
  it('converts bodies nested far past the call stack without recursion, and refuses them past the limit', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => toCamelKeys(deep)).toThrow(KeyShapeError);
    expect(() => toCamelKeys(deep, Number.POSITIVE_INFINITY)).not.toThrow();
    expect(toSnakeKeys({ aB: [{ cD: 1 }] })).toEqual({ a_b: [{ c_d: 1 }] });
  });

  it('refuses one key in two spellings and keeps "__proto__" a plain key', () => {
    expect(() => toCamelKeys({ timeout_seconds: 1, timeoutSeconds: 2 })).toThrow(
      /"timeout_seconds" and "timeoutSeconds"/,
    );
    // snake() leaves "__proto__" as it is, so the copy must define it as a key, not assign a prototype.
    const parsed = toSnakeKeys(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });
});
