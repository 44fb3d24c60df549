import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitSafety } from '../../electron/pool/command-runner.js';
import { makePool, type Harness } from './pool-harness.js';
import { tempDir } from '../helpers.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.pool.drain();
    h.containers.dispose();
    h.db.close();
  }
});

describe('git in tasks: a bare repository planted in a project is never picked up', () => {
  it('adds safe.bareRepository=explicit after any settings the person gives through GIT_CONFIG_COUNT', () => {
    expect(gitSafety({})).toEqual({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'safe.bareRepository',
      GIT_CONFIG_VALUE_0: 'explicit',
    });
    expect(gitSafety({ GIT_CONFIG_COUNT: '2' })).toMatchObject({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_2: 'safe.bareRepository',
    });
    expect(gitSafety({ GIT_CONFIG_COUNT: 'junk' })).toMatchObject({ GIT_CONFIG_COUNT: '1' });
  });

  it('a task running `git status` inside a planted bare repository does not run its fsmonitor', async () => {
    const project = tempDir();
    const evil = join(project, 'evil');
    execFileSync('git', ['init', '-q', '--bare', evil]);
    const marker = join(project, 'PWNED');
    writeFileSync(
      join(evil, 'config'),
      `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch ${marker}; false"\n`,
    );
    mkdirSync(join(project, 'src'));
    const h = makePool();
    open.push(h);
    const started = await h.pool.start({ sessionId: h.sessionId, command: 'git status', cwd: evil });
    const done = await h.pool.waitFor(started.id, 15_000);
    expect(done?.status).toBe('failed');
    expect((await h.pool.output(h.sessionId, started.id)).text).toMatch(/bare repository/);
    expect(existsSync(marker)).toBe(false);
  });
});
