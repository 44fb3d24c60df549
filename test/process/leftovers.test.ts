import { describe, expect, it } from 'vitest';
import { markFor, type ProcessIdentity } from '../../electron/process/identity.js';
import { probeUnix, reapUnix } from '../../electron/process/leftovers-unix.js';
import { endProvenTree, probeWindows, reapWindows } from '../../electron/process/leftovers-windows.js';
import { windowsInspector } from '../../electron/process/inspector.js';
import { bsdOs, PS, SYSCTL } from '../../electron/process/unix-os.js';
import { brokenWindows, FakeMacTools, FakeUnix, FakeWindows } from './fake-os.js';

const INSTANCE = 'aaaaaaaaaaaa';
const OTHER = 'bbbbbbbbbbbb';
const mark = markFor(INSTANCE, 'bg_7');
const ours: ProcessIdentity = {
  taskId: 'bg_7',
  pid: 500,
  pgid: 500,
  processStart: '1000',
  bootId: 'boot-1',
  mark,
  cgroup: null,
  members: [],
};
const context = { instanceId: INSTANCE };
const env = (instance: string, task: string) => ({ [markFor(instance, task).variable]: task, DROVER_TASK_ID: task });

describe('unix probe, process-group fallback', () => {
  it('finds a running group whose leader is ours, repeatably', () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', env: env(INSTANCE, 'bg_7') });
    expect(probeUnix(ours, os, context)).toEqual({ alive: true });
    expect(probeUnix(ours, os, context)).toEqual({ alive: true });
  });

  it('finds a group that outlived its leader by the exact mark of this instance', () => {
    const os = new FakeUnix().add({ pid: 501, pgid: 500, start: '1001', env: env(INSTANCE, 'bg_7') });
    expect(probeUnix(ours, os, context)).toEqual({ alive: true });
  });

  it("never claims another Drover's group with the same task id once its leader is gone, and signals nothing", async () => {
    // Every member of ours died; another Drover's bg_7 now holds a group with the number, its leader gone too.
    const os = new FakeUnix().add({ pid: 501, pgid: 500, start: '1001', env: env(OTHER, 'bg_7') });
    expect(probeUnix(ours, os, context)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/no process in its group/),
    });
    expect(await reapUnix(ours, os, context, 20)).toMatchObject({ ended: [], refused: expect.any(String) });
    expect(os.signals).toEqual([]);
  });

  it('refuses a leaderless group whose members cannot be read, instead of taking the group for ours', () => {
    const os = new FakeUnix().add({ pid: 501, pgid: 500, start: '1001', env: 'unreadable' });
    expect(probeUnix(ours, os, context)).toMatchObject({ alive: false });
  });

  it('does not find an exited group', () => {
    expect(probeUnix(ours, new FakeUnix(), context)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/ended/),
    });
  });

  it('refuses a group whose number was reused by another process, and signals nothing', async () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '9999', env: {} });
    expect(probeUnix(ours, os, context)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/another process/),
    });
    expect(await reapUnix(ours, os, context, 20)).toMatchObject({
      ended: [],
      refused: expect.stringMatching(/another process/),
    });
    expect(os.signals).toEqual([]);
    expect(os.processes.has(500)).toBe(true);
  });

  it('refuses a group whose members carry no mark of its task, without calling it gone (its leader still runs)', () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', env: env(INSTANCE, 'bg_99') });
    expect(probeUnix(ours, os, context)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/mark/),
      undetermined: true,
    });
  });

  it('calls a group provably gone only when it has ended or its number belongs to another process', () => {
    expect(probeUnix(ours, new FakeUnix(), context)).toEqual({ alive: false, reason: 'its process group has ended' });
    const reused = new FakeUnix().add({ pid: 500, pgid: 500, start: '2000', env: env(INSTANCE, 'bg_99') });
    expect(probeUnix(ours, reused, context)).toEqual({
      alive: false,
      reason: 'its number now belongs to another process',
    });
  });

  it("relies on the leader's identity when environments cannot be read", () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', env: 'unreadable' });
    expect(probeUnix(ours, os, context)).toEqual({ alive: true });
  });

  it('rules out everything after a reboot', () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', env: env(INSTANCE, 'bg_7') });
    os.boot = 'boot-2';
    expect(probeUnix(ours, os, context)).toMatchObject({ alive: false, reason: expect.stringMatching(/restarted/) });
  });

  it('fails closed on a record without a start time when the number is in use by an unmarked process', () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', env: {} });
    expect(probeUnix({ ...ours, processStart: null }, os, context)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/no start time/),
    });
  });

  it('refuses a record written by another copy of this data folder', () => {
    const os = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', env: env(INSTANCE, 'bg_7') });
    expect(probeUnix(ours, os, { instanceId: OTHER })).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/another copy/),
    });
  });

  it('reads a check that could not run as "could not be checked", never as "ended"', () => {
    const os = new FakeUnix().add({ pid: 501, pgid: 500, start: '1001', env: env(INSTANCE, 'bg_7') });
    os.broken = '/bin/ps was killed';
    expect(probeUnix(ours, os, context)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/could not be checked: \/bin\/ps was killed/),
    });
  });

  it('honours the legacy mark read-only: a proven leader passes, a leaderless legacy group is refused, and no one is swept by it', async () => {
    const legacy = { ...ours, mark: null };
    const proven = new FakeUnix().add({ pid: 500, pgid: 500, start: '1000', env: { DROVER_TASK_ID: 'bg_7' } });
    expect(probeUnix(legacy, proven, context)).toEqual({ alive: true });
    const leaderless = new FakeUnix()
      .add({ pid: 501, pgid: 500, start: '1001', env: { DROVER_TASK_ID: 'bg_7' } })
      .add({ pid: 900, pgid: 900, start: '5', env: { DROVER_TASK_ID: 'bg_7' } });
    expect(probeUnix(legacy, leaderless, context)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/before Drover kept instance ids/),
    });
    expect(await reapUnix(legacy, leaderless, context, 20)).toMatchObject({ ended: [] });
    expect(leaderless.signals).toEqual([]);
  });

  it('reaps the whole group, SIGKILLing what ignores SIGTERM, and escapees by their exact mark only', async () => {
    const os = new FakeUnix()
      .add({ pid: 500, pgid: 500, start: '1000', env: env(INSTANCE, 'bg_7') })
      .add({ pid: 502, pgid: 500, start: '1002', env: env(INSTANCE, 'bg_7'), stubborn: true })
      .add({ pid: 700, pgid: 700, start: '1100', env: env(INSTANCE, 'bg_7') })
      .add({ pid: 710, pgid: 710, start: '1100', env: env(OTHER, 'bg_7') })
      .add({ pid: 800, pgid: 800, start: '1', env: {} });
    const result = await reapUnix(ours, os, context, 100);
    expect(result.refused).toBeNull();
    expect(result.ended.sort()).toEqual([500, 502, 700]);
    expect(os.signals).toEqual(expect.arrayContaining(['-500:SIGTERM', '-500:SIGCONT', '-500:SIGKILL', '700:SIGTERM']));
    expect([...os.processes.keys()].sort()).toEqual([710, 800]);
  });

  it('ends a marked escapee without lending its proof to a group number that now belongs to someone else', async () => {
    const os = new FakeUnix()
      .add({ pid: 700, pgid: 700, start: '1100', env: env(INSTANCE, 'bg_7') })
      .add({ pid: 500, pgid: 500, start: '9999', env: {} })
      .add({ pid: 501, pgid: 500, start: '9999', env: {} });
    expect(probeUnix(ours, os, context)).toEqual({ alive: true });
    expect(await reapUnix(ours, os, context, 20)).toEqual({ ended: [700], refused: null });
    expect(os.signals.filter((signal) => signal.startsWith('-500'))).toEqual([]);
    expect([...os.processes.keys()].sort()).toEqual([500, 501]);
  });

  it('finds a leftover whose group ended but whose daemon kept the mark, and ends it', async () => {
    const os = new FakeUnix().add({ pid: 700, pgid: 700, start: '1100', env: env(INSTANCE, 'bg_7') });
    expect(probeUnix(ours, os, context)).toEqual({ alive: true });
    expect(await reapUnix(ours, os, context, 20)).toEqual({ ended: [700], refused: null });
  });
});

