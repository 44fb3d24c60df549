/**
 * `npx tsx bench/cpuprofile-top.ts <file.cpuprofile> [count]`: the functions that took the most
 * CPU time themselves (self time), with where they are, from a V8 profile such as the lag bench
 * writes with `LAG_CPU_PROF=<dir>`. Lines are 1-based, in the file the profile names (the built
 * bundle for the built host).
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  fn: string;
  where: string;
  ms: number;
  share: number;
}

/** Sums each sample's interval into the function it landed in, merging a function's many tree nodes. */
export function selfTimes(profile: Profile): SelfTime[] {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, { fn: string; where: string; us: number }>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0; // a sample's time is the gap to the next one
    const frame = byNode.get(id)!.callFrame;
    const where = frame.url ? `${frame.url.replace(/^file:\/\//, '')}:${frame.lineNumber + 1}` : '';
    const key = `${frame.functionName}@${where}`;
    const entry = totals.get(key) ?? { fn: frame.functionName || '(anonymous)', where, us: 0 };
    entry.us += us;
    totals.set(key, entry);
    all += us;
  });
  return [...totals.values()]
    .sort((a, b) => b.us - a.us)
    .map((t) => ({ fn: t.fn, where: t.where, ms: t.us / 1000, share: all > 0 ? t.us / all : 0 }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, count = '30'] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/cpuprofile-top.ts <file.cpuprofile> [count]');
  for (const t of selfTimes(JSON.parse(readFileSync(file, 'utf8')) as Profile).slice(0, Number(count))) {
    console.log(`${(t.share * 100).toFixed(1).padStart(5)} %  ${t.ms.toFixed(0).padStart(7)} ms  ${t.fn}  ${t.where}`);
  }
}
