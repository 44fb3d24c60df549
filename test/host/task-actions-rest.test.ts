import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServices } from '../../electron/core/services.js';
import { tempDir } from '../helpers.js';
import { REST_TOKEN as TOKEN, restAuth, startRestHost } from './rest-harness.js';

const auth = restAuth;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const start = () => startRestHost();

describe('task actions', () => {
  it('saves the whole raw log as an attachment, only with the token', async () => {
    const { services, call, session, base } = await start();
    const task = (
      await call('POST', `/sessions/${session}/shell`, {
        command: 'for i in $(seq 1 20000); do echo "line $i"; done; printf \'\\033[1mbold\\033[0m\\n\'',
        background: true,
      })
    ).body;
    await services.pool.waitFor(task.id, 20_000);
    const url = `${base}/sessions/${session}/background-tasks/${task.id}/log`;
    const res = await fetch(url, { headers: auth });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${task.id}.log"`);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await res.text();
    // The whole log (far past the 256 KiB a terminal view loads), escapes as written.
    expect(text.startsWith('line 1\n')).toBe(true);
    expect(text).toContain('line 20000\n\u001b[1mbold\u001b[0m\n');
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(`${url}?token=${TOKEN}`)).status).toBe(401);
    const missing = await fetch(`${base}/sessions/${session}/background-tasks/bg_999/log`, { headers: auth });
    expect(missing.status).toBe(404);
    const bad = await fetch(url, { method: 'DELETE', headers: auth });
    expect(bad.status).toBe(405);
    expect(bad.headers.get('allow')).toBe('GET');
  });

  it('reruns a task with its command, folder and background flag under a new id', async () => {
    const { services, session, dataDir } = await start();
    const folder = join(dataDir, 'elsewhere');
    mkdirSync(folder);
    const first = await services.handle('startTask', { sessionId: session, command: 'pwd', cwd: folder });
    expect(first.ok).toBe(true);
    const id = (first as { value: { id: string } }).value.id;
    await services.pool.waitFor(id, 10_000);
    const again = await services.handle('rerunTask', { sessionId: session, taskId: id });
    expect(again.ok).toBe(true);
    const row = (again as { value: { task: { id: string; cwd: string; command: string; foreground: boolean } } }).value
      .task;
    expect(row).toMatchObject({ command: 'pwd', cwd: folder, foreground: false });
    expect(row.id).not.toBe(id);
    const fg = await services.handle('runShell', { sessionId: session, command: 'echo hi', background: false });
    const fgId = (fg as { value: { task: { id: string } } }).value.task.id;
    const fgAgain = await services.handle('rerunTask', { sessionId: session, taskId: fgId });
    expect((fgAgain as { value: { task: { foreground: boolean; status: string } } }).value.task).toMatchObject({
      foreground: true,
      status: 'succeeded',
    });
  });

  it('clears only the tasks named, and answers the log path where it cannot reveal it', async () => {
    const { services, session } = await start();
    const ids: string[] = [];
    for (const word of ['a', 'b']) {
      const run = await services.handle('runShell', { sessionId: session, command: `echo ${word}`, background: false });
      ids.push((run as { value: { task: { id: string } } }).value.task.id);
    }
    const revealed = await services.handle('revealTaskLog', { sessionId: session, taskId: ids[0] });
    expect(revealed).toMatchObject({ ok: true, value: { revealed: false } });
    expect((revealed as { value: { path: string } }).value.path).toMatch(/output\.log$/);
    const cleared = await services.handle('clearFinishedTasks', { sessionId: session, taskIds: [ids[0]] });
    expect(cleared).toMatchObject({ ok: true, value: { removed: [ids[0]] } });
    expect(services.pool.list(session).map((task) => task.id)).toEqual([ids[1]]);
  });

  it('saves a copy of the log where the desktop app dialog says, and nowhere when it is cancelled', async () => {
    const dataDir = tempDir();
    const picked: { source: string; name: string }[] = [];
    let answer: string | null = join(dataDir, 'copy.log');
    const services = createServices({
      dataDir,
      version: '1',
      host: 'headless',
      workingDir: dataDir,
      saveFileCopy: async (source, name) => {
        picked.push({ source, name });
        if (answer) copyFileSync(source, answer);
        return answer;
      },
    });
    cleanups.push(() => services.shutdown());
    const session = (await services.handle('createSession', {})) as { value: { id: string } };
    const sessionId = session.value.id;
    const run = (await services.handle('runShell', {
      sessionId,
      command: 'echo kept in the copy',
      background: false,
    })) as {
      value: { task: { id: string; logPath: string } };
    };
    const { id, logPath } = run.value.task;
    const saved = await services.handle('saveTaskLog', { sessionId, taskId: id });
    expect(saved).toEqual({ ok: true, value: { savedTo: answer } });
    expect(picked).toEqual([{ source: logPath, name: `${id}.log` }]);
    expect(readFileSync(answer!, 'utf8')).toContain('kept in the copy');
    answer = null;
    expect(await services.handle('saveTaskLog', { sessionId, taskId: id })).toEqual({
      ok: true,
      value: { savedTo: null },
    });
  });

  it('refuses a dialog save where there is no dialog (the headless host), naming the download instead', async () => {
    const { services, session } = await start();
    const run = (await services.handle('runShell', { sessionId: session, command: 'echo x', background: false })) as {
      value: { task: { id: string } };
    };
    const saved = await services.handle('saveTaskLog', { sessionId: session, taskId: run.value.task.id });
    expect(saved).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect((saved as { error: { message: string } }).error.message).toMatch(/download/);
  });
});
