import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, resolveTimeoutSeconds } from '../../electron/pool/policy.js';
import { describeExit } from '../../electron/pool/exit-codes.js';
import { OutputWindow } from '../../electron/pool/output-window.js';
import { renderTerminalText } from '../../electron/pool/terminal-text.js';
import { derivedStatus, toTaskRow } from '../../electron/pool/task-row.js';
import type { TaskRecord } from '../../electron/pool/task-record.js';

describe('timeout resolution', () => {
  const resolve = (request: { timeoutSeconds?: number; expectedSeconds?: number }) =>
    resolveTimeoutSeconds(request, DEFAULT_POLICY);
  it('takes an explicit timeout verbatim, even a tight one', () => {
    expect(resolve({ timeoutSeconds: 2, expectedSeconds: 600 })).toBe(2);
    expect(resolve({ timeoutSeconds: 1200 })).toBe(1200);
  });
  it('gives an estimate three times itself, floored at 60 s', () => {
    expect(resolve({ expectedSeconds: 100 })).toBe(300);
    expect(resolve({ expectedSeconds: 5 })).toBe(60);
    expect(resolve({ expectedSeconds: 20 })).toBe(60);
    expect(resolve({ expectedSeconds: 21 })).toBe(63);
  });
  it('falls back to the default of 900 s', () => {
    expect(resolve({})).toBe(900);
  });
  it('caps everything at 3600 s', () => {
    expect(resolve({ timeoutSeconds: 99_999 })).toBe(3600);
    expect(resolve({ expectedSeconds: 2000 })).toBe(3600);
    expect(resolveTimeoutSeconds({}, { ...DEFAULT_POLICY, defaultTimeoutSeconds: 5000 })).toBe(3600);
  });
});

describe('exit codes', () => {
  it('never reports a signal death as 0', () => {
    expect(describeExit('sleep 9', null, 9)).toEqual({ exitCode: 137, signal: 'SIGKILL', note: 'killed by SIGKILL' });
    expect(describeExit('sleep 9', 0, 15)).toEqual({ exitCode: 143, signal: 'SIGTERM', note: 'killed by SIGTERM' });
    expect(describeExit('make', 130, null)).toMatchObject({ exitCode: 130, signal: 'SIGINT' });
  });
  it('annotates conventional non-error codes', () => {
    expect(describeExit('grep -r foo src', 1, null).note).toBe('no matches found');
    expect(describeExit('cat log | rg ERROR', 1, null).note).toBe('no matches found');
    expect(describeExit('/usr/bin/diff a b', 1, null).note).toBe('files differ');
    expect(describeExit('cmp a b', 1, null).note).toBe('files differ');
    expect(describeExit('test -f x', 1, null).note).toBe('condition is false');
    expect(describeExit('[ -d x ]', 1, null).note).toBe('condition is false');
    expect(describeExit('LC_ALL=C grep x y', 1, null).note).toBe('no matches found');
    expect(describeExit('git diff --quiet', 1, null).note).toBe('files differ');
  });
  it('leaves other codes alone', () => {
    expect(describeExit('grep x y', 2, null).note).toBeNull();
    expect(describeExit('npm test', 1, null).note).toBeNull();
    expect(describeExit('grep x y && make', 1, null).note).toBeNull();
    expect(describeExit('true', 0, null)).toEqual({ exitCode: 0, signal: null, note: null });
  });
});

