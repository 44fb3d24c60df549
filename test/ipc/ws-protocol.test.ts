import { describe, expect, it } from 'vitest';
import { ServerFrameSchema } from '../../shared/ipc/ws-protocol.js';

describe('the frames a client reads', () => {
  it('are each checked against the one shape their `t` and `ok` name', () => {
    const frames = [
      { t: 'event', name: 'taskChanged', payload: { id: 'x' } },
      { t: 'result', id: 1, ok: true, value: [1, 2] },
      { t: 'result', id: 2, ok: false, error: { code: 'not_found', message: 'No task' } },
      { t: 'results', results: [{ t: 'result', id: 3, ok: true, value: null }] },
      { t: 'protocol_error', error: { code: 'invalid_input', message: 'Not JSON' } },
    ];
    for (const frame of frames) expect(ServerFrameSchema.safeParse(frame).success, frame.t).toBe(true);
  });

  it('name the field a malformed frame lacks, not a failed union of every shape', () => {
    // A plain union tried each shape in turn and answered with all their failures at the root.
    const failed = ServerFrameSchema.safeParse({ t: 'result', id: 4, ok: false });
    expect(failed.success).toBe(false);
    expect(failed.error!.issues.map((issue) => [issue.code, issue.path.join('.')])).toEqual([
      ['invalid_type', 'error'],
    ]);
    const unknown = ServerFrameSchema.safeParse({ t: 'gossip', id: 5 });
    expect(unknown.error!.issues.map((issue) => [issue.code, issue.path.join('.')])).toEqual([['invalid_union', 't']]);
  });
});
