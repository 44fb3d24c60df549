import { afterEach, describe, expect, it, vi } from 'vitest';
import { PortIndex, type PortIndexOptions } from '../../electron/pool/port-index.js';
import type { ListeningSocket, ScanSteps } from '../../electron/process/listening-ports.js';
import { exited, killChildren, serverScript, startNode } from '../process/child-lines.js';

afterEach(() => {
  killChildren();
  vi.restoreAllMocks();
});

/** Intervals that run only when the test says time passed: nothing sleeps. */
class FakeClock {
  readonly #intervals = new Map<number, { fn: () => void; ms: number; due: number }>();
  #next = 1;
  #now = 0;
  readonly cleared: number[] = [];

  readonly timers = {
    setInterval: (fn: () => void, ms: number): unknown => {
      const handle = this.#next++;
      this.#intervals.set(handle, { fn, ms, due: this.#now + ms });
      return handle;
    },
    clearInterval: (handle: unknown): void => {
      this.cleared.push(handle as number);
      this.#intervals.delete(handle as number);
    },
  };

  get pending(): number {
    return this.#intervals.size;
  }

  periodOf(handle: number): number | undefined {
    return this.#intervals.get(handle)?.ms;
  }

  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#intervals.values()].sort((a, b) => a.due - b.due)[0];
      if (!due || due.due > end) break;
      this.#now = due.due;
      due.due += due.ms;
      due.fn();
    }
    this.#now = end;
  }
}

/** A scan that answers `found` after `steps` steps. */
function* steps(found: ListeningSocket[] | null, count = 0): ScanSteps {
  for (let i = 0; i < count; i++) yield;
  return found;
}

/** Lets the event loop turn `times` times (a sliced scan goes on at each). */
async function turns(times: number): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((done) => setImmediate(done));
}

/** A scanner answering from a table the test edits, recording what it was asked. */
function fakeScanner(): {
  answer: ListeningSocket[] | null | Error;
  calls: number[][];
  steps: number;
  scan: NonNullable<PortIndexOptions['scan']>;
} {
  const fake = {
    answer: [] as ListeningSocket[] | null | Error,
    calls: [] as number[][],
    /** Steps each scan takes before it answers (a timed scan lets other work in between). */
    steps: 0,
    scan: (pids: readonly number[]): ScanSteps => {
      fake.calls.push([...pids]);
      if (fake.answer instanceof Error) throw fake.answer;
      return steps(fake.answer === null ? null : fake.answer.filter((socket) => pids.includes(socket.pid)), fake.steps);
    },
  };
  return fake;
}

/** An index over a fake scanner and fake clock, its processes and change reports in plain view. */
function harness(processes: Record<string, number[]> = {}, sliceMs?: number) {
  const scanner = fakeScanner();
  const clock = new FakeClock();
  const changes: string[][] = [];
  const state = { processes: new Map(Object.entries(processes)) as Map<string, number[]> | Error };
  const index = new PortIndex({
    processes: () => {
      if (state.processes instanceof Error) throw state.processes;
      return state.processes;
    },
    onChange: (ids) => changes.push(ids),
    scan: scanner.scan,
    timers: clock.timers,
    intervalMs: 500,
    ...(sliceMs === undefined ? {} : { sliceMs }),
  });
  scanner.calls.length = 0; // the constructor's probe of no pids
  return { index, scanner, clock, changes, state };
}

