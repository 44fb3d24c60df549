import { describe, expect, it } from 'vitest';
import { until } from '../helpers.js';
import { setupAgent } from './agent-harness.js';

describe('readiness wakes the agent, through the real services and a fake model', () => {
  it('notify_on_ready: woken once when the server is ready, with how long it took and its port; it keeps running', async () => {
    const { model, say, turnsEnded, services, session } = await setupAgent();
    const script =
      "setTimeout(()=>require('http').createServer((q,s)=>s.end()).listen(0,'127.0.0.1',function(){console.log('Listening on '+this.address().port)}),400)";
    model.enqueue(
      {
        toolCalls: [
          {
            name: 'run_command',
            args: {
              command: `node -e "${script}"`,
              background: true,
              ready: { pattern: 'Listening on \\d+' },
              notify_on_ready: true,
            },
          },
        ],
      },
      { text: 'Started the server; I will be told when it is ready.' },
      { text: 'It is ready.' },
    );
    await say('Start the server');
    expect(model.requests[1]!.transcript).toContain(
      'Ready when: output matching /Listening on \\d+/; you will be woken when it is.',
    );
    await until(() => turnsEnded() >= 2, 'the ready wake', 15_000);
    const wake = model.requests[2]!.transcript;
    expect(wake).toContain('Automated notice: tasks you asked about are ready (or ended first).');
    expect(wake).toMatch(
      /bg_1 \(node -e .*\) is ready after \d+(\.\d)? s(, listening on port \d+)?; it keeps running\./,
    );
    expect(services.pool.row(session.id, 'bg_1')).toMatchObject({ running: true, ready: true });
  });

  it('a server that dies before it is ready says so in the wake', async () => {
    const { model, say, turnsEnded } = await setupAgent();
    model.enqueue(
      {
        toolCalls: [
          {
            name: 'run_command',
            args: {
              command: 'echo "Error: FAIL$((40+2))"; exit 1',
              background: true,
              ready: { port: 1 },
              notify_on_ready: true,
            },
          },
        ],
      },
      { text: 'Started.' },
      { text: 'It died.' },
    );
    await say('Start the server');
    await until(() => turnsEnded() >= 2, 'the wake', 15_000);
    const wake = model.requests[2]!.transcript;
    expect(wake).toMatch(/bg_1 \(.*\): failed, exit code 1, runtime .*it ended before it was ready, did NOT succeed/);
    expect(wake).not.toContain('FAIL42');
  });
});
