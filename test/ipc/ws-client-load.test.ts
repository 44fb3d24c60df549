import { describe, expect, it, vi } from 'vitest';
import { createWsClient } from '../../shared/ipc/ws-client.js';

// The frames' schemas cannot be loaded, as when a page's build is replaced under it.
vi.mock('../../shared/ipc/ws-protocol.js', () => {
  throw new Error('Failed to fetch dynamically imported module');
});

describe("a client whose frames' schemas cannot be loaded", () => {
  it('fails every call with the reason, now and later, and closes its socket', async () => {
    const closed: number[] = [];
    const client = createWsClient({
      url: 'ws://127.0.0.1:9/ws',
      createSocket: () => ({
        readyState: 0,
        send: () => {},
        close: (code?: number) => closed.push(code ?? 0),
        onopen: null,
        onclose: null,
        onerror: null,
        onmessage: null,
      }),
    });
    const waiting = await client.call('listSessions', {});
    expect(waiting).toMatchObject({
      ok: false,
      error: { code: 'disconnected', message: expect.stringContaining('could not load its protocol code') },
    });
    expect((await client.call('listSessions', {})) as unknown).toEqual(waiting);
    expect(client.state).toBe('closed');
    expect(closed).toEqual([1000]);
  });
});
