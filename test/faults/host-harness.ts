import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { expect } from 'vitest';
import { spawnHost, TEST_TOKEN, type SpawnedHost } from '../host/spawn-host.js';
import { tempDir } from '../helpers.js';
import { processesMarked } from './fault-kit.js';

/** A real host process with one session and one finished task whose log is about 1 MB. */
export interface Fixture {
  host: SpawnedHost;
  port: number;
  sessionId: string;
  taskId: string;
  taskPath: string;
  mark: string;
}

export async function hostWithBigTask(settings?: object): Promise<Fixture> {
  // Every process the host starts carries this mark, so the test can prove none is left.
  const mark = `HOSTFAULT_${randomBytes(6).toString('hex')}`;
  const dataDir = tempDir('drover-host-fault-');
  if (settings) writeFileSync(join(dataDir, 'settings.json'), JSON.stringify(settings));
  const host = await spawnHost(dataDir, { ...process.env, [mark]: '1' });
  const port = Number(new URL(host.base).port);
  const session = await host.call('POST', '/sessions', { title: 'faults' });
  const task = await host.call('POST', `/sessions/${session.id}/background-tasks`, { command: 'seq 1 160000' });
  const taskPath = `/sessions/${session.id}/background-tasks/${task.id}`;
  await waitFor(async () => {
    const { task: row } = await host.call('GET', taskPath);
    return row.status === 'succeeded';
  }, 'the 1 MB task to finish');
  return { host, port, sessionId: session.id, taskId: task.id, taskPath, mark };
}

/** The host still answers, still holds what was stored, and leaves nothing running once stopped. */
export async function expectHealthyThenStop(f: Fixture): Promise<void> {
  expect(f.host.child.exitCode).toBeNull();
  const sessions = await f.host.call('GET', '/sessions');
  expect(sessions.map((s: { id: string }) => s.id)).toContain(f.sessionId);
  const { task, output } = await f.host.call('GET', f.taskPath);
  expect(task).toMatchObject({ id: f.taskId, status: 'succeeded', exit_code: 0 });
  expect(output.total_bytes).toBeGreaterThan(1_000_000);
  expect(await f.host.stop()).toBe(0);
  await waitFor(() => processesMarked(f.mark).length === 0, 'every process of the test to end');
}

export async function waitFor(check: () => boolean | Promise<boolean>, what: string, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function rssBytes(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** A raw request, so the Host header and the body are exactly what the test says. */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        setHost: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export const auth = (port: number) => ({ Host: `127.0.0.1:${port}`, Authorization: `Bearer ${TEST_TOKEN}` });
