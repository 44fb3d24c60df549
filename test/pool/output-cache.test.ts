import { describe, expect, it } from 'vitest';
import { RenderedOutputs } from '../../electron/pool/output-cache.js';
import { resultFrameJson } from '../../electron/core/wire-json.js';
import type { TaskOutput } from '../../shared/schemas/task.js';

const output = (text: string): TaskOutput => ({ text, totalBytes: text.length, truncated: false });

describe('rendered outputs', () => {
  it('renders a settled key once for any number of concurrent reads, and keeps at most the given renders running', async () => {
    const cache = new RenderedOutputs({ maxConcurrent: 2 });
    let renders = 0;
    let running = 0;
    let most = 0;
    const render = (text: string) => async () => {
      renders++;
      most = Math.max(most, ++running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return output(text);
    };
    const same = await Promise.all(Array.from({ length: 100 }, () => cache.read('s/bg_1/all/10', render('one'))));
    expect(same.every((answer) => answer.text === 'one')).toBe(true);
    expect(renders).toBe(1);
    await Promise.all(Array.from({ length: 10 }, (_, i) => cache.read(null, render(`live ${i}`))));
    expect(renders).toBe(11);
    expect(most).toBe(2);
  });

  it('forgets a cleared task or a deleted session, and drops the oldest entries past its size', async () => {
    const cache = new RenderedOutputs({ maxChars: 40 });
    await cache.read('s1/bg_1/all/1', async () => output('a'.repeat(10)));
    await cache.read('s1/bg_2/all/1', async () => output('b'.repeat(10)));
    await cache.read('s2/bg_3/all/1', async () => output('c'.repeat(10)));
    cache.forget('s1/bg_1/');
    expect(cache.size).toBe(2);
    cache.forget('s2/');
    expect(cache.size).toBe(1);
    for (let i = 0; i < 6; i++) await cache.read(`s3/bg_${i}/all/1`, async () => output('d'.repeat(10)));
    // 40 characters hold four entries of ten: the oldest went first.
    expect(cache.size).toBe(4);
    let rendered = false;
    await cache.read('s1/bg_2/all/1', async () => {
      rendered = true;
      return output('b'.repeat(10));
    });
    expect(rendered).toBe(true);
  });

  it("keeps the JSON of what it remembers for every later answer (wire-json.ts), and never of a live task's output", async () => {
    const cache = new RenderedOutputs();
    const settled = await cache.read('s/bg_1/all/3', async () => output('end'));
    expect(Object.isFrozen(settled)).toBe(true);
    expect(Buffer.isBuffer(resultFrameJson(1, { output: settled }))).toBe(true);
    const live = await cache.read(null, async () => output('still going'));
    expect(Object.isFrozen(live)).toBe(false);
    expect(typeof resultFrameJson(2, { output: live })).toBe('string');
  });
});
