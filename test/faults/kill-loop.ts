/**
 * The kill -9 loop: the host is started on one data folder again and again, given a burst of
 * writes through REST, and killed with SIGKILL after a seeded number of acknowledgements.
 * After each kill the database is read behind the host's back: every row the host answered 2xx
 * for must be there, and `PRAGMA integrity_check` must say ok. Shared by the loop in `npm test`
 * and `npm run soak`.
 */
import { newRunMark, readStore, seeded, startHost, strays, type FaultHost } from './fault-kit.js';

export interface LoopFigures {
  seed: number;
  iterations: number;
  acknowledged: number;
  found: number;
  lost: string[];
  integrityFailures: string[];
  strays: number[];
  /** Requests cut off by the kill (sent, never answered): proof the kills landed mid-burst. */
  cutOff: number;
  /** Answers other than 2xx while the host was alive (each is a finding). */
  refused: string[];
}

const COMMANDS = [
  "printf 'line %s\\n' 1 2 3",
  'sleep 0.1',
  "printf 'a\\rb\\n'; exit 3",
  'true',
  "printf '\\033[1mbold\\033[0m\\n'",
];
const CONCURRENCY = 3;

interface Ledger {
  sessions: Set<string>;
  tasks: Set<string>;
  /** Per session: titles sent in order; the index of the last acknowledged one. */
  titles: Map<string, { sent: string[]; acked: number }>;
}

export async function runKillLoop(options: {
  dataDir: string;
  iterations: number;
  seed: number;
  log?: (line: string) => void;
}): Promise<LoopFigures> {
  const random = seeded(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const ledger: Ledger = { sessions: new Set(), tasks: new Set(), titles: new Map() };
  const runMark = newRunMark();
  const figures: LoopFigures = {
    seed: options.seed,
    iterations: 0,
    acknowledged: 0,
    found: 0,
    lost: [],
    integrityFailures: [],
    strays: [],
    cutOff: 0,
    refused: [],
  };
  let titleCounter = 0;

  const burst = async (host: FaultHost, iteration: number) => {
    const size = 6 + Math.floor(random() * 10);
    const killAfter = Math.floor(random() * size);
    const extraDelay = Math.floor(random() * 25);
    const plan = Array.from({ length: size }, () => random());
    let acks = 0;
    let killed = false;
    let renaming: Promise<void> = Promise.resolve();
    const kill = () => {
      if (killed) return;
      killed = true;
      setTimeout(() => host.child.kill('SIGKILL'), extraDelay);
    };
    const acknowledged = () => {
      if (++acks >= killAfter) kill();
    };
    const send = async (method: string, path: string, body: unknown): Promise<any | null> => {
      try {
        const answer = await host.call(method, path, body);
        if (answer.status >= 200 && answer.status < 300) return answer.body;
        if (host.alive()) figures.refused.push(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
        return null;
      } catch {
        figures.cutOff++;
        return null;
      }
    };
    const run = async (roll: number) => {
      const sessions = [...ledger.sessions];
      if (sessions.length === 0 || roll < 0.15) {
        const created = await send('POST', '/sessions', { title: `loop ${iteration}` });
        if (created) {
          ledger.sessions.add(created.id);
          ledger.titles.set(created.id, { sent: [created.title], acked: 0 });
          acknowledged();
        }
        return;
      }
      const session = pick(sessions);
      if (roll < 0.3) {
        // One rename at a time, so the order they commit in is the order they were sent in.
        const title = `renamed ${++titleCounter}`;
        const entry = ledger.titles.get(session)!;
        const turn = renaming.then(async () => {
          if (killed) return;
          entry.sent.push(title);
          const index = entry.sent.length - 1;
          if (await send('PATCH', `/sessions/${session}`, { title })) {
            entry.acked = Math.max(entry.acked, index);
            acknowledged();
          }
        });
        renaming = turn;
        return turn;
      }
      const shell = roll > 0.8;
      const task = shell
        ? await send('POST', `/sessions/${session}/shell`, { command: pick(COMMANDS), background: random() < 0.5 })
        : await send('POST', `/sessions/${session}/background-tasks`, { command: pick(COMMANDS) });
      if (task) {
        ledger.tasks.add(`${session}/${task.id}`);
        acknowledged();
      }
    };
    let next = 0;
    const worker = async () => {
      while (!killed && next < plan.length) await run(plan[next++]!);
    };
    if (killAfter === 0) kill();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    kill();
    await host.exited;
  };

  const missing = new Map<string, number>();
  const check = (iteration: number) => {
    const stored = readStore(options.dataDir);
    if (stored.integrity !== 'ok') figures.integrityFailures.push(`after kill ${iteration}: ${stored.integrity}`);
    const lost: string[] = [];
    for (const id of ledger.sessions) if (!stored.sessions.has(id)) lost.push(`session ${id}`);
    for (const key of ledger.tasks) if (!stored.tasks.has(key)) lost.push(`task ${key}`);
    for (const [id, { sent, acked }] of ledger.titles) {
      const title = stored.sessions.get(id);
      // The last acknowledged title, or one sent after it whose answer the kill cut off.
      if (title !== undefined && !sent.slice(acked).includes(title))
        lost.push(`title of ${id}: ${JSON.stringify(title)} instead of ${JSON.stringify(sent[acked])}`);
    }
    figures.acknowledged = ledger.sessions.size + ledger.tasks.size + ledger.titles.size;
    figures.found = figures.acknowledged - lost.length;
    for (const entry of lost) if (!missing.has(entry)) missing.set(entry, iteration);
    figures.lost = [...missing].map(([entry, first]) => `${entry} (missing after kill ${first})`);
  };

  try {
    for (let iteration = 1; iteration <= options.iterations; iteration++) {
      const host = await startHost(options.dataDir, runMark);
      await burst(host, iteration);
      check(iteration);
      figures.iterations = iteration;
      if (iteration % 50 === 0)
        options.log?.(`${iteration} kills: ${figures.acknowledged} rows acknowledged, ${figures.lost.length} lost`);
    }
    // The last word goes to the host itself: restarted, it lists every acknowledged row, then stops cleanly.
    const host = await startHost(options.dataDir, runMark);
    try {
      const listed = (await host.call('GET', '/sessions')).body as { sessions: { id: string }[] } | { id: string }[];
      const ids = new Set((Array.isArray(listed) ? listed : listed.sessions).map((s) => s.id));
      for (const id of ledger.sessions)
        if (!ids.has(id)) missing.set(`session ${id}, not listed by the restarted host`, options.iterations + 1);
    } finally {
      await host.stop('SIGTERM');
    }
    check(options.iterations + 1);
  } finally {
    figures.strays = await strays(runMark, readStore(options.dataDir).instanceId);
  }
  return figures;
}
