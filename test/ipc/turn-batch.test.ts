import { describe, expect, it } from 'vitest';
import { TurnBatch } from '../../electron/ipc/turn-batch.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnBatch', () => {
  it("hands over one turn's items once, in order, at the end of the turn; a later turn's separately", async () => {
    const delivered: number[][] = [];
    const batch = new TurnBatch<number>((items) => delivered.push(items));
    batch.add(1);
    batch.add(2);
    batch.add(3);
    expect(delivered).toEqual([]);
    await turn();
    expect(delivered).toEqual([[1, 2, 3]]);
    batch.add(4);
    await turn();
    expect(delivered).toEqual([[1, 2, 3], [4]]);
  });

  it('flush hands over what waits now, and the end of the turn then finds nothing more', async () => {
    const delivered: number[][] = [];
    const batch = new TurnBatch<number>((items) => delivered.push(items));
    batch.flush();
    expect(delivered).toEqual([]);
    batch.add(1);
    batch.flush();
    expect(delivered).toEqual([[1]]);
    batch.add(2);
    await turn();
    expect(delivered).toEqual([[1], [2]]);
  });

  it('close drops what waits and whatever comes after', async () => {
    const delivered: number[][] = [];
    const batch = new TurnBatch<number>((items) => delivered.push(items));
    batch.add(1);
    batch.close();
    batch.add(2);
    batch.flush();
    await turn();
    expect(delivered).toEqual([]);
  });
});
