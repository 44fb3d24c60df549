import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ratioFigure, recordFigure, resetReport } from '../bench/report.js';
import { tempDir } from './helpers.js';

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { figures: Record<string, unknown>[] };

describe('the bench report', () => {
  it('gathers figures by name across benches, replacing a figure measured again, rounded', () => {
    const file = join(tempDir(), 'reports', 'bench.json');
    resetReport(file);
    expect(read(file)).toEqual({ figures: [] });
    recordFigure(
      ratioFigure('ingest', 30, 'MB/s', 60, 'ratio >= 0.50', (r) => r >= 0.5),
      file,
    );
    recordFigure(
      { name: 'list', value: 0.66666, unit: 'ms', baseline: null, ratio: null, target: '< 10 ms', met: true },
      file,
    );
    recordFigure(
      ratioFigure('ingest', 20, 'MB/s', 60, 'ratio >= 0.50', (r) => r >= 0.5),
      file,
    );
    expect(read(file).figures).toEqual([
      { name: 'list', value: 0.667, unit: 'ms', baseline: null, ratio: null, target: '< 10 ms', met: true },
      { name: 'ingest', value: 20, unit: 'MB/s', baseline: 60, ratio: 0.333, target: 'ratio >= 0.50', met: false },
    ]);
  });

  it('starts over from a damaged file instead of failing the bench', () => {
    const file = join(tempDir(), 'bench.json');
    writeFileSync(file, '{ not json');
    recordFigure(
      ratioFigure('spawn', 3, 'ms', 2, 'ratio < 1.50', (r) => r < 1.5),
      file,
    );
    expect(read(file).figures).toEqual([
      { name: 'spawn', value: 3, unit: 'ms', baseline: 2, ratio: 1.5, target: 'ratio < 1.50', met: false },
    ]);
  });
});
