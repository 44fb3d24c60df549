/**
 * The data folder renamed under a running host: a task started afterwards is refused with the reason,
 * and the old path is never silently recreated with half of Drover's data in it.
 */
import { existsSync, renameSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hostCases } from './host-cases.js';

const newCase = hostCases();

describe('a data folder moved under a running host', () => {
  it('does not recreate the old data folder when a task starts after the move', async () => {
    const fault = newCase();
    await fault.start();
    const session = (await fault.ok('POST', '/sessions', { title: 'moved' })).id as string;
    const old = fault.dataDir;
    renameSync(old, `${old}-moved`);
    fault.dataDir = `${old}-moved`;
    const answer = await fault.host.call('POST', `/sessions/${session}/background-tasks`, { command: 'echo after' });
    // A clear refusal: a log made now would land in a new folder at the old path, apart from the database.
    expect(answer.status).toBe(503);
    expect(answer.body.error.message).toContain(`The data folder ${old} was moved or removed while Drover ran`);
    expect(existsSync(old)).toBe(false);
    // What is stored still reads (the open database moved with its folder).
    expect((await fault.ok('GET', `/sessions/${session}`)).title).toBe('moved');
  }, 60_000);
});
