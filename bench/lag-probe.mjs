/**
 * Loaded into the host by the lag bench (`node --import bench/lag-probe.mjs out/main/host.js`), so
 * the host's own event loop is measured from inside without a line of bench code in the product.
 * Plain JavaScript: the built host runs on bare Node, without tsx.
 *
 * With `DROVER_REPORT_LAG=<file>` set, each SIGUSR2 writes what the event loop did since the last
 * one (or since start) to the file and starts afresh; the bench signals at each phase boundary.
 * `seq` grows with every report, so the bench knows the file it reads is the one it asked for.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The probe timer's period. A histogram value is the time between two of its runs, so the lag is that less this. */
export const RESOLUTION_MS = 5;

const file = process.env.DROVER_REPORT_LAG;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let seq = 0;
  const lagMs = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  process.on('SIGUSR2', () => {
    seq += 1;
    const report = {
      seq,
      resolutionMs: RESOLUTION_MS,
      samples: histogram.count,
      p50: lagMs(histogram.percentile(50)),
      p99: lagMs(histogram.percentile(99)),
      max: lagMs(histogram.max),
      mean: lagMs(histogram.mean),
      // Where the host's memory is, when RSS moves: V8's heap, or buffers outside it.
      memory: process.memoryUsage(),
    };
    histogram.reset();
    // Written whole and renamed into place, so a reader never sees half a report.
    writeFileSync(`${file}.tmp`, JSON.stringify(report));
    renameSync(`${file}.tmp`, file);
  });
}