describe.runIf(process.platform === 'linux')('PortIndex over the real scanner', () => {
  it("finds each task's real servers, owners and entries, and forgets a server that ended", async () => {
    const a = await startNode(serverScript('127.0.0.1'));
    const b = await startNode(serverScript('127.0.0.1'));
    const idle = await startNode("console.log('up'); setInterval(() => {}, 1e9);");
    const [portA, portB] = [Number(a.line), Number(b.line)];
    const changes: string[][] = [];
    const index = new PortIndex({
      processes: () =>
        new Map([
          ['bg_2', [b.child.pid!, idle.child.pid!]],
          ['bg_1', [a.child.pid!]],
          ['bg_3', [idle.child.pid!]],
        ]),
      onChange: (ids) => changes.push(ids),
    });
    expect(index.supported).toBe(true);
    expect(index.portsOf('bg_1')).toEqual([]);

    index.refresh();
    expect(changes).toEqual([['bg_1', 'bg_2']]);
    expect(index.portsOf('bg_1')).toEqual([portA]);
    expect(index.portsOf('bg_2')).toEqual([portB]);
    expect(index.portsOf('bg_3')).toEqual([]);
    expect(index.entries()).toEqual(
      [
        { port: portA, pid: a.child.pid, taskId: 'bg_1' },
        { port: portB, pid: b.child.pid, taskId: 'bg_2' },
      ].sort((x, y) => x.port - y.port),
    );
    expect(index.ownerOf(portA)).toEqual({ taskId: 'bg_1', pid: a.child.pid });
    expect(index.ownerOf(portB)).toEqual({ taskId: 'bg_2', pid: b.child.pid });

    index.refresh(); // nothing changed: nothing reported
    expect(changes).toHaveLength(1);

    a.child.kill('SIGKILL');
    await exited(a.child);
    index.refresh();
    expect(changes).toEqual([['bg_1', 'bg_2'], ['bg_1']]);
    expect(index.portsOf('bg_1')).toEqual([]);
    expect(index.ownerOf(portA)).toBeNull();
    expect(index.portsOf('bg_2')).toEqual([portB]);
    index.dispose();
  });
});

