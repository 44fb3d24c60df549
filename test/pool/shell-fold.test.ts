import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashFolds, runsOwnCodeFirst } from '../../electron/pool/command-runner.js';
import { tempDir } from '../helpers.js';

/** A program called `bash` that answers the version question as an older or newer bash would. */
function fakeBash(answer: string): string {
  const dir = join(tempDir(), 'bin');
  mkdirSync(dir);
  const path = join(dir, 'bash');
  writeFileSync(path, `#!/bin/sh\necho '${answer}'\n`);
  chmodSync(path, 0o755);
  return path;
}

describe.runIf(process.platform !== 'win32')('which shells do the container work themselves', () => {
  it('bash 5.1 and newer; older bash, other shells and a bash that cannot answer keep the sh stage', () => {
    expect(bashFolds('/bin/bash')).toBe(true);
    expect(bashFolds(fakeBash('5 1'))).toBe(true);
    expect(bashFolds(fakeBash('6 0'))).toBe(true);
    // bash before 5.1 does not exec the last command of a script: the task's pid would stay bash's.
    expect(bashFolds(fakeBash('5 0'))).toBe(false);
    expect(bashFolds(fakeBash('4 4'))).toBe(false);
    expect(bashFolds(fakeBash('3 2'))).toBe(false);
    expect(bashFolds(fakeBash('not a version'))).toBe(false);
    expect(bashFolds('/bin/sh')).toBe(false);
    expect(bashFolds('/usr/bin/zsh')).toBe(false);
    expect(bashFolds('/nonexistent/bash')).toBe(false);
  });

  it('not when the environment makes bash run its own code first', () => {
    expect(runsOwnCodeFirst({ PATH: '/usr/bin', HOME: '/root' })).toBe(false);
    for (const name of ['BASH_ENV', 'SHELLOPTS', 'BASHOPTS', 'BASH_FUNC_echo%%', 'BASH_FUNC_read()'])
      expect(runsOwnCodeFirst({ PATH: '/usr/bin', [name]: 'x' }), name).toBe(true);
  });
});
