import { join } from 'node:path';
import { readFileSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createServices } from '../../electron/core/services.js';
import { startHostServer } from '../../electron/host/server.js';
import { startOpenAiCompatibleServer } from '../../e2e/fake-model/index.js';
import { tempDir, until } from '../helpers.js';

const TOKEN = 'test-token-0123456789abcdef';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the agent over REST', () => {
  it('takes settings, starts a turn from a message, and returns the transcript', async () => {
    const model = await startOpenAiCompatibleServer();
    const dataDir = tempDir();
    const services = createServices({
      dataDir,
      version: '1',
      host: 'headless',
      workingDir: dataDir,
      env: {},
      warn: () => {},
    });
    const server = await startHostServer({ endpoint: services, token: TOKEN, port: 0, staticDir: join(dataDir, 'ui') });
    cleanups.push(async () => {
      await server.close();
      await services.shutdown();
      await model.close();
    });
    const base = `http://127.0.0.1:${server.port}/api`;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${TOKEN}` },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };

    const bad = await call('PUT', '/settings', { provider: { kind: 'openai-compatible', model: 'm' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/base_url|baseUrl/);

    const saved = await call('PUT', '/settings', {
      provider: { kind: 'openai-compatible', baseUrl: model.baseUrl, model: 'NAME', apiKey: 'sk-rest-key' },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.provider).toMatchObject({
      kind: 'openai-compatible',
      model: 'NAME',
      has_api_key: true,
      key_source: 'settings',
    });
    expect(JSON.stringify(saved.body)).not.toContain('sk-rest-key');
    expect(readFileSync(join(dataDir, 'settings.json'), 'utf8')).not.toContain('sk-rest-key');
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o077).toBe(0);

    const session = (await call('POST', '/sessions', {})).body.id as string;
    model.enqueue({ text: 'Hello from the model.' });
    const posted = await call('POST', `/sessions/${session}/messages`, { text: 'Hi' });
    expect(posted.status).toBe(201);
    await until(() => model.requests.length === 1, 'the model call');
    let messages: any[] = [];
    for (let i = 0; i < 100; i++) {
      messages = (await call('GET', `/sessions/${session}/messages`)).body;
      if (messages.at(-1)?.status === 'done' && messages.at(-1)?.role === 'assistant') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello from the model.'],
    ]);
    expect((await call('GET', `/sessions/${session}/agent`)).body).toEqual({
      busy: false,
      connected: true,
      error: null,
    });
    expect((await call('POST', `/sessions/${session}/cancel`)).body).toEqual({ cancelled: false });

    // A command the model wants to run waits for an answer that a script can give over REST.
    model.enqueue({ toolCalls: [{ name: 'run_command', args: { command: 'git status --short' } }] }, { text: 'ok' });
    await call('POST', `/sessions/${session}/messages`, { text: 'status?' });
    let pending: any[] = [];
    for (let i = 0; i < 100 && pending.length === 0; i++) {
      pending = (await call('GET', `/sessions/${session}/permissions`)).body.pending;
      if (pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pending[0]).toMatchObject({ command: 'git status --short', program_grant: 'git status', background: false });
    const bogus = await call('POST', `/sessions/${session}/permissions/${pending[0].id}`, { answer: 'maybe' });
    expect(bogus.status).toBe(400);
    const answered = await call('POST', `/sessions/${session}/permissions/${pending[0].id}`, {
      answer: 'allow_program',
    });
    expect(answered.body).toMatchObject({ answered: true, grants: [{ kind: 'program', value: 'git status' }] });
    expect((await call('POST', `/sessions/${session}/permissions/${pending[0].id}`, { answer: 'allow' })).status).toBe(
      404,
    );
  });
});
