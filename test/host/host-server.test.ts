import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { contract } from '../../shared/contract.js';
import { createApi } from '../../shared/ipc/client.js';
import { createWsClient, type WebSocketLike } from '../../shared/ipc/ws-client.js';
import { createServices, type Services } from '../../electron/core/services.js';
import { startHostServer, type HostServer } from '../../electron/host/server.js';
import { tempDir, until } from '../helpers.js';

const TOKEN = 'test-token-0123456789abcdef';
const running: { server: HostServer; services: Services }[] = [];

async function start(port = 0, dataDir = tempDir()) {
  const staticDir = join(dataDir, 'ui');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Drover</title>');
  const services = createServices({ dataDir, version: '1.2.3', host: 'headless', workingDir: dataDir });
  const server = await startHostServer({ endpoint: services, token: TOKEN, port, staticDir });
  running.push({ server, services });
  return { server, services, base: `http://127.0.0.1:${server.port}`, dataDir };
}

async function stop(entry: { server: HostServer; services: Services }) {
  await entry.server.close();
  await entry.services.shutdown();
  running.splice(running.indexOf(entry), 1);
}

afterEach(async () => {
  for (const entry of [...running]) await stop(entry);
});

const auth = { Authorization: `Bearer ${TOKEN}` };

function openSocket(url: string, headers: Record<string, string> = {}): Promise<{ ws?: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.once('error', () => resolve({ status: -1 }));
  });
}

function nextMessage(ws: WebSocket): Promise<unknown> {
  return new Promise((resolve) => ws.once('message', (data) => resolve(JSON.parse(data.toString()))));
}

