import { describe, expect, it, vi } from 'vitest';
import { keepWireJson, resultFrameJson } from '../../electron/core/wire-json.js';

const text = (frame: string | Buffer) => (typeof frame === 'string' ? frame : frame.toString('utf8'));

describe('answers that carry a kept value', () => {
  it('are the very bytes JSON.stringify makes of the whole answer, whatever the kept value and its neighbours hold', () => {
    const output = keepWireJson({
      // Escapes, a line separator, a lone surrogate, an emoji and a control character: all as JSON.stringify writes them.
      text: 'line "one"\n\ttab \u2028 \ud800 \u{1f600} \u0007 end',
      totalBytes: 42,
      truncated: false,
    });
    const values = [
      { task: { id: 'bg_1', when: new Date(0), tags: ['a'] }, output, agent: null },
      { output },
      { skipped: undefined, output, fn: () => 1, after: 'x', nested: { output } },
      { 'a "quoted" key': 1, output, last: output },
    ];
    for (const value of values) {
      const frame = resultFrameJson(7, value);
      expect(Buffer.isBuffer(frame)).toBe(true);
      expect(text(frame)).toBe(JSON.stringify({ t: 'result', id: 7, ok: true, value }));
    }
  });

  it('serialise a kept value once, however many answers carry it', () => {
    const output = keepWireJson({ text: 'x'.repeat(1000), totalBytes: 1000, truncated: false });
    const first = text(resultFrameJson(1, { output }));
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      for (let id = 2; id < 12; id++)
        expect(text(resultFrameJson(id, { output }))).toContain(first.slice(first.indexOf('"value"')));
      // Each answer still writes its own id, keys and the rest: never the kept value's text again.
      expect(stringify.mock.calls.some(([value]) => value === output)).toBe(false);
    } finally {
      stringify.mockRestore();
    }
  });

  it('are made as before when nothing in them is kept, or the value is not a plain object', () => {
    const output = keepWireJson({ text: 'kept', totalBytes: 4, truncated: false });
    class Row {
      constructor(readonly output: object) {}
    }
    for (const value of [
      { text: 'fresh' },
      'a string',
      null,
      [output],
      new Row(output),
      { toJSON: () => ({ output }) },
    ]) {
      const frame = resultFrameJson(3, value);
      expect(typeof frame).toBe('string');
      expect(frame).toBe(JSON.stringify({ t: 'result', id: 3, ok: true, value }));
    }
  });

  it('cannot change once kept: what every later read sends stays true', () => {
    const output = keepWireJson({ text: 'before', totalBytes: 6, truncated: false });
    expect(Object.isFrozen(output)).toBe(true);
    expect(() => {
      (output as { text: string }).text = 'after';
    }).toThrow(TypeError);
    expect(text(resultFrameJson(1, { output }))).toContain('"before"');
  });
});
