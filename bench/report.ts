import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** One measured figure, as `.reports/bench.json` keeps it. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** What the same run measured to compare with (null for an absolute target). */
  baseline: number | null;
  /** value / baseline (null without a baseline). */
  ratio: number | null;
  /** The goal in words: "ratio >= 0.50", "< 10 ms". */
  target: string;
  met: boolean;
}

export const REPORT_FILE = resolve('.reports', 'bench.json');

function read(file: string): Figure[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { figures?: unknown };
    return Array.isArray(parsed.figures) ? (parsed.figures as Figure[]) : [];
  } catch {
    return [];
  }
}

/**
 * Adds a figure to the report, replacing one of the same name. Each bench runs as its own
 * process, so the file gathers what they measure; `npm run bench` starts it empty.
 */
export function recordFigure(figure: Figure, file = REPORT_FILE): void {
  const figures = read(file).filter((kept) => kept.name !== figure.name);
  figures.push({
    ...figure,
    value: round(figure.value),
    baseline: figure.baseline === null ? null : round(figure.baseline),
    ratio: figure.ratio === null ? null : round(figure.ratio),
  });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ figures }, null, 2)}\n`);
}

/** A figure measured against a baseline of the same run: the ratio and whether it meets `ok`. */
export function ratioFigure(
  name: string,
  value: number,
  unit: string,
  baseline: number,
  target: string,
  ok: (ratio: number) => boolean,
): Figure {
  const ratio = baseline > 0 ? value / baseline : Number.POSITIVE_INFINITY;
  return { name, value, unit, baseline, ratio, target, met: ok(ratio) };
}

/** Starts the report empty (the first step of `npm run bench`). */
export function resetReport(file = REPORT_FILE): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ figures: [] }, null, 2)}\n`);
}

function round(value: number): number {
  return Number.isFinite(value) ? Math.round(value * 1000) / 1000 : value;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && process.argv[2] === 'reset') resetReport();