describe('REST boundary', () => {
  it('answers 401 without a token or with a wrong one', async () => {
    const { base } = await start();
    expect((await fetch(`${base}/api/sessions`)).status).toBe(401);
    expect((await fetch(`${base}/api/sessions`, { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${base}/api/sessions?token=${TOKEN}`)).status).toBe(401);
    const ok = await fetch(`${base}/api/sessions`, { headers: auth });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual([]);
  });

  it('creates, lists, reads, renames and deletes sessions in snake_case', async () => {
    const { base } = await start();
    const created = await fetch(`${base}/api/sessions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ title: 'Build' }),
    });
    expect(created.status).toBe(201);
    const session = (await created.json()) as Record<string, unknown>;
    expect(session).toMatchObject({ title: 'Build', message_count: 0 });
    expect(session).toHaveProperty('created_at');
    const id = session.id as string;
    expect(await (await fetch(`${base}/api/sessions`, { headers: auth })).json()).toEqual([session]);
    expect(await (await fetch(`${base}/api/sessions/${id}`, { headers: auth })).json()).toEqual(session);
    const posted = await fetch(`${base}/api/sessions/${id}/messages`, {
      method: 'POST',
      headers: auth,
      body: '{"text":"hello"}',
    });
    expect(posted.status).toBe(201);
    expect(await posted.json()).toMatchObject({ session_id: id, role: 'user', text: 'hello' });
    const renamed = await fetch(`${base}/api/sessions/${id}`, {
      method: 'PATCH',
      headers: auth,
      body: '{"title":"Renamed"}',
    });
    // With no model connected, the turn answers with a note saying so: two rows.
    expect(await renamed.json()).toMatchObject({ title: 'Renamed' });
    expect((await fetch(`${base}/api/sessions/${id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    expect((await fetch(`${base}/api/sessions/${id}`, { headers: auth })).status).toBe(404);
  });

  it('answers bad input with 4xx naming the problem, and keeps serving', async () => {
    const { base } = await start();
    const cases: [string, RequestInit, number, RegExp][] = [
      ['/api/sessions', { method: 'POST', body: '{not json' }, 400, /not valid JSON/],
      ['/api/sessions', { method: 'POST', body: '[1,2]' }, 400, /JSON object/],
      ['/api/sessions', { method: 'POST', body: '{"title": 42}' }, 400, /title/],
      ['/api/sessions', { method: 'POST', body: '{"title": "x", "extra": 1}' }, 400, /extra|Unrecognized/i],
      ['/api/sessions/nope', {}, 404, /No session with id "nope"/],
      ['/api/sessions/bad%20id', {}, 400, /id/],
      ['/api/sessions/%E0%A4%A', {}, 400, /id/],
      ['/api/sessions/nope/messages', { method: 'POST', body: '{"text": ""}' }, 400, /text/],
      ['/api/nothing-here', {}, 404, /No API route/],
      ['/api/sessions', { method: 'PUT', body: '{}' }, 405, /not allowed/],
    ];
    for (const [path, init, status, pattern] of cases) {
      const res = await fetch(`${base}${path}`, { ...init, headers: auth });
      expect(res.status, path).toBe(status);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.message, path).toMatch(pattern);
      // Errors name the field, never the internal request a route reached.
      expect(body.error.message, path).not.toMatch(/createSession|getSession|sendMessage|Invalid input for/);
      if (status === 405) expect(body.error.code).toBe('method_not_allowed');
    }
    const huge = await fetch(`${base}/api/sessions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ title: 'x'.repeat(2_000_000) }),
    });
    expect(huge.status).toBe(400);
    expect((await fetch(`${base}/api/sessions`, { headers: auth })).status).toBe(200);
  });

  it('names snake_case fields in REST errors', async () => {
    const { base, services } = await start();
    const session = services.sessions.create('x');
    const res = await fetch(`${base}/api/sessions/${session.id}/messages`, {
      method: 'POST',
      headers: auth,
      body: '{"text": 5}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { path: string } }).error.path).toBe('text');
  });

  it('serves the UI but nothing outside its folder', async () => {
    const { base } = await start();
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect((await fetch(`${base}/..%2f..%2fetc%2fpasswd`)).status).toBe(404);
    expect((await fetch(`${base}/%2e%2e/drover.sqlite`)).status).toBe(404);
  });

  it('answers a hashed asset from memory after its first read, and the page fresh every time', async () => {
    const { base, dataDir } = await start();
    const staticDir = join(dataDir, 'ui');
    mkdirSync(join(staticDir, 'assets'));
    writeFileSync(join(staticDir, 'assets', 'app-1a2b.js'), 'export const first = 1;');
    const asset = await fetch(`${base}/assets/app-1a2b.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await asset.text()).toBe('export const first = 1;');
    // A build never rewrites a hashed name; if a file did change, the host keeps what the name meant.
    writeFileSync(join(staticDir, 'assets', 'app-1a2b.js'), 'export const second = 2;');
    expect(await (await fetch(`${base}/assets/app-1a2b.js`)).text()).toBe('export const first = 1;');
    const head = await fetch(`${base}/assets/app-1a2b.js`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, '23', '']);
    // The page is not an asset, whichever way it is named.
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Rebuilt</title>');
    for (const path of ['/', '/assets/%2e%2e/index.html']) {
      const page = await fetch(`${base}${path}`);
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(await page.text()).toContain('Rebuilt');
    }
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Again</title>');
    expect(await (await fetch(`${base}/assets/%2e%2e/index.html`)).text()).toContain('Again');
    expect((await fetch(`${base}/assets/missing-0000.js`)).status).toBe(404);
    expect((await fetch(`${base}/assets/`)).status).toBe(404);
  });
});

describe('WebSocket boundary', () => {
  it('refuses a foreign Origin, a missing or wrong token, and another path', async () => {
    const { server } = await start();
    const url = `ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`;
    expect((await openSocket(url, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await openSocket(url, { Origin: `http://127.0.0.1:${server.port + 1}` })).status).toBe(403);
    expect((await openSocket(`ws://127.0.0.1:${server.port}/ws`)).status).toBe(401);
    expect((await openSocket(`ws://127.0.0.1:${server.port}/ws?token=nope`)).status).toBe(401);
    expect((await openSocket(`ws://127.0.0.1:${server.port}/other?token=${TOKEN}`)).status).toBe(404);
    const good = await openSocket(url, { Origin: `http://127.0.0.1:${server.port}` });
    expect(good.ws).toBeDefined();
    good.ws!.close();
  });

  it('answers invalid frames and payloads with typed errors and keeps the connection', async () => {
    const { server } = await start();
    const { ws } = await openSocket(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`);
    const socket = ws!;
    socket.send('not json');
    expect(await nextMessage(socket)).toMatchObject({ t: 'protocol_error', error: { code: 'invalid_input' } });
    socket.send(JSON.stringify({ t: 'call', id: 1, name: 'createSession', input: { title: 7 } }));
    expect(await nextMessage(socket)).toMatchObject({
      t: 'result',
      id: 1,
      ok: false,
      error: { code: 'invalid_input', path: 'title' },
    });
    socket.send(JSON.stringify({ t: 'call', id: 2, name: 'dropTables', input: {} }));
    expect(await nextMessage(socket)).toMatchObject({ id: 2, ok: false, error: { code: 'unknown_request' } });
    socket.send(JSON.stringify({ t: 'call', id: 3, input: {} }));
    expect(await nextMessage(socket)).toMatchObject({
      id: 3,
      ok: false,
      error: { code: 'invalid_input', path: 'name' },
    });
    socket.send(JSON.stringify({ t: 'call', id: 4, name: 'listSessions', input: {} }));
    expect(await nextMessage(socket)).toEqual({ t: 'result', id: 4, ok: true, value: [] });
    socket.close();
  });

  it('pushes events to every client through the typed api', async () => {
    const { server } = await start();
    const url = `ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`;
    const make = () => createWsClient({ url, createSocket: (u) => new WebSocket(u) as unknown as WebSocketLike });
    const a = make();
    const b = make();
    try {
      const apiA = createApi(contract, a);
      const apiB = createApi(contract, b);
      const seen: string[] = [];
      apiB.on('sessionUpserted', ({ session }) => seen.push(session.title));
      await until(() => a.state === 'open' && b.state === 'open', 'both sockets to open');
      await apiA.createSession({ title: 'From A' });
      await until(() => seen.length === 1, 'the event to reach B');
      expect(seen).toEqual(['From A']);
      await expect(apiA.getSession({ id: 'missing' })).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      a.close();
      b.close();
    }
  });

  it('reconnects by itself after the host restarts, and calls made meanwhile go through', async () => {
    const dataDir = tempDir();
    const first = await start(0, dataDir);
    const port = first.server.port;
    const client = createWsClient({
      url: `ws://127.0.0.1:${port}/ws?token=${TOKEN}`,
      createSocket: (u) => new WebSocket(u) as unknown as WebSocketLike,
    });
    const states: string[] = [];
    client.onState?.((state) => states.push(state));
    const api = createApi(contract, client);
    try {
      await until(() => client.state === 'open', 'first connection');
      await api.createSession({ title: 'Before' });
      await stop(running.find((entry) => entry.server === first.server)!);
      await until(() => client.state !== 'open', 'the drop to be noticed');
      const pending = api.listSessions();
      await start(port, dataDir);
      const sessions = await pending;
      expect(sessions.map((s) => s.title)).toEqual(['Before']);
      expect(states).toContain('closed');
      expect(states.at(-1)).toBe('open');
    } finally {
      client.close();
    }
  });
});
