import { beforeAll, describe, expect, it } from 'vitest';
import { eventsReadWords, monitorScheduleText, portLabel, readiness, readyCheckParts } from './monitors.js';
import { settledRow, taskRow } from './test-tasks.js';
import { loadLocale } from './state/locale.svelte.js';

// These read times and counts as the person's locale writes them (before it is in: state/locale.test.ts).
beforeAll(loadLocale);

const T0 = Date.parse('2025-01-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const monitor = (patch: Parameters<typeof taskRow>[1] = {}) =>
  taskRow('mon_1', { kind: 'monitor', notifyMode: 'scheduled', checkAfterSeconds: 45, pingDueAt: at(45), ...patch });

describe('a monitor’s schedule', () => {
  it('counts down to its check by the local clock, rounding up, then says it is due', () => {
    expect(monitorScheduleText(monitor(), T0 + 13_000)).toBe('next check in 32 s');
    expect(monitorScheduleText(monitor(), T0 + 12_400)).toBe('next check in 33 s');
    expect(monitorScheduleText(monitor(), T0 + 44_900)).toBe('next check in 1 s');
    expect(monitorScheduleText(monitor({ pingDueAt: at(600) }), T0)).toBe('next check in 10 min 00 s');
    expect(monitorScheduleText(monitor(), T0 + 45_000)).toBe('check due now');
  });

  it('says when it checked once the ping went, the same after it ended', () => {
    const pingedAt = at(45);
    const time = new Date(T0 + 45_000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    expect(monitorScheduleText(monitor({ pingDueAt: null, pingedAt }), T0 + 60_000)).toBe(`checked ${time}`);
    expect(
      monitorScheduleText(
        settledRow('mon_1', at(90), { kind: 'monitor', notifyMode: 'scheduled', pingedAt }),
        T0 + 100_000,
      ),
    ).toBe(`checked ${time}`);
  });

  it('words the other ways it wakes the agent, a queued one, and one that ended first', () => {
    expect(monitorScheduleText(monitor({ notifyMode: 'exit', pingDueAt: null }), T0)).toBe('wakes the agent at exit');
    expect(monitorScheduleText(monitor({ notifyMode: 'none', pingDueAt: null }), T0)).toBe('never wakes the agent');
    // Once it has ended, or when it is an earlier run's (orphaned), there is no schedule left to tell.
    expect(monitorScheduleText(monitor({ notifyMode: 'exit', status: 'stopped', pingDueAt: null }), T0)).toBeNull();
    expect(monitorScheduleText(monitor({ notifyMode: 'none', status: 'succeeded', pingDueAt: null }), T0)).toBeNull();
    expect(monitorScheduleText(monitor({ status: 'orphaned', pingDueAt: null }), T0)).toBeNull();
    expect(
      monitorScheduleText(monitor({ status: 'queued', startedAt: null, pingDueAt: null, checkAfterSeconds: 90 }), T0),
    ).toBe('checks 1 min after it starts');
    expect(
      monitorScheduleText(
        settledRow('mon_1', at(20), { kind: 'monitor', notifyMode: 'scheduled', pingDueAt: null }),
        T0 + 30_000,
      ),
    ).toBe('ended before its check was due');
  });

  it('says nothing for a shell', () => {
    expect(monitorScheduleText(taskRow('bg_1'), T0)).toBeNull();
  });
});

describe('readiness', () => {
  it('is nothing without a declared check', () => {
    expect(readiness(taskRow('bg_1'))).toBeNull();
  });

  it('waits while it runs (or is queued), and says how long it took once ready', () => {
    expect(readiness(taskRow('bg_1', { ready: false }))).toEqual({ state: 'waiting', text: 'waiting until ready' });
    expect(readiness(taskRow('bg_1', { ready: false, status: 'queued', startedAt: null }))?.state).toBe('waiting');
    expect(readiness(taskRow('bg_1', { ready: true, readyAt: '2025-01-01T12:00:04.200Z' }))).toEqual({
      state: 'ready',
      text: 'ready in 4 s',
    });
    expect(readiness(taskRow('bg_1', { ready: true, readyAt: '2025-01-01T12:00:00.300Z' }))?.text).toBe(
      'ready in under 1 s',
    );
    expect(readiness(taskRow('bg_1', { ready: true, readyAt: null }))?.text).toBe('ready');
  });

  it('says a task that ended unready did so, and one that got ready stays ready', () => {
    expect(readiness(settledRow('bg_1', at(5), { status: 'failed', ready: false }))).toEqual({
      state: 'unready',
      text: 'ended before it was ready',
    });
    expect(readiness(settledRow('bg_1', at(5), { ready: true, readyAt: at(2) }))?.text).toBe('ready in 2 s');
  });

  it('puts the check in words, keeping what the model chose as a value apart', () => {
    expect(readyCheckParts(null)).toEqual([]);
    expect(readyCheckParts({ port: 3000, http: 'http://127.0.0.1:3000/health', pattern: 'Local:.*http' })).toEqual([
      { before: 'port ', value: '3000', after: ' listens' },
      { before: '', value: 'http://127.0.0.1:3000/health', after: ' answers' },
      { before: 'output matches ', value: 'Local:.*http', after: '' },
    ]);
  });
});

describe('ports and reads', () => {
  it('labels a port chip and says what it means', () => {
    expect(portLabel(3000)).toEqual({ label: ':3000', title: 'Listening on TCP port 3000' });
  });

  it('words a monitor_events read for a person', () => {
    expect(eventsReadWords(1229, true)).toBe('Read 1.2 KiB of new output; more is waiting.');
    expect(eventsReadWords(12, false)).toBe('Read 12 B of new output.');
    expect(eventsReadWords(0, false)).toBe('No new output.');
    expect(eventsReadWords(0, true)).toBe('No new output read; more is waiting.');
  });
});
