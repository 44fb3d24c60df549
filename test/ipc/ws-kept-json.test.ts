import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { keepWireJson } from '../../electron/core/wire-json.js';
import { ContractWsServer } from '../../electron/ipc/ws-server.js';
import { serveContract } from './ws-serve.js';

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

describe('an answer carrying a settled output over a WebSocket', () => {
  it('arrives as a text frame, the same for every read, that the client reads as the contract says', async () => {
    const output = keepWireJson({ text: 'done ✓\nexit "0"', totalBytes: 17, truncated: false });
    const server = new ContractWsServer({
      handle: async (_name, input) => ({
        ok: true,
        value: { task: { id: (input as { taskId: string }).taskId }, output, agent: null },
      }),
      subscribe: () => () => {},
    });
    const ws = new WebSocket(await serveContract(server, closers));
    closers.push(() => ws.terminate());
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const frames: { text: string; binary: boolean }[] = [];
    const got = new Promise<void>((resolve) =>
      ws.on('message', (data: Buffer, binary) => {
        frames.push({ text: data.toString('utf8'), binary });
        if (frames.length === 3) resolve();
      }),
    );
    for (let id = 1; id <= 3; id++)
      ws.send(JSON.stringify({ t: 'call', id, name: 'getTask', input: { taskId: `bg_${id}` } }));
    await got;
    expect(frames.every((frame) => !frame.binary)).toBe(true);
    const answers = frames.map((frame) => JSON.parse(frame.text) as { id: number; value: { task: { id: string } } });
    for (const answer of answers)
      expect(answer).toEqual({
        t: 'result',
        id: answer.id,
        ok: true,
        value: { task: { id: `bg_${answer.id}` }, output, agent: null },
      });
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3]);
  });
});
