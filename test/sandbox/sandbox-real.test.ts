/**
 * The sandbox for real (issue 19): bubblewrap and socat here, commands started by the pool as the
 * model's are, through @anthropic-ai/sandbox-runtime in a worker per session.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../../shared/schemas/permission.js';
import { until } from '../helpers.js';
import { greeter, SECRET, sandboxWorld } from './sandbox-harness.js';

describe('a sandboxed command', () => {
  it('cannot read a planted ~/.ssh/id_rsa, which an unsandboxed one can', async () => {
    const world = await sandboxWorld();
    expect(world.services.router).toBeDefined();
    const inside = await world.run('cat ~/.ssh/id_rsa; echo "exit=$?"');
    expect(inside.row.sandboxed).toBe(true);
    expect(inside.output).not.toContain(SECRET);
    expect(inside.output).toMatch(/exit=[1-9]/);
    const outside = await world.run('cat ~/.ssh/id_rsa', { sandboxed: false });
    expect(outside.row.sandboxed).toBe(false);
    expect(outside.output).toContain(SECRET);
  });

  it("cannot read Drover's data folder: transcripts, settings, other tasks' logs", async () => {
    const world = await sandboxWorld();
    const first = await world.run('echo visible-only-to-drover', { sandboxed: false });
    expect(existsSync(first.row.logPath)).toBe(true);
    const probe = await world.run(
      `cat '${first.row.logPath}' '${join(world.dataDir, 'settings.json')}' '${join(world.dataDir, 'drover.sqlite')}'; ls '${world.dataDir}/sessions'; echo done`,
    );
    expect(probe.output).not.toContain('visible-only-to-drover');
    expect(probe.output).toContain('done');
    expect(probe.output).not.toMatch(/SQLite format/);
  });

  it('writes inside the working folder and the temp folder, and not outside; the row names the refused path', async () => {
    const world = await sandboxWorld();
    const target = join(world.outside, 'escaped.txt');
    const result = await world.run(
      `echo inside > made-here.txt && echo tmp > "\${TMPDIR:-/tmp}/drover-sandbox-tmp-$$" && echo out > '${target}'; echo "exit=$?"`,
    );
    expect(readFileSync(join(world.work, 'made-here.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(target)).toBe(false);
    expect(result.output).toMatch(/Read-only file system|Permission denied/);
    await until(
      () => world.services.pool.row(world.sessionId, result.row.id).sandboxRefusals.some((r) => r.target === target),
      'the refused path on the row',
    );
    const refusal = world.services.pool
      .row(world.sessionId, result.row.id)
      .sandboxRefusals.find((r) => r.target === target)!;
    expect(refusal.kind).toBe('path');
  });

  it("cannot plant code the person's own commands would run later: git hooks and config, shell start files", async () => {
    const world = await sandboxWorld();
    await world.run('git init -q . && echo "# mine" > .bashrc', { sandboxed: false });
    const before = readFileSync(join(world.work, '.git', 'config'), 'utf8');
    const attempt = await world.run(
      'echo "echo pwned" > .git/hooks/pre-commit; echo "hook=$?"; git config core.hooksPath /tmp; echo "config=$?"; ' +
        'echo "echo pwned" >> .bashrc; echo "rc=$?"; echo fine > notes.txt; echo "notes=$?"',
    );
    expect(attempt.output).toMatch(/hook=[1-9]/);
    expect(attempt.output).toMatch(/config=[1-9]/);
    expect(attempt.output).toMatch(/rc=[1-9]/);
    expect(attempt.output).toContain('notes=0');
    expect(existsSync(join(world.work, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(world.work, '.git', 'config'), 'utf8')).toBe(before);
    expect(readFileSync(join(world.work, '.bashrc'), 'utf8')).toBe('# mine\n');
  });

  it('cannot signal Drover, nor another task', async () => {
    const world = await sandboxWorld();
    const other = await world.start('sleep 30', { sandboxed: false });
    const attempt = await world.run(
      `kill -TERM ${process.pid}; echo "drover=$?"; kill -TERM ${other.pid}; echo "other=$?"; kill -TERM -1; echo "all=$?"`,
    );
    expect(attempt.output).toMatch(/drover=1/);
    expect(attempt.output).toMatch(/other=1/);
    // Drover is still here (this test runs in it), and so is the other task.
    expect(world.services.pool.row(world.sessionId, other.id).status).toBe('running');
    await world.call('stopTask', { sessionId: world.sessionId, taskId: other.id });
  });
});

describe("a sandboxed command's network", () => {
  it('reaches an unapproved local port only when the person allows it: refused, the row names it; allowed for the session, it passes', async () => {
    const world = await sandboxWorld();
    const { port } = await greeter();
    const asked: PermissionRequest[] = [];
    const stop = world.services.bus.subscribe((name, payload) => {
      if (name === 'permissionRequested') asked.push((payload as { request: PermissionRequest }).request);
    });
    try {
      const refused = await world.start(`curl -sS -m 20 http://127.0.0.1:${port}/; echo "exit=$?"`);
      await until(() => asked.length === 1, 'the question about the host', 15_000);
      expect(asked[0]!.network).toEqual({ host: '127.0.0.1', port });
      expect(asked[0]!.sandbox).toBe('inside');
      await world.call('answerPermission', { sessionId: world.sessionId, requestId: asked[0]!.id, answer: 'reject' });
      await world.services.pool.waitFor(refused.id, 30_000);
      const row = world.services.pool.row(world.sessionId, refused.id);
      const output = (await world.services.pool.output(world.sessionId, refused.id)).text;
      expect(output).not.toContain('HELLO');
      await until(
        () =>
          world.services.pool
            .row(world.sessionId, refused.id)
            .sandboxRefusals.some((r) => r.kind === 'host' && r.target === `127.0.0.1:${port}`),
        'the refused host on the row',
      );
      expect(row.sandboxed).toBe(true);

      // The person allows the host for the session: the next connection goes through without asking.
      const allowed = await world.start(`curl -sS -m 20 http://127.0.0.1:${port}/; echo "exit=$?"`);
      await until(() => asked.length === 2, 'the second question', 15_000);
      await world.call('answerPermission', {
        sessionId: world.sessionId,
        requestId: asked[1]!.id,
        answer: 'allow_host',
      });
      await world.services.pool.waitFor(allowed.id, 30_000);
      expect((await world.services.pool.output(world.sessionId, allowed.id)).text).toContain('HELLO');
      const again = await world.run(`curl -sS -m 20 http://127.0.0.1:${port}/`);
      expect(again.output).toContain('HELLO');
      expect(asked).toHaveLength(2);
      const view = await world.call<{ hosts: string[] }>('getSandbox', { sessionId: world.sessionId });
      expect(view.hosts).toEqual([`127.0.0.1:${port}`]);

      // Another session's sandbox has its own proxy: the approval does not reach it.
      const other = await world.call<{ id: string }>('createSession', { title: 'other' });
      const elsewhere = await world.services.pool.start({
        sessionId: other.id,
        command: `curl -sS -m 20 http://127.0.0.1:${port}/; echo "exit=$?"`,
        cwd: world.work,
        tty: false,
        sandboxed: true,
      });
      await until(() => asked.length === 3, 'the other session asking', 15_000);
      expect(asked[2]!.sessionId).toBe(other.id);
      await world.call('answerPermission', { sessionId: other.id, requestId: asked[2]!.id, answer: 'reject' });
      await world.services.pool.waitFor(elsewhere.id, 30_000);
      expect((await world.services.pool.output(other.id, elsewhere.id)).text).not.toContain('HELLO');
    } finally {
      stop();
    }
  });

  it("a host in the settings' list passes without asking", async () => {
    const { port } = await greeter();
    const world = await sandboxWorld({ allowedHosts: [`127.0.0.1:${port}`] });
    const passed = await world.run(`curl -sS -m 20 http://127.0.0.1:${port}/`);
    expect(passed.output).toContain('HELLO');
  });
});
