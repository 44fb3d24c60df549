import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../shared/ipc/drover-error.js';
import { readServerFrame } from '../../shared/ipc/ws-frame-reader.js';
import { ServerFrameSchema } from '../../shared/ipc/ws-protocol.js';

// The page reads the host's frames without zod (ws-frame-reader.ts); the schemas in
// ws-protocol.ts stay the one declaration of their shapes. These hold the two to the same answers.

/** A value that is sometimes what a field wants and often not: the wrong type, null, or absent (undefined, dropped by JSON). */
const anyOf = <T>(wanted: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: wanted },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, undefined, 0, '', true, [], {}) },
    { weight: 1, arbitrary: fc.jsonValue() },
  );

const code = anyOf(fc.oneof(fc.constantFrom(...ERROR_CODES), fc.string({ maxLength: 12 })));
const issue = anyOf(fc.record({ path: anyOf(fc.string()), message: anyOf(fc.string()) }, { requiredKeys: [] }));
const error = anyOf(
  fc.record(
    {
      code,
      message: anyOf(fc.string()),
      path: anyOf(fc.string()),
      issues: anyOf(fc.array(issue, { maxLength: 3 })),
    },
    { requiredKeys: ['code', 'message'] },
  ),
);
const id = anyOf(fc.oneof(fc.nat(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })));
const result = anyOf(
  fc.record(
    {
      t: anyOf(fc.constant('result')),
      id,
      ok: anyOf(fc.boolean()),
      value: fc.jsonValue(),
      error,
    },
    { requiredKeys: ['t', 'id', 'ok'] },
  ),
);
const event = anyOf(fc.record({ name: anyOf(fc.string()), payload: fc.jsonValue() }, { requiredKeys: ['name'] }));
const frame = fc.oneof(
  result,
  fc.record(
    {
      t: anyOf(fc.constantFrom('result', 'results', 'event', 'events', 'protocol_error', 'gossip')),
      id,
      ok: anyOf(fc.boolean()),
      value: fc.jsonValue(),
      error,
      results: anyOf(fc.array(result, { maxLength: 4 })),
      name: anyOf(fc.string()),
      payload: fc.jsonValue(),
      events: anyOf(fc.array(event, { maxLength: 4 })),
      extra: fc.jsonValue(),
    },
    { requiredKeys: ['t'] },
  ),
  fc.jsonValue(),
);

/** What the reader gets: a frame after JSON, as the socket delivers it. */
const overTheWire = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? 'null');

describe("the page's frame reader", () => {
  it('takes exactly the frames the protocol’s schemas take, and reads them the same', () => {
    let taken = 0;
    let refused = 0;
    fc.assert(
      fc.property(frame, (value) => {
        const parsed = overTheWire(value);
        const read = readServerFrame(parsed);
        const checked = ServerFrameSchema.safeParse(parsed);
        expect(read !== null, JSON.stringify(checked.error?.issues ?? parsed)).toBe(checked.success);
        if (!checked.success) return void refused++;
        taken++;
        // zod's copy leaves out unknown fields; the reader hands on the frame itself.
        expect(read).toMatchObject(checked.data as object);
      }),
      { numRuns: 4_000 },
    );
    // Both answers are common, so the comparison means something either way. About one frame in
    // ten is taken (372 to 446 of 4,000 over six seeds; a standard deviation of about 19): the floor
    // sits far below that, so no seed fails it by chance.
    expect(taken).toBeGreaterThan(250);
    expect(refused).toBeGreaterThan(250);
  });

  it('reads every kind of frame, and refuses one with an unknown error code, or any bad answer among the results', () => {
    const frames = [
      { t: 'event', name: 'taskUpdated', payload: { id: 'x' } },
      {
        t: 'events',
        events: [
          { name: 'a', payload: 1 },
          { name: 'b', payload: null },
        ],
      },
      { t: 'result', id: 1, ok: true, value: [1, 2] },
      { t: 'result', id: 2, ok: false, error: { code: 'not_found', message: 'No task', path: 'id' } },
      { t: 'results', results: [{ t: 'result', id: 3, ok: true, value: null }] },
      { t: 'protocol_error', error: { code: 'invalid_input', message: 'Not JSON', issues: [] } },
    ];
    for (const each of frames) expect(readServerFrame(each), each.t).toBe(each);
    expect(readServerFrame({ t: 'result', id: 4, ok: false, error: { code: 'oops', message: 'x' } })).toBeNull();
    expect(
      readServerFrame({
        t: 'results',
        results: [
          { t: 'result', id: 5, ok: true, value: 1 },
          { t: 'result', id: 6, ok: false },
        ],
      }),
    ).toBeNull();
    // An answer or an event is there even when empty: JSON keeps a null, and drops only undefined, which the host never sends.
    expect(readServerFrame({ t: 'result', id: 7, ok: true })).toBeNull();
    expect(readServerFrame({ t: 'event', name: 'taskUpdated' })).toBeNull();
    expect(readServerFrame({ t: 'gossip' })).toBeNull();
    expect(readServerFrame([{ t: 'event', name: 'x' }])).toBeNull();
  });
});
