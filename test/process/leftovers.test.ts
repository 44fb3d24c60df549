import { describe, expect, it } from 'vitest';
import type { ProcessIdentity } from '../../electron/process/identity.js';
import { probeUnix, probeWindows, reapUnix, reapWindows } from '../../electron/process/leftovers.js';
import { FakeUnix, FakeWindows } from './fake-os.js';

const ours: ProcessIdentity = { taskId: 'bg_7', pid: 500, pgid: 500, processStart: '1000', bootId: 'boot-1' };

describe('unix probe', () => {
  it('finds a running group whose leader is ours', () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', mark: 'bg_7' });
    expect(probeUnix(ours, os)).toEqual({ alive: true });
    expect(probeUnix(ours, os)).toEqual({ alive: true });
  });

  it('finds a group that outlived its leader', () => {
    const os = new FakeUnix().add({ pid: 501, pgid: 500, start: '1001', mark: 'bg_7' });
    expect(probeUnix(ours, os)).toEqual({ alive: true });
  });

  it('does not find an exited group', () => {
    expect(probeUnix(ours, new FakeUnix())).toMatchObject({ alive: false, reason: expect.stringMatching(/ended/) });
  });

  it('refuses a group whose number was reused by another process, and signals nothing', async () => {
    // Every member of ours died; an unrelated process got the number and leads a group with it.
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '9999', mark: null });
    expect(probeUnix(ours, os)).toMatchObject({ alive: false, reason: expect.stringMatching(/another process/) });
    expect(await reapUnix(ours, os, 50)).toMatchObject({ ended: [], refused: expect.stringMatching(/another process/) });
    expect(os.signals).toEqual([]);
    expect(os.processes.has(500)).toBe(true);
  });

  it('refuses a group whose members do not carry the mark', () => {
    const os = new FakeUnix().add({ pid: 501, pgid: 500, start: '5', mark: 'bg_99' });
    expect(probeUnix(ours, os)).toMatchObject({ alive: false, reason: expect.stringMatching(/mark/) });
  });

  it('relies on identity alone when environments cannot be read', () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', mark: 'unreadable' });
    expect(probeUnix(ours, os)).toEqual({ alive: true });
  });

  it('rules out everything after a reboot', () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', mark: 'bg_7' });
    os.boot = 'boot-2';
    expect(probeUnix(ours, os)).toMatchObject({ alive: false, reason: expect.stringMatching(/restarted/) });
  });

  it('fails closed on a record without a start time when the number is in use', () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', mark: 'bg_7' });
    expect(probeUnix({ ...ours, processStart: null }, os)).toMatchObject({ alive: false });
  });

  it('reaps the whole group, SIGKILLing what ignores SIGTERM, and escapees by their mark', async () => {
    const os = new FakeUnix()
      .add({ pid: 500, pgid: 500, start: '1000', mark: 'bg_7' })
      .add({ pid: 502, pgid: 500, start: '1002', mark: 'bg_7', stubborn: true })
      .add({ pid: 700, pgid: 700, start: '1100', mark: 'bg_7' })
      .add({ pid: 800, pgid: 800, start: '1', mark: null });
    const result = await reapUnix(ours, os, 100);
    expect(result.refused).toBeNull();
    expect(result.ended.sort()).toEqual([500, 502, 700]);
    expect(os.signals).toContain('-500:SIGTERM');
    expect(os.signals).toContain('-500:SIGCONT');
    expect(os.signals).toContain('-500:SIGKILL');
    expect([...os.processes.keys()]).toEqual([800]);
  });
});

describe('windows probe', () => {
  const identity: ProcessIdentity = { taskId: 'bg_3', pid: 4000, pgid: null, processStart: '133000000000000000', bootId: null };

  it('finds a running process with the recorded creation time, repeatably', () => {
    const os = new FakeWindows().add({ pid: 4000, created: '133000000000000000', exited: false, children: [] });
    expect(probeWindows(identity, os)).toEqual({ alive: true });
    expect(probeWindows(identity, os)).toEqual({ alive: true });
    expect(os.openHandles.get(4000)).toBe(0);
  });

  it('does not take a killed process whose handle is still held for alive', () => {
    const os = new FakeWindows().add({ pid: 4000, created: '133000000000000000', exited: true, children: [] });
    os.openHandles.set(4000, 1);
    expect(probeWindows(identity, os)).toMatchObject({ alive: false });
  });

  it('refuses a creation time the record does not describe, and kills nothing', async () => {
    const os = new FakeWindows().add({ pid: 4000, created: '133999999999999999', exited: false, children: [] });
    expect(probeWindows(identity, os)).toMatchObject({ alive: false, reason: expect.stringMatching(/another process/) });
    expect(await reapWindows(identity, os)).toMatchObject({ ended: [], refused: expect.stringMatching(/another process/) });
    expect(os.killed).toEqual([]);
  });

  it('leaves a legacy record without identity alone', async () => {
    const os = new FakeWindows().add({ pid: 4000, created: '133000000000000000', exited: false, children: [] });
    const legacy = { ...identity, processStart: null };
    expect(probeWindows(legacy, os)).toMatchObject({ alive: false, reason: expect.stringMatching(/cannot be proven/) });
    expect(await reapWindows(legacy, os)).toMatchObject({ refused: expect.stringMatching(/cannot be proven/) });
    expect(os.killed).toEqual([]);
  });

  it('kills the tree while holding the handle, even after the leader exited', async () => {
    const os = new FakeWindows().add({ pid: 4000, created: '133000000000000000', exited: true, children: [4100, 4200] });
    os.openHandles.set(4000, 1);
    expect(await reapWindows(identity, os)).toEqual({ ended: [4000], refused: null });
    expect(os.killed).toEqual([4000, 4100, 4200]);
    expect(os.heldDuringKill).toEqual([true]);
  });
});