describe('output window', () => {
  it('keeps only the newest bytes and counts everything', () => {
    const window = new OutputWindow(10);
    window.append(Buffer.from('0123456'));
    window.append(Buffer.from('789ab'));
    expect(window.bytes().toString()).toBe('23456789ab');
    expect(window.totalBytes).toBe(12);
    expect(window.truncated).toBe(true);
    window.append(Buffer.from('ABCDEFGHIJKLMNOP'));
    expect(window.bytes().toString()).toBe('GHIJKLMNOP');
    expect(window.totalBytes).toBe(28);
  });
  it('is not truncated until it overflows', () => {
    const window = new OutputWindow(10);
    window.append(Buffer.from('abc'));
    expect(window.truncated).toBe(false);
    expect(window.bytes().toString()).toBe('abc');
  });
  it('stays bounded under many small chunks', () => {
    const window = new OutputWindow(1024);
    for (let i = 0; i < 100_000; i++) window.append(Buffer.from('x'));
    expect(window.bytes().length).toBe(1024);
  });
  it('holds exactly the last cap bytes of whatever was appended, growing past its first room', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20_000 }),
        fc.array(fc.uint8Array({ maxLength: 9000 }), { maxLength: 40 }),
        (cap, chunks) => {
          const window = new OutputWindow(cap);
          let all = Buffer.alloc(0);
          for (const chunk of chunks) {
            window.append(Buffer.from(chunk));
            all = Buffer.concat([all, Buffer.from(chunk)]);
            expect(window.bytes().equals(all.subarray(Math.max(0, all.length - cap)))).toBe(true);
            expect(window.totalBytes).toBe(all.length);
            expect(window.truncated).toBe(all.length > cap);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
  it('keeps no chunk it was given, and a copy it gave is not changed by later output', () => {
    const window = new OutputWindow(8);
    const given = Buffer.from('abcdefgh');
    window.append(given);
    given.fill(0);
    const before = window.bytes();
    window.append(Buffer.from('XYZ'));
    expect(before.toString()).toBe('abcdefgh');
    expect(window.bytes().toString()).toBe('defghXYZ');
  });
});

describe('terminal text', () => {
  it('resolves colours, redraws and line erases', async () => {
    expect(await renderTerminalText(Buffer.from('a\x1b[1;32mb\x1b[0mc\r\nx 1%\rx 99%\r\n\x1b[2Kdone'))).toBe(
      'abc\nx 99%\ndone',
    );
  });
  it('handles a sequence or a character split at any byte between two writes', async () => {
    const bytes = Buffer.from('é \x1b[31mred\x1b[0m ✓\r\n');
    for (let cut = 0; cut <= bytes.length; cut++) {
      const window = new OutputWindow(1024);
      window.append(bytes.subarray(0, cut));
      window.append(bytes.subarray(cut));
      expect(await renderTerminalText(window.bytes())).toBe('é red ✓');
    }
  });
  it('starts a truncated window at a line boundary', async () => {
    expect(await renderTerminalText(Buffer.from('1m partial\r\nwhole line\r\n'), { truncated: true })).toBe(
      'whole line',
    );
  });
  it('joins lines the terminal wrapped, however long', async () => {
    expect(await renderTerminalText(Buffer.from('x'.repeat(250) + '\r\n'), { cols: 100 })).toBe('x'.repeat(250));
    for (const width of [159, 160, 161, 20_000]) {
      expect(await renderTerminalText(Buffer.from(`${'a'.repeat(width)}\r\nb\r\n`))).toBe(`${'a'.repeat(width)}\nb`);
    }
  });
});

describe('task rows', () => {
  const record = (patch: Partial<TaskRecord> = {}): TaskRecord => ({
    id: 'bg_1',
    seq: 1,
    sessionId: 's',
    kind: 'command',
    command: 'c',
    cwd: '/',
    status: 'running',
    exitCode: null,
    signal: null,
    exitNote: null,
    error: null,
    pid: 42,
    pgid: 42,
    processStart: '1',
    bootId: 'b',
    runId: 'run-a',
    queuedAt: 0,
    startedAt: 1_000,
    endedAt: null,
    seenAt: null,
    logNote: null,
    expectedSeconds: 10,
    timeoutSeconds: 60,
    notify: false,
    adopted: false,
    foreground: false,
    tty: true,
    sandboxed: false,
    sandboxRefusals: [],
    logPath: '/l',
    mark: null,
    containment: 'group',
    containmentNote: null,
    cgroup: null,
    members: [],
    notifyMode: null,
    checkAfterSeconds: null,
    pingedAt: null,
    eventOffset: 0,
    readyCheck: null,
    readyAt: null,
    notifyReady: false,
    workItem: null,
    ownerTaskId: null,
    agentInfo: null,
    ...patch,
  });
  const context = { now: 100_000, runId: 'run-a', lastOutputAt: 90_000, silentAfterMs: 60_000 };

  it('derives orphaned only for unsettled records of another run', () => {
    expect(derivedStatus(record(), 'run-b')).toBe('orphaned');
    expect(derivedStatus(record({ status: 'queued' }), 'run-b')).toBe('orphaned');
    expect(derivedStatus(record({ status: 'failed' }), 'run-b')).toBe('failed');
    expect(derivedStatus(record(), 'run-a')).toBe('running');
  });
  it('computes elapsed, overdue and silence on the server', () => {
    const row = toTaskRow(record(), context);
    expect(row).toMatchObject({ elapsedSeconds: 99, overdue: true, running: true, silentForSeconds: null });
    expect(toTaskRow(record(), { ...context, lastOutputAt: 20_000 }).silentForSeconds).toBe(80);
    expect(toTaskRow(record({ status: 'succeeded', endedAt: 5_000 }), context)).toMatchObject({
      elapsedSeconds: 4,
      overdue: false,
      running: false,
    });
  });
  it('keeps private identity out of the row', () => {
    const row = toTaskRow(record(), context) as Record<string, unknown>;
    for (const key of ['processStart', 'bootId', 'runId', 'pgid', 'seq']) expect(row).not.toHaveProperty(key);
  });
});
