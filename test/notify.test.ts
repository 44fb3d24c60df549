import { describe, expect, it } from 'vitest';
import { taskRow } from './task-row.js';
import { byKind, TaskNotices } from '../electron/notify/task-notices.js';

const row = taskRow;
const away = { enabled: true, windowFocused: false, sessionTitle: () => 'Fix the build' };

describe('task notices', () => {
  it('notifies when a task this run saw running ends while the window is away', () => {
    const notices = new TaskNotices();
    expect(notices.update(row({}), away)).toBeNull();
    const notice = notices.update(row({ status: 'failed', running: false, exitCode: 1 }), away);
    expect(notice).toEqual({
      title: 'Task failed: npm test',
      body: 'bg_1 in “Fix the build” · exit code 1 · ran 12 s',
      sessionId: 's1',
      taskId: 'bg_1',
    });
  });

  it('names an agent’s end in its own words', () => {
    const notices = new TaskNotices();
    notices.update(row({ id: 'agt_1', kind: 'agent', command: 'Survey the tests' }), away);
    const notice = notices.update(
      row({
        id: 'agt_1',
        kind: 'agent',
        command: 'Survey the tests',
        status: 'succeeded',
        running: false,
        exitCode: 0,
      }),
      away,
    );
    expect(notice?.title).toBe('Agent completed: Survey the tests');
  });

  it('stays quiet when focused, turned off, for shutdown stops, and for tasks never seen running', () => {
    const notices = new TaskNotices();
    notices.update(row({ id: 'a' }), away);
    expect(
      notices.update(row({ id: 'a', status: 'succeeded', exitCode: 0 }), { ...away, windowFocused: true }),
    ).toBeNull();
    notices.update(row({ id: 'b' }), away);
    expect(notices.update(row({ id: 'b', status: 'succeeded', exitCode: 0 }), { ...away, enabled: false })).toBeNull();
    notices.update(row({ id: 'c' }), away);
    expect(
      notices.update(row({ id: 'c', status: 'stopped', exitNote: 'stopped: Drover was shutting down' }), away),
    ).toBeNull();
    expect(notices.update(row({ id: 'd', status: 'succeeded' }), away)).toBeNull();
    expect(notices.update(row({ id: 'e', status: 'orphaned' }), away)).toBeNull();
  });

  it('keeps the tray count and menu to the running tasks, newest first', () => {
    const notices = new TaskNotices();
    notices.update(row({ id: 'bg_1', queuedAt: new Date(1).toISOString() }), away);
    notices.update(
      row({ id: 'bg_2', queuedAt: new Date(2).toISOString(), command: 'tail -f log', kind: 'monitor' }),
      away,
    );
    notices.update(row({ id: 'bg_3', queuedAt: new Date(3).toISOString(), status: 'queued' }), away);
    expect(notices.tray()).toMatchObject({ count: 3, tooltip: 'Drover: 2 shells, 1 monitor running' });
    expect(notices.tray().items.map((i) => i.taskId)).toEqual(['bg_3', 'bg_2', 'bg_1']);
    notices.update(row({ id: 'bg_1', status: 'succeeded' }), away);
    expect(notices.tray().count).toBe(2);
  });

  it('words counts by kind', () => {
    expect(byKind([row({}), row({}), row({ kind: 'agent' })])).toBe('2 shells, 1 agent');
    expect(byKind([])).toBe('');
  });
});