describe('unix probe, cgroup identity', () => {
  const cg = '/drover-aaaaaaaaaaaa/bg_7';
  const withCgroup: ProcessIdentity = { ...ours, cgroup: cg };

  it("is alive while its cgroup has processes, whatever became of the leader's number", () => {
    const os = new FakeUnix({ cgroups: true })
      .add({ pid: 500, pgid: 500, start: '9999', env: {} })
      .add({ pid: 600, pgid: 600, start: '1', env: {}, cgroup: cg });
    expect(probeUnix(withCgroup, os, context)).toEqual({ alive: true });
  });

  it('is gone when its cgroup is gone or empty, and the empty cgroup is removed', () => {
    const os = new FakeUnix({ cgroups: true });
    expect(probeUnix(withCgroup, os, context)).toMatchObject({ alive: false, reason: 'its cgroup is gone' });
    os.cgroupDirs.add(cg);
    expect(probeUnix(withCgroup, os, context)).toMatchObject({ alive: false, reason: expect.stringMatching(/ended/) });
    expect(os.cgroupDirs.has(cg)).toBe(false);
  });

  it('reaps what is in the cgroup (setsid and unmarked processes included) and nothing else', async () => {
    const os = new FakeUnix({ cgroups: true })
      .add({ pid: 600, pgid: 600, start: '1', env: {}, cgroup: cg })
      .add({ pid: 601, pgid: 601, start: '2', env: {}, cgroup: `${cg}/nested`, stubborn: true })
      .add({ pid: 500, pgid: 500, start: '9999', env: {} });
    const result = await reapUnix(withCgroup, os, context, 20);
    expect(result).toEqual({ ended: [600, 601], refused: null });
    expect([...os.processes.keys()]).toEqual([500]);
    expect(os.signals).toContain(`cgroup ${cg}:kill`);
    expect(os.cgroupDirs.has(cg)).toBe(false);
  });

  it('never acts on a recorded cgroup this instance did not make for the task (a damaged or crafted row)', async () => {
    for (const path of [
      '/',
      '/user.slice',
      '/drover-bbbbbbbbbbbb/bg_7',
      '/drover-aaaaaaaaaaaa/bg_8',
      '/../../tmp/evil/drover-aaaaaaaaaaaa/bg_7',
      '/user.slice/../drover-aaaaaaaaaaaa/bg_7/../..',
      '/user.slice//drover-aaaaaaaaaaaa/bg_7',
      '/user.slice/./drover-aaaaaaaaaaaa/bg_7',
    ]) {
      const os = new FakeUnix({ cgroups: true }).add({ pid: 600, pgid: 600, start: '1', env: {}, cgroup: path });
      const crafted = { ...withCgroup, cgroup: path };
      expect(probeUnix(crafted, os, context), path).toMatchObject({
        alive: false,
        reason: expect.stringMatching(/not one this Drover made/),
      });
      expect(await reapUnix(crafted, os, context, 20)).toMatchObject({ ended: [] });
      expect(os.signals).toEqual([]);
    }
  });

  it('refuses when cgroup v2 is not mounted now', () => {
    expect(probeUnix(withCgroup, new FakeUnix(), context)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/not mounted/),
    });
  });
});

