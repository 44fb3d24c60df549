// "Save log" in a browser: the page trades its token for a single-use ticket, then the browser
// follows /download/TICKET and streams the log to disk. These run against a real host server.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Services } from '../../electron/core/services.js';
import { DownloadTickets } from '../../electron/host/download-tickets.js';
import type { HostServerOptions } from '../../electron/host/server.js';
import { REST_TOKEN as TOKEN, restAuth, startRestHost } from './rest-harness.js';

const auth = restAuth;

const start = (extra: Partial<HostServerOptions> = {}) => startRestHost({ server: extra });

/** A finished background task whose log holds escape sequences and bytes that are not UTF-8. */
async function taskWithRawLog(services: Services, sessionId: string): Promise<{ id: string; logPath: string }> {
  const started = await services.handle('runShell', {
    sessionId,
    command: "printf 'plain\\n\\033[31mred\\033[0m \\377\\376 half \\342\\202 end\\r\\n'; seq 1 5000",
    background: true,
  });
  expect(started.ok, JSON.stringify(started)).toBe(true);
  const id = (started as { value: { task: { id: string } } }).value.task.id;
  await services.pool.waitFor(id, 20_000);
  const found = await services.handle('getTask', { sessionId, taskId: id, tail: 1 });
  return { id, logPath: (found as { value: { task: { logPath: string } } }).value.task.logPath };
}

async function ticketFor(origin: string, session: string, task: string): Promise<Response> {
  return fetch(`${origin}/api/sessions/${session}/background-tasks/${task}/log-ticket`, {
    method: 'POST',
    headers: auth,
  });
}

/** node:http, because fetch will not send a Host header of our choosing. */
function getWithHost(origin: string, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { headers: { Host: host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('log download tickets', () => {
  it('downloads the log once, byte for byte, with no token in the URL', async () => {
    const { services, origin, session } = await start();
    const task = await taskWithRawLog(services, session);
    const issued = await ticketFor(origin, session, task.id);
    expect(issued.status).toBe(200);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    const { url } = (await issued.json()) as { url: string };
    expect(url).toMatch(/^\/download\/[A-Za-z0-9_-]{43}$/);
    expect(url).not.toContain(TOKEN);

    // No Authorization header: the ticket is the only credential.
    const res = await fetch(`${origin}${url}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${task.id}.log"`);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = Buffer.from(await res.arrayBuffer());
    const onDisk = readFileSync(task.logPath);
    expect(onDisk.includes(Buffer.from([0xff, 0xfe]))).toBe(true);
    expect(onDisk.includes(Buffer.from('\u001b[31mred'))).toBe(true);
    expect(body.equals(onDisk)).toBe(true);

    const again = await fetch(`${origin}${url}`);
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('refuses a ticket once it has expired', async () => {
    let now = 1_000_000;
    const { services, origin, session } = await start({ downloadTickets: { ttlMs: 60_000, now: () => now } });
    const task = await taskWithRawLog(services, session);
    const { url } = (await (await ticketFor(origin, session, task.id)).json()) as { url: string };
    now += 60_000;
    const res = await fetch(`${origin}${url}`);
    expect(res.status).toBe(404);
    expect((await res.json()) as unknown).toMatchObject({ error: { code: 'not_found' } });
    // Just inside the minute, a fresh one still works.
    const fresh = (await (await ticketFor(origin, session, task.id)).json()) as { url: string };
    now += 59_999;
    expect((await fetch(`${origin}${fresh.url}`)).status).toBe(200);
  });

  it('answers only to its own Host names, and only for its own tickets', async () => {
    const one = await start();
    const other = await start();
    const task = await taskWithRawLog(one.services, one.session);
    const { url } = (await (await ticketFor(one.origin, one.session, task.id)).json()) as { url: string };
    // DNS rebinding: another name resolving to 127.0.0.1 is refused before the ticket is looked at…
    const port = new URL(one.origin).port;
    const rebound = await getWithHost(one.origin, url, `evil.example:${port}`);
    expect(rebound.status).toBe(421);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: { code: 'misdirected' } });
    // …another host instance never issued it…
    expect((await fetch(`${other.origin}${url}`)).status).toBe(404);
    // …and neither refusal spent it: its own host, under its own name, still serves it.
    const ok = await getWithHost(one.origin, url, `localhost:${port}`);
    expect(ok.status).toBe(200);
  });

  it('issues tickets only with the token, only for a task that exists, and only by POST', async () => {
    const { services, origin, session } = await start();
    const task = await taskWithRawLog(services, session);
    const path = `${origin}/api/sessions/${session}/background-tasks/${task.id}/log-ticket`;
    expect((await fetch(path, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${path}?token=${TOKEN}`, { method: 'POST' })).status).toBe(401);
    const missing = await ticketFor(origin, session, 'bg_999');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBeTruthy();
    const get = await fetch(path, { headers: auth });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    // A download path that is no ticket at all, or another method, is refused the same JSON way.
    const junk = await fetch(`${origin}/download/not-a-ticket`);
    expect(junk.status).toBe(404);
    expect((await junk.json()) as unknown).toMatchObject({ error: { code: 'not_found' } });
    const { url } = (await (await ticketFor(origin, session, task.id)).json()) as { url: string };
    const post = await fetch(`${origin}${url}`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    // The refused method did not spend it.
    expect((await fetch(`${origin}${url}`)).status).toBe(200);
  });
});

describe('DownloadTickets', () => {
  it('keeps at most its cap, dropping the oldest first', () => {
    const tickets = new DownloadTickets({ max: 3 });
    const issued = Array.from({ length: 5 }, (_, i) => tickets.issue({ sessionId: 's', taskId: `bg_${i}` }).ticket);
    expect(tickets.size).toBe(3);
    expect(tickets.take(issued[0]!)).toBeUndefined();
    expect(tickets.take(issued[1]!)).toBeUndefined();
    expect(tickets.take(issued[4]!)).toEqual({ sessionId: 's', taskId: 'bg_4' });
    expect(tickets.take(issued[4]!)).toBeUndefined();
  });

  it('drops expired tickets when it issues new ones, and never hands one out twice', () => {
    let now = 0;
    const tickets = new DownloadTickets({ ttlMs: 10, now: () => now });
    const first = tickets.issue({ sessionId: 's', taskId: 'bg_1' });
    expect(first.url).toBe(`/download/${first.ticket}`);
    expect(Buffer.from(first.ticket, 'base64url')).toHaveLength(32);
    now = 10;
    tickets.issue({ sessionId: 's', taskId: 'bg_2' });
    expect(tickets.size).toBe(1);
    expect(tickets.take(first.ticket)).toBeUndefined();
  });
});
