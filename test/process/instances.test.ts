import { copyFileSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../electron/core/services.js';
import { DataFolderBusyError } from '../../electron/store/data-lock.js';
import { tempDir } from '../helpers.js';
import { runHostToExit, spawnHost, TEST_TOKEN, type SpawnedHost } from '../host/spawn-host.js';
import { logText, pidAlive } from '../pool/pool-harness.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const stray: number[] = [];
afterEach(() => {
  for (const pid of stray.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

async function host(dataDir = tempDir(), env?: NodeJS.ProcessEnv): Promise<SpawnedHost> {
  const started = await spawnHost(dataDir, env);
  cleanups.push(async () => void (await started.stop()));
  return started;
}

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts a task that leaves a detached child, and returns both pids once the child is known. */
async function startWithEscapee(
  h: SpawnedHost,
  session: string,
): Promise<{ id: string; leader: number; escapee: number }> {
  const task = await h.call('POST', `/sessions/${session}/background-tasks`, {
    command: 'setsid sleep 600 & echo escaped=$!; exec sleep 600',
  });
  let escapee = 0;
  await eventually(async () => {
    const text = (await h.call('GET', `/sessions/${session}/background-tasks/${task.id}`)).output.text as string;
    escapee = Number(/escaped=(\d+)/.exec(text)?.[1] ?? 0);
    return escapee > 0;
  }, 'the escapee to start');
  stray.push(task.pid, escapee);
  return { id: task.id, leader: task.pid, escapee };
}

describe('one owner per data folder', () => {
  it('refuses a second host on the same folder, naming the folder and the running one, and lets go when the first dies', async () => {
    const dataDir = tempDir();
    const first = await host(dataDir);
    const refused = await runHostToExit(dataDir);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(`Another Drover is already using the data folder ${dataDir}`);
    expect(refused.stderr).toMatch(
      new RegExp(`a headless host, pid ${first.child.pid}, since .* UTC, at http://127\\.0\\.0\\.1:\\d+/`),
    );
    expect(refused.stderr).not.toContain(TEST_TOKEN);
    // The first one never noticed.
    expect((await first.call('GET', '/sessions')).length).toBe(0);
    await first.stop('SIGKILL');
    const again = await host(dataDir);
    expect(await again.call('GET', '/sessions')).toEqual([]);
  }, 60_000);

  it('refuses a second opening inside one process too, and nothing already stored is touched', async () => {
    const dataDir = tempDir();
    const options = { dataDir, version: 't', host: 'headless' as const, workingDir: dataDir, warn: () => {} };
    const first: Services = createServices(options);
    cleanups.push(() => first.shutdown());
    const session = first.sessions.create('kept');
    expect(() => createServices({ ...options, host: 'electron' })).toThrow(DataFolderBusyError);
    expect(first.sessions.get(session.id).title).toBe('kept');
    await first.shutdown();
    const reopened = createServices(options);
    cleanups.push(() => reopened.shutdown());
    expect(reopened.sessions.get(session.id).title).toBe('kept');
  });

  it('keeps its instance id across restarts, and a copied folder gets its own', async () => {
    const dataDir = tempDir();
    const options = { dataDir, version: 't', host: 'headless' as const, workingDir: dataDir, warn: () => {} };
    const first = createServices(options);
    const id = first.instanceId;
    await first.shutdown();
    const second = createServices(options);
    expect(second.instanceId).toBe(id);
    await second.shutdown();
    const copy = tempDir();
    copyFileSync(join(dataDir, 'drover.sqlite'), join(copy, 'drover.sqlite'));
    const copied = createServices({ ...options, dataDir: copy, workingDir: copy });
    cleanups.push(() => copied.shutdown());
    expect(copied.instanceId).not.toBe(id);
    expect(realpathSync(copy)).not.toBe(realpathSync(dataDir));
  });
});

describe('two Drovers on one machine, both at bg_1', () => {
  it("never touch each other's processes: not on stop, not on session delete, not on reap after a crash", async () => {
    const aDir = tempDir();
    let a = await host(aDir);
    const b = await host();
    const aSession = (await a.call('POST', '/sessions', {})).id as string;
    const bSession = (await b.call('POST', '/sessions', {})).id as string;
    const ours = await startWithEscapee(a, aSession);
    const theirs = await startWithEscapee(b, bSession);
    expect([ours.id, theirs.id]).toEqual(['bg_1', 'bg_1']);
    const bothAlive = () => [theirs.leader, theirs.escapee].every(pidAlive);

    await a.call('POST', `/sessions/${aSession}/background-tasks/${ours.id}/stop`);
    await eventually(() => !pidAlive(ours.escapee) && !pidAlive(ours.leader), "A's own task to end");
    expect(bothAlive()).toBe(true);

    const second = await startWithEscapee(a, aSession);
    expect((await a.call('DELETE', `/sessions/${aSession}`)).id).toBe(aSession);
    await eventually(() => !pidAlive(second.escapee), "the deleted session's escapee to end");
    expect(bothAlive()).toBe(true);

    const session = (await a.call('POST', '/sessions', {})).id as string;
    const survivor = await a.call('POST', `/sessions/${session}/background-tasks`, {
      command: "trap '' HUP TERM; echo armed; while :; do sleep 1; done",
    });
    stray.push(survivor.pid);
    await eventually(
      async () =>
        ((await a.call('GET', `/sessions/${session}/background-tasks/${survivor.id}`)).output.text as string).includes(
          'armed',
        ),
      'the trap',
    );
    await a.stop('SIGKILL');
    a = await host(aDir);
    const reap = await a.call('POST', `/sessions/${session}/background-tasks/reap`);
    expect(reap.reaped.map((entry: { task_id: string }) => entry.task_id)).toEqual([survivor.id]);
    await eventually(() => !pidAlive(survivor.pid), 'the leftover to end');
    expect(bothAlive()).toBe(true);
    const bTask = await b.call('GET', `/sessions/${bSession}/background-tasks/${theirs.id}`);
    expect(bTask.task).toMatchObject({ status: 'running', exit_code: null });
  }, 120_000);
});

describe('two Drovers on the process-group fallback, both at bg_1', () => {
  it("sweep only their own marks: stop and session delete in one leave the other's escapees running", async () => {
    const make = () => {
      const dataDir = tempDir();
      const services = createServices({
        dataDir,
        version: 't',
        host: 'headless',
        workingDir: dataDir,
        warn: () => {},
        containment: 'group',
        policy: { stopGraceMs: 1_000 },
      });
      cleanups.push(() => services.shutdown());
      return { services, session: services.sessions.create('s').id, dataDir };
    };
    const a = make();
    const b = make();
    const start = async (side: ReturnType<typeof make>) => {
      const task = await side.services.pool.start({
        sessionId: side.session,
        command: 'setsid sleep 600 & echo escaped=$!; exec sleep 600',
        cwd: side.dataDir,
      });
      let escapee = 0;
      await eventually(() => {
        escapee = Number(/escaped=(\d+)/.exec(logText(task.logPath))?.[1] ?? 0);
        return escapee > 0;
      }, 'the escapee');
      stray.push(task.pid!, escapee);
      return { id: task.id, leader: task.pid!, escapee };
    };
    const ours = await start(a);
    const theirs = await start(b);
    expect([ours.id, theirs.id]).toEqual(['bg_1', 'bg_1']);
    expect(a.services.pool.row(a.session, ours.id).containment).toBe('group');
    await a.services.pool.stop(a.session, ours.id);
    expect(pidAlive(ours.escapee)).toBe(false);
    expect([theirs.leader, theirs.escapee].every(pidAlive)).toBe(true);
    await start(a);
    await a.services.pool.stopSession(a.session);
    expect([theirs.leader, theirs.escapee].every(pidAlive)).toBe(true);
  }, 60_000);
});

describe('the environment a task gets', () => {
  it("is the person's, without Drover's secrets and own variables; passEnvironment lets one through on purpose", async () => {
    const dataDir = tempDir();
    const h = await host(dataDir, {
      ...process.env,
      DROVER_TOKEN: 'envtoken-0123456789abcdef',
      DROVER_SQLITE_BINDING: '/somewhere/better_sqlite3.node',
      ANTHROPIC_API_KEY: 'sk-ant-not-for-tasks',
      OPENAI_API_KEY: 'sk-openai-not-for-tasks',
      ELECTRON_RUN_AS_NODE: '1',
      npm_package_name: 'drover',
      npm_config_prefix: '/drover/checkout',
      INIT_CWD: '/drover/checkout',
      DROVER_TASK_zzzzzzzzzzzz: 'bg_4',
      PERSONS_OWN_SETTING: 'kept',
    });
    const session = (await h.call('POST', '/sessions', {})).id as string;
    const envOf = async () => {
      const task = await h.call('POST', `/sessions/${session}/background-tasks`, { command: 'env | sort' });
      await eventually(
        async () =>
          (await h.call('GET', `/sessions/${session}/background-tasks/${task.id}`)).task.status === 'succeeded',
        'env to finish',
      );
      return { id: task.id as string, text: readFileSync(task.log_path, 'utf8') };
    };
    const first = await envOf();
    expect(first.text).toContain('PERSONS_OWN_SETTING=kept');
    expect(first.text).toContain(`DROVER_TASK_ID=${first.id}`);
    expect(first.text).toMatch(new RegExp(`DROVER_TASK_[0-9a-z]{12}=${first.id}`));
    // A Drover this one runs inside keeps its mark on everything this one starts.
    expect(first.text).toContain('DROVER_TASK_zzzzzzzzzzzz=bg_4');
    for (const secret of [
      'envtoken-0123456789abcdef',
      'sk-ant-not-for-tasks',
      'sk-openai-not-for-tasks',
      'DROVER_SQLITE_BINDING',
      'ELECTRON_RUN_AS_NODE',
      'npm_config_prefix',
      'INIT_CWD',
      TEST_TOKEN,
    ]) {
      expect(first.text, secret).not.toContain(secret);
    }
    await h.call('PUT', '/settings', { tasks: { passEnvironment: ['OPENAI_API_KEY'] } });
    const second = await envOf();
    expect(second.text).toContain('OPENAI_API_KEY=sk-openai-not-for-tasks');
    expect(second.text).not.toContain('sk-ant-not-for-tasks');
    // Nor is the token on the host's command line, where any process could read it.
    if (process.platform === 'linux')
      expect(readFileSync(`/proc/${h.child.pid}/cmdline`, 'utf8')).not.toContain(TEST_TOKEN);
  }, 60_000);
});
