// README's REST section, checked against a running host: every curl example is sent as written
// and answers as README says, and the fields README lists for sessions, messages, task rows and
// settings are exactly the fields the host returns (nothing returned goes undocumented).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../electron/core/services.js';
import { startHostServer, type HostServer } from '../../electron/host/server.js';
import { ERROR_STATUS } from '../../electron/ipc/rest.js';
import { ErrorCodeSchema } from '../../shared/ipc/errors.js';

const TOKEN = 'readme-token-0123456789abcdef';
const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
const rest = readme.slice(readme.indexOf('## REST API'), readme.indexOf('\n## ', readme.indexOf('## REST API') + 5));

let services: Services;
let server: HostServer;
let base: string;
// One host for the whole file (the helpers' temp folders go after each test).
const dataDir = mkdtempSync(join(tmpdir(), 'drover-readme-'));

beforeAll(async () => {
  services = createServices({ dataDir, version: '1', host: 'headless', workingDir: dataDir });
  server = await startHostServer({ endpoint: services, token: TOKEN, port: 0, staticDir: join(dataDir, 'ui') });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server.close();
  await services.shutdown();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** The names in a documented `{a, b: {c, d}, e}` list, top level only. */
function documentedFields(shape: string): string[] {
  let flat = shape.trim().replace(/^\{|\}$/g, '');
  // Drop nested braces (a field's own fields) until none are left.
  for (let before = ''; before !== flat;) {
    before = flat;
    flat = flat.replace(/\{[^{}]*\}/g, '');
  }
  return flat
    .split(',')
    .map((part) =>
      part
        .replace(/\\?\|\s*null|\?/g, '')
        .split(':')[0]!
        .trim(),
    )
    .filter(Boolean)
    .sort();
}

function shapeAfter(lead: RegExp): string {
  const match = lead.exec(rest);
  expect(match, `README states ${lead}`).not.toBeNull();
  return match![1]!;
}

describe("README's REST API section, against a running host", () => {
  it('runs every curl example as written and gets the answer README shows', async () => {
    const blocks = [...rest.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
    const curls = blocks.flatMap((block) => block.split('\n').filter((line) => line.startsWith('curl ')));
    expect(curls.length).toBeGreaterThanOrEqual(3);
    let sessionId = '';
    const answers: { status: number; body: any }[] = [];
    for (const line of curls) {
      const url = /http:\/\/127\.0\.0\.1:\$PORT(\/api\/\S+)/.exec(line)![1]!;
      const data = /-d '([^']*)'/.exec(line)?.[1];
      const method = /-X (\w+)/.exec(line)?.[1] ?? (data === undefined ? 'GET' : 'POST');
      const path = url.slice('/api'.length).replace(/s_7f3a9c/g, sessionId);
      const answer = await call(method, path, data === undefined ? undefined : JSON.parse(data));
      answers.push(answer);
      if (!sessionId && answer.status === 201 && typeof answer.body.id === 'string') sessionId = answer.body.id;
    }
    // The answers README prints after the examples, in order: "answers (201)" and "answers 400".
    const shown = [...rest.matchAll(/answers \(?(\d{3})\)?:?\s*\n\s*```json\n([\s\S]*?)```/g)].map((m) => ({
      status: Number(m[1]),
      body: JSON.parse(m[2]!),
    }));
    expect(shown.length).toBeGreaterThanOrEqual(2);
    for (const expected of shown) {
      const actual = answers.find((answer) => answer.status === expected.status);
      expect(actual, `an example answers ${expected.status}`).toBeDefined();
      expect(Object.keys(actual!.body).sort()).toEqual(Object.keys(expected.body).sort());
      if (expected.body.error) {
        expect(actual!.body.error.code).toBe(expected.body.error.code);
        expect(actual!.body.error.message).toBe(expected.body.error.message);
      }
    }
  });

  it('lists exactly the fields a session, a message and a task row carry', async () => {
    const session = (await call('POST', '/sessions', { title: 'fields' })).body;
    expect(Object.keys(session).sort()).toEqual(documentedFields(shapeAfter(/A session is\s+`(\{[^`]*\})`/)));

    const shell = await call('POST', `/sessions/${session.id}/shell`, { command: 'echo fields' });
    expect(shell.status, JSON.stringify(shell.body)).toBeLessThan(300);
    // The shell line answers a task row plus the fields its README row names.
    const shellRow = /\| `POST \/api\/sessions\/\{id\}\/shell` \|[^|]*\| the task's row, plus ([^|]*)\|/.exec(
      rest,
    )![1]!;
    const extra = [...new Set([...shellRow.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!))];
    const messages = (await call('GET', `/sessions/${session.id}/messages`)).body as any[];
    const documented = documentedFields(shapeAfter(/a message is\s+`(\{[^`]*\})`/));
    for (const message of messages) expect(Object.keys(message).sort()).toEqual(documented);

    const tasks = (await call('GET', `/sessions/${session.id}/background-tasks`)).body;
    expect(tasks.tasks.length).toBeGreaterThan(0);
    const row = documentedFields(shapeAfter(/A task\s+row is\s+`(\{[^`]*\})`/));
    for (const task of tasks.tasks) expect(Object.keys(task).sort().join(' ')).toBe(row.join(' '));
    expect(Object.keys(shell.body).sort()).toEqual([...row, ...extra].sort());

    // Rerun answers as the shell line does (README says so), with a new task id.
    const rerun = await call('POST', `/sessions/${session.id}/background-tasks/${shell.body.id}/rerun`);
    expect(rerun.status, JSON.stringify(rerun.body)).toBe(201);
    expect(Object.keys(rerun.body).sort()).toEqual([...row, ...extra].sort());
    expect(rerun.body.id).not.toBe(shell.body.id);
    expect(rerun.body.command).toBe('echo fields');
  });

  it('lists exactly the top-level fields of GET /api/settings', async () => {
    const settings = (await call('GET', '/settings')).body;
    const documented = documentedFields(shapeAfter(/\| `GET \/api\/settings` \| \| `(\{.*?\})`/));
    expect(Object.keys(settings).sort()).toEqual(documented);
  });

  it('names every error code with the HTTP status the host answers it with', () => {
    const start = rest.indexOf('Error codes:');
    expect(start).toBeGreaterThan(0);
    const paragraph = rest.slice(start, rest.indexOf('\n\n', start));
    const stated = new Map<string, number>();
    for (const match of paragraph.matchAll(/`([a-z_]+)`(?: and `([a-z_]+)`)? \((\d{3})/g)) {
      stated.set(match[1]!, Number(match[3]));
      if (match[2]) stated.set(match[2], Number(match[3]));
    }
    for (const code of ErrorCodeSchema.options) {
      if (code === 'disconnected') continue; // a client-side state: never sent by the host
      expect(stated.get(code), `README's error list names ${code}`).toBe(ERROR_STATUS[code]);
    }
  });
});