describe('unix probe, crafted task ids', () => {
  it('never acts on a cgroup derived from an id that is not a task id', async () => {
    const crafted: ProcessIdentity = {
      ...ours,
      taskId: '..',
      cgroup: '/user.slice/drover-aaaaaaaaaaaa/..',
      mark: markFor(INSTANCE, '..'),
    };
    const os = new FakeUnix({ cgroups: true }).add({ pid: 600, pgid: 600, start: '1', env: {}, cgroup: '/user.slice' });
    expect(probeUnix(crafted, os, context)).toMatchObject({ alive: false });
    expect(await reapUnix(crafted, os, context, 20)).toMatchObject({ ended: [] });
    expect(os.signals).toEqual([]);
  });
});

describe('macOS tools', () => {
  const started = new Date('2026-11-30T10:00:00Z');
  function mac(): FakeMacTools {
    const tools = new FakeMacTools();
    tools.processes.set(500, { pgid: 500, started, command: 'sleep 600', env: env(INSTANCE, 'bg_7') });
    return tools;
  }

  it('calls ps and sysctl by absolute path, in the C locale and UTC', () => {
    const tools = mac();
    const os = bsdOs(tools.run);
    os.startTime(500);
    os.bootId();
    expect(tools.calls.map((call) => call.file)).toEqual([PS, SYSCTL]);
    for (const call of tools.calls) expect(call.env).toMatchObject({ LC_ALL: 'C', TZ: 'UTC0' });
  });

  it("records a start time that does not drift with the person's locale or time zone", () => {
    const tools = mac();
    const recorded = bsdOs(tools.run).startTime(500);
    const saved = { LANG: process.env.LANG, TZ: process.env.TZ };
    process.env.LANG = 'fr_FR.UTF-8';
    process.env.TZ = 'Europe/Paris';
    try {
      expect(bsdOs(tools.run).startTime(500)).toBe(recorded);
    } finally {
      for (const [key, value] of Object.entries(saved))
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
    }
    expect(recorded).toBe('Mon Nov 30 10:00:00 2026');
  });

  it('looks for a mark only in the environment, never in the arguments that mention it', () => {
    const tools = new FakeMacTools();
    const variable = markFor(INSTANCE, 'bg_7').variable;
    tools.processes.set(600, {
      pgid: 600,
      started,
      command: `grep ${variable}=bg_7 notes.txt`,
      env: { HOME: '/Users/p' },
    });
    tools.processes.set(601, { pgid: 601, started, command: 'sleep 600', env: env(INSTANCE, 'bg_7') });
    const os = bsdOs(tools.run);
    expect(os.markOf(600, variable)).toBeNull();
    expect(os.markOf(601, variable)).toBe('bg_7');
    expect(os.markedProcesses(variable)).toEqual(new Map([['bg_7', [601]]]));
  });

  it('uses the per-boot session UUID as the boot id', () => {
    expect(bsdOs(mac().run).bootId()).toBe('5E1C2D7A-0000-4000-8000-00000000B007');
  });

  it('reads only "exit 1, nothing printed" as absent; a killed or missing ps is a failure, not "gone"', () => {
    const tools = mac();
    const os = bsdOs(tools.run);
    expect(os.startTime(4242)).toBeNull();
    tools.failure = 'killed';
    expect(() => os.startTime(500)).toThrow(/failed/);
    tools.failure = 'missing';
    expect(() => os.startTime(500)).toThrow(/ENOENT/);
  });

  it('refuses a leaderless group on macOS unless a member carries the mark, and signals nothing', async () => {
    const tools = new FakeMacTools();
    // The number 500 was reused: a group with that id exists, its leader gone, no mark of ours in it.
    tools.processes.set(501, { pgid: 500, started, command: 'other', env: { HOME: '/Users/x' } });
    const os = bsdOs(tools.run);
    const onMac = { ...ours, bootId: tools.sessionUuid };
    const signals: string[] = [];
    os.signalGroup = (pgid, sig) => {
      if (sig !== 0) signals.push(`-${pgid}:${sig}`);
      return [...tools.processes.values()].some((p) => p.pgid === pgid) ? 'ok' : 'missing';
    };
    expect(probeUnix(onMac, os, context)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/no process in its group/),
    });
    expect(await reapUnix(onMac, os, context, 20)).toMatchObject({ ended: [] });
    expect(signals).toEqual([]);
    tools.processes.set(502, { pgid: 500, started, command: 'sleep 600', env: env(INSTANCE, 'bg_7') });
    expect(probeUnix(onMac, os, context)).toEqual({ alive: true });
  });
});

