import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createServices, type Services } from '../../electron/core/services.js';
import type { PoolPolicy } from '../../electron/pool/policy.js';
import { startHostServer, type HostServer, type HostServerOptions } from '../../electron/host/server.js';
import { tempDir } from '../helpers.js';

/** The REST tests' host: the real services and server in this process, one session made. */
export const REST_TOKEN = 'test-token-rest-0123456789abcdef';
export const restAuth = { Authorization: `Bearer ${REST_TOKEN}` };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export async function startRestHost(
  options: { policy?: Partial<PoolPolicy>; server?: Partial<HostServerOptions> } = {},
) {
  const dataDir = tempDir();
  const services: Services = createServices({
    dataDir,
    version: '1',
    host: 'headless',
    workingDir: dataDir,
    ...(options.policy ? { policy: options.policy } : {}),
  });
  const server: HostServer = await startHostServer({
    endpoint: services,
    token: REST_TOKEN,
    port: 0,
    staticDir: join(dataDir, 'ui'),
    ...options.server,
  });
  cleanups.push(async () => {
    await server.close();
    await services.shutdown();
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const base = `${origin}/api`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: restAuth,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const session = (await call('POST', '/sessions', { title: 'rest' })).body.id as string;
  return { services, server, origin, base, call, session, dataDir };
}