describe('PortIndex', () => {
  it('reports a task only when its set of ports changes', () => {
    const { index, scanner, changes } = harness({ bg_1: [10, 11], bg_2: [20] });
    scanner.answer = [{ port: 3000, pid: 10 }];
    index.refresh();
    expect(changes).toEqual([['bg_1']]);
    expect(scanner.calls).toEqual([[10, 11, 20]]);

    index.refresh();
    scanner.answer = [{ port: 3000, pid: 11 }]; // another of its processes now holds it: same ports
    index.refresh();
    expect(changes).toEqual([['bg_1']]);
    expect(index.ownerOf(3000)).toEqual({ taskId: 'bg_1', pid: 11 });

    scanner.answer = [
      { port: 3000, pid: 11 },
      { port: 3000, pid: 10 },
      { port: 2000, pid: 10 },
      { port: 4000, pid: 20 },
    ];
    index.refresh();
    expect(changes).toEqual([['bg_1'], ['bg_1', 'bg_2']]);
    expect(index.portsOf('bg_1')).toEqual([2000, 3000]);
    expect(index.portsOf('bg_2')).toEqual([4000]);
    expect(index.entries()).toEqual([
      { port: 2000, pid: 10, taskId: 'bg_1' },
      { port: 3000, pid: 10, taskId: 'bg_1' },
      { port: 3000, pid: 11, taskId: 'bg_1' },
      { port: 4000, pid: 20, taskId: 'bg_2' },
    ]);
    expect(index.ownerOf(3000)).toEqual({ taskId: 'bg_1', pid: 10 });
    expect(index.ownerOf(5000)).toBeNull();

    scanner.answer = [{ port: 4000, pid: 20 }];
    index.refresh();
    expect(changes.at(-1)).toEqual(['bg_1']);
    expect(index.portsOf('bg_1')).toEqual([]);
    expect(index.portsOf('unknown')).toEqual([]);
  });

  it('takes ports away from a task that left the processes, and reports it', () => {
    const { index, scanner, changes, state } = harness({ bg_1: [10], bg_2: [20] });
    scanner.answer = [
      { port: 3000, pid: 10 },
      { port: 4000, pid: 20 },
    ];
    index.refresh();
    state.processes = new Map([['bg_2', [20]]]);
    index.refresh();
    expect(changes).toEqual([['bg_1', 'bg_2'], ['bg_1']]);
    expect(index.portsOf('bg_1')).toEqual([]);
    expect(index.ownerOf(3000)).toBeNull();
    expect(scanner.calls.at(-1)).toEqual([20]);
  });

  it('keeps the last answer when the processes or the scan cannot be read', () => {
    const { index, scanner, changes, state } = harness({ bg_1: [10] });
    scanner.answer = [{ port: 3000, pid: 10 }];
    index.refresh();

    state.processes = new Error('the mark scan failed');
    index.refresh();
    expect(index.portsOf('bg_1')).toEqual([3000]);

    state.processes = new Map([['bg_1', [10]]]);
    scanner.answer = new Error('EMFILE');
    index.refresh();
    expect(index.portsOf('bg_1')).toEqual([3000]);
    expect(index.supported).toBe(true);
    expect(changes).toEqual([['bg_1']]);
  });

  it('shows no ports where the scanner cannot look', () => {
    const unsupported = new PortIndex({
      processes: () => new Map([['bg_1', [10]]]),
      onChange: () => {},
      scan: () => steps(null),
    });
    expect(unsupported.supported).toBe(false);
    unsupported.refresh();
    expect(unsupported.portsOf('bg_1')).toEqual([]);
    expect(unsupported.entries()).toEqual([]);

    const { index, scanner, changes } = harness({ bg_1: [10] });
    expect(index.supported).toBe(true);
    scanner.answer = [{ port: 3000, pid: 10 }];
    index.refresh();
    scanner.answer = null;
    index.refresh();
    expect(index.supported).toBe(false);
    expect(index.portsOf('bg_1')).toEqual([]);
    expect(changes).toEqual([['bg_1'], ['bg_1']]);
  });

  it('forgets an ended task, reporting it only if it had ports', () => {
    const { index, scanner, changes } = harness({ bg_1: [10], bg_2: [20] });
    scanner.answer = [{ port: 3000, pid: 10 }];
    index.refresh();
    index.taskEnded('bg_1');
    expect(changes).toEqual([['bg_1'], ['bg_1']]);
    expect(index.portsOf('bg_1')).toEqual([]);
    expect(index.ownerOf(3000)).toBeNull();
    index.taskEnded('bg_2');
    index.taskEnded('bg_1');
    expect(changes).toHaveLength(2);
  });

  it('runs a timed scan in slices, with the event loop turning between them, and starts no second one meanwhile', async () => {
    const { index, scanner, clock, changes } = harness({ bg_1: [10] }, 0);
    scanner.answer = [{ port: 3000, pid: 10 }];
    scanner.steps = 5;
    index.setActive(true);
    clock.advance(500);
    expect(scanner.calls).toHaveLength(1);
    expect(index.portsOf('bg_1')).toEqual([]); // one step per slice: not done yet
    clock.advance(500); // the next tick finds it under way
    expect(scanner.calls).toHaveLength(1);
    await turns(3);
    expect(index.portsOf('bg_1')).toEqual([]);
    await turns(3);
    expect(index.portsOf('bg_1')).toEqual([3000]);
    expect(changes).toEqual([['bg_1']]);
    clock.advance(500); // done: the next tick scans again
    expect(scanner.calls).toHaveLength(2);
    index.dispose();
    await turns(6);
    expect(index.entries()).toEqual([]); // disposed mid-scan: nothing comes back
  });

  it('a timed scan runs whole within its slice when it is short, as before', () => {
    const { index, scanner, clock } = harness({ bg_1: [10] }, 1_000);
    scanner.answer = [{ port: 3000, pid: 10 }];
    scanner.steps = 5;
    index.setActive(true);
    clock.advance(500);
    expect(index.portsOf('bg_1')).toEqual([3000]);
    index.dispose();
  });

  it('drops a timed scan that a refresh or an ended task overtook', async () => {
    const { index, scanner, clock } = harness({ bg_1: [10], bg_2: [20] }, 0);
    scanner.steps = 3;
    scanner.answer = [{ port: 3000, pid: 10 }];
    index.setActive(true);
    clock.advance(500); // begun with port 3000
    scanner.steps = 0;
    scanner.answer = [{ port: 4000, pid: 20 }];
    index.refresh();
    expect(index.entries()).toEqual([{ port: 4000, pid: 20, taskId: 'bg_2' }]);
    await turns(5);
    expect(index.entries()).toEqual([{ port: 4000, pid: 20, taskId: 'bg_2' }]); // the older answer was dropped

    scanner.steps = 3;
    scanner.answer = [
      { port: 3000, pid: 10 },
      { port: 4000, pid: 20 },
    ];
    clock.advance(500); // begun with bg_2 still running
    index.taskEnded('bg_2');
    await turns(5);
    expect(index.portsOf('bg_2')).toEqual([]); // not brought back by the scan that named it
    expect(index.portsOf('bg_1')).toEqual([]);
    clock.advance(500); // the next one answers
    await turns(5);
    expect(index.portsOf('bg_1')).toEqual([3000]);
    index.dispose();
  });

  it('a timed scan whose step throws keeps the last answer and lets the next tick scan', async () => {
    const { index, scanner, clock } = harness({ bg_1: [10] }, 0);
    scanner.answer = [{ port: 3000, pid: 10 }];
    index.refresh();
    const failing = function* (): ScanSteps {
      yield;
      throw new Error('/proc went away');
    };
    const real = scanner.scan;
    scanner.scan = () => failing();
    index.setActive(true);
    clock.advance(500);
    await turns(3);
    expect(index.portsOf('bg_1')).toEqual([3000]);
    scanner.scan = real;
    index.dispose();
  });

  it('scans every interval while active, and not at all once inactive', () => {
    const { index, scanner, clock, changes } = harness({ bg_1: [10] });
    clock.advance(5_000);
    expect(scanner.calls).toHaveLength(0); // inactive from the start

    index.setActive(true);
    index.setActive(true); // already on: still one timer
    expect(index.active).toBe(true);
    expect(clock.pending).toBe(1);
    expect(clock.periodOf(1)).toBe(500);
    expect(scanner.calls).toHaveLength(0); // the first scan comes one interval later

    clock.advance(499);
    expect(scanner.calls).toHaveLength(0);
    clock.advance(1);
    expect(scanner.calls).toHaveLength(1);
    scanner.answer = [{ port: 3000, pid: 10 }];
    clock.advance(1_000);
    expect(scanner.calls).toHaveLength(3);
    expect(changes).toEqual([['bg_1']]);

    index.setActive(false);
    expect(index.active).toBe(false);
    expect(clock.cleared).toEqual([1]);
    expect(clock.pending).toBe(0);
    clock.advance(10_000);
    expect(scanner.calls).toHaveLength(3);
    expect(index.portsOf('bg_1')).toEqual([3000]); // off keeps what is known

    index.setActive(true);
    clock.advance(500);
    expect(scanner.calls).toHaveLength(4);
    index.dispose();
  });

  it('a failing onChange on a timer is logged, never thrown into the event loop', () => {
    const clock = new FakeClock();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const index = new PortIndex({
      processes: () => new Map([['bg_1', [10]]]),
      onChange: () => {
        throw new Error('the page is gone');
      },
      scan: () => steps([{ port: 3000, pid: 10 }]),
      timers: clock.timers,
    });
    index.setActive(true);
    expect(() => clock.advance(2_000)).not.toThrow();
    expect(logged).toHaveBeenCalledTimes(1);
    expect(index.portsOf('bg_1')).toEqual([3000]); // the scan itself was kept
    index.dispose();
  });

  it('dispose stops the timer, forgets everything and makes later calls do nothing', () => {
    const { index, scanner, clock, changes } = harness({ bg_1: [10] });
    scanner.answer = [{ port: 3000, pid: 10 }];
    index.setActive(true);
    clock.advance(500);
    expect(index.portsOf('bg_1')).toEqual([3000]);

    index.dispose();
    expect(clock.pending).toBe(0);
    expect(index.portsOf('bg_1')).toEqual([]);
    expect(index.entries()).toEqual([]);
    index.refresh();
    index.setActive(true);
    index.taskEnded('bg_1');
    clock.advance(5_000);
    expect(clock.pending).toBe(0);
    expect(scanner.calls).toHaveLength(1);
    expect(changes).toEqual([['bg_1']]);
    index.dispose(); // twice is fine
  });

  it('with the global timers, the interval never keeps Node alive', () => {
    const started = vi.spyOn(globalThis, 'setInterval');
    const index = new PortIndex({ processes: () => new Map(), onChange: () => {}, scan: () => steps([]) });
    index.setActive(true);
    expect(started).toHaveBeenCalledTimes(1);
    expect(started.mock.calls[0]![1]).toBe(2_000);
    const handle = started.mock.results[0]!.value as NodeJS.Timeout;
    expect(handle.hasRef()).toBe(false);
    const stopped = vi.spyOn(globalThis, 'clearInterval');
    index.dispose();
    expect(stopped).toHaveBeenCalledWith(handle);
  });
});