describe('windows probe and reap', () => {
  const created = '133000000000000000';
  const identity: ProcessIdentity = {
    taskId: 'bg_3',
    pid: 4000,
    pgid: null,
    processStart: created,
    bootId: null,
    mark: null,
    cgroup: null,
    members: [],
  };

  it('finds a running process with the recorded creation time, repeatably, asking only for query rights', () => {
    const os = new FakeWindows().add({ pid: 4000, created, exited: false, parentPid: 1 });
    expect(probeWindows(identity, os, INSTANCE)).toEqual({ alive: true });
    expect(probeWindows(identity, os, INSTANCE)).toEqual({ alive: true });
    expect(os.openHandles.get(4000)).toBe(0);
    expect(os.rights).toEqual(['query', 'query']);
  });

  it('does not take a killed process whose handle is still held for alive', () => {
    const os = new FakeWindows().add({ pid: 4000, created, exited: true, parentPid: 1 });
    os.openHandles.set(4000, 1);
    expect(probeWindows(identity, os, INSTANCE)).toMatchObject({ alive: false });
  });

  it('reads "access denied" as "running, not provably ours", never as "ended", and ends nothing', () => {
    const os = new FakeWindows().add({ pid: 4000, created, exited: false, parentPid: 1, protected: true });
    expect(probeWindows(identity, os, INSTANCE)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/denies/),
    });
    expect(reapWindows(identity, os, INSTANCE)).toMatchObject({ ended: [] });
    expect(os.terminated).toEqual([]);
  });

  it('refuses a creation time the record does not describe, and ends nothing', () => {
    const os = new FakeWindows().add({ pid: 4000, created: '133999999999999999', exited: false, parentPid: 1 });
    expect(probeWindows(identity, os, INSTANCE)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/another process/),
    });
    expect(reapWindows(identity, os, INSTANCE)).toMatchObject({
      ended: [],
      refused: expect.stringMatching(/another process/),
    });
    expect(os.terminated).toEqual([]);
  });

  it('leaves a legacy record without identity alone', () => {
    const os = new FakeWindows().add({ pid: 4000, created, exited: false, parentPid: 1 });
    const legacy = { ...identity, processStart: null };
    expect(probeWindows(legacy, os, INSTANCE)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/cannot be proven/),
    });
    expect(reapWindows(legacy, os, INSTANCE)).toMatchObject({ refused: expect.stringMatching(/cannot be proven/) });
    expect(os.terminated).toEqual([]);
  });

  it('after a crash, ends the children of a leader that already exited, proven from the recorded members', () => {
    // Nothing holds the dead shell's handle any more: its pid is free, and a tree walk from it finds nothing.
    const os = new FakeWindows();
    const shell = os.spawn(4000, 1);
    const server = os.spawn(4100, 4000);
    os.spawn(4200, 4100);
    shell.exited = true;
    const recorded: ProcessIdentity = {
      ...identity,
      processStart: shell.created,
      members: [{ pid: 4100, created: server.created }],
    };
    expect(probeWindows(recorded, os, INSTANCE)).toEqual({ alive: true });
    expect(reapWindows(recorded, os, INSTANCE)).toEqual({ ended: [4100, 4200], refused: null });
    expect(os.terminated.sort()).toEqual([4100, 4200]);
  });

  it('does not follow a stale parent pid to a process older than its supposed parent', () => {
    const os = new FakeWindows();
    const unrelated = os.spawn(5000, 1);
    const leader = os.spawn(4000, 1);
    // 5000 names 4000 as parent only because an earlier process once had that number.
    unrelated.parentPid = 4000;
    const child = os.spawn(4300, 4000);
    expect(endProvenTree(os, [{ pid: 4000, created: leader.created }]).sort()).toEqual([4000, 4300]);
    expect(os.table.get(5000)!.exited).toBe(false);
    expect(child.exited).toBe(true);
  });

  it('never claims a record of another copy of this data folder', () => {
    const os = new FakeWindows().add({ pid: 4000, created, exited: false, parentPid: 1 });
    const copied = { ...identity, mark: markFor(OTHER, 'bg_3') };
    expect(probeWindows(copied, os, INSTANCE)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/another copy/),
    });
    expect(reapWindows(copied, os, INSTANCE)).toMatchObject({ ended: [] });
    expect(os.terminated).toEqual([]);
  });

  it('fails closed, with a logged reason, when kernel32 cannot be bound: listing never throws', async () => {
    const logged: string[] = [];
    const inspector = windowsInspector(brokenWindows(), INSTANCE, (line) => logged.push(line));
    expect(inspector.probe(identity)).toMatchObject({
      alive: false,
      reason: expect.stringMatching(/unavailable \(koffi could not load kernel32.dll\)/),
    });
    expect(inspector.identify(4000)).toEqual({ processStart: null, bootId: null });
    expect(await inspector.reap(identity)).toMatchObject({ ended: [], refused: expect.stringMatching(/unavailable/) });
    expect(logged).toHaveLength(1);
  });
});
