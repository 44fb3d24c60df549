import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOOP_TASK, LOOP_FILE_MAX_BYTES, readDefaultTask } from '../../electron/scheduler/default-task.js';
import { tempDir } from '../helpers.js';

function folders() {
  const root = tempDir();
  const project = join(root, 'project');
  const user = join(root, 'data');
  mkdirSync(project);
  mkdirSync(user);
  return { root, project, user };
}

describe('the default task of a bare /loop', () => {
  it('is Drover’s own without loop.md; the project’s loop.md wins over the data folder’s, read again each time', () => {
    const { project, user } = folders();
    expect(readDefaultTask(project, user)).toBe(DEFAULT_LOOP_TASK);
    writeFileSync(join(user, 'loop.md'), 'user task');
    expect(readDefaultTask(project, user)).toBe('user task');
    writeFileSync(join(project, 'loop.md'), 'project task');
    expect(readDefaultTask(project, user)).toBe('project task');
    writeFileSync(join(project, 'loop.md'), 'edited');
    expect(readDefaultTask(project, user)).toBe('edited');
  });

  it('ignores an empty file, and cuts a long one at 25,000 bytes, saying so, without splitting a character', () => {
    const { project, user } = folders();
    writeFileSync(join(project, 'loop.md'), '  \n\n ');
    writeFileSync(join(user, 'loop.md'), `${'é'.repeat(20_000)}`);
    const text = readDefaultTask(project, user);
    expect(text.startsWith('é'.repeat(12_500))).toBe(true);
    expect(text).not.toContain('\uFFFD');
    expect(Buffer.byteLength(text.split('\n[')[0]!)).toBeLessThanOrEqual(LOOP_FILE_MAX_BYTES);
    expect(text).toMatch(/longer than 25000 bytes; the rest was not read\]$/);
  });

  it('never follows a loop.md that links out of its folder', () => {
    const { root, project, user } = folders();
    writeFileSync(join(root, 'secret.txt'), 'aws_secret_access_key = x');
    symlinkSync(join(root, 'secret.txt'), join(project, 'loop.md'));
    expect(readDefaultTask(project, user)).toBe(DEFAULT_LOOP_TASK);
    mkdirSync(join(project, 'docs'));
    writeFileSync(join(project, 'docs', 'loop.md'), 'inside');
    symlinkSync(join(project, 'docs', 'loop.md'), join(user, 'loop.md'));
    // A link inside its own folder is fine; one from the data folder into the project is not (it leaves the data folder).
    expect(readDefaultTask(project, user)).toBe(DEFAULT_LOOP_TASK);
  });
});
