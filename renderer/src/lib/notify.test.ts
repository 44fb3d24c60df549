import { describe, expect, it } from 'vitest';
import { taskNotice } from './notify.js';
import { settledRow, taskRow } from './test-tasks.js';

describe('taskNotice', () => {
  const failed = settledRow('bg_3', '2025-01-01T12:00:09.000Z', { status: 'failed', exitCode: 1, command: 'npm test' });

  it('notifies a task seen running that failed', () => {
    expect(taskNotice('running', failed, 'Session title')).toEqual({
      title: 'Task failed: npm test',
      body: 'bg_3 in “Session title” · exit code 1',
    });
  });

  it('says an agent ended in its own words, without an exit code', () => {
    const agent = settledRow('agt_2', '2025-01-01T12:00:09.000Z', {
      kind: 'agent',
      status: 'stopped',
      exitCode: 1,
      command: 'Survey the tests',
    });
    expect(taskNotice('running', agent, 'Session title')).toEqual({
      title: 'Agent killed: Survey the tests',
      body: 'agt_2 in “Session title”',
    });
  });

  it('notifies from queued, and each ending has its word', () => {
    expect(taskNotice('queued', settledRow('bg_1', '2025-01-01T12:00:00.000Z', { command: 'make' }), null)).toEqual({
      title: 'Task finished: make',
      body: 'bg_1 · exit code 0',
    });
    expect(
      taskNotice('running', { ...failed, status: 'timed_out', exitCode: null, signal: 'SIGTERM' }, 'S')?.title,
    ).toBe('Task timed out: npm test');
    expect(taskNotice('running', { ...failed, status: 'stopped' }, 'S')?.title).toBe('Task stopped: npm test');
  });

  it('stays quiet for anything else', () => {
    expect(taskNotice(undefined, failed, 'S')).toBeNull();
    expect(taskNotice('failed', failed, 'S')).toBeNull();
    expect(taskNotice('queued', taskRow('bg_1'), 'S')).toBeNull();
    expect(taskNotice('running', { ...failed, status: 'orphaned' }, 'S')).toBeNull();
  });

  it('keeps a long command to one short line', () => {
    const notice = taskNotice('running', { ...failed, command: `echo ${'x'.repeat(200)}\nnext` }, null);
    expect(notice?.title.length).toBeLessThanOrEqual('Task failed: '.length + 80);
    expect(notice?.title).not.toContain('\n');
  });
});
