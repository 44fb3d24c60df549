/**
 * One chatty task of the lag bench: `node lag-printer.mjs <long|short|progress> <seconds> <n>`
 * prints without pause for the given seconds, then exits on its own (so nothing outlives a bench
 * that crashed). Rates are per task; the bench starts many at once.
 *   long:     a 2-4 KB line every 20 ms (a compiler dumping a long command line or a stack trace)
 *   short:    10 short lines every 10 ms (a test runner naming each test)
 *   progress: a `\r` redraw of a progress bar every 10 ms, a newline every 100 redraws (npm, curl)
 */
const [kind = 'short', seconds = '20', n = '0'] = process.argv.slice(2);
const endAt = Date.now() + Number(seconds) * 1000;
const task = Number(n);
let count = 0;

const ticks = {
  long: [20, () => `${task}:${count} ${'x'.repeat(2048 + ((count * 997 + task * 131) % 2048))}\n`],
  short: [
    10,
    () =>
      Array.from({ length: 10 }, (_, i) => `  ok ${count * 10 + i} task ${task} compiles module ${i}.js\n`).join(''),
  ],
  progress: [
    10,
    () => {
      const done = count % 100;
      const bar = '#'.repeat(done / 5).padEnd(20, ' ');
      return `\r[${bar}] ${String(done).padStart(3)}% ${count}/${count + 100 - done} eta ${100 - done}s${done === 99 ? '\n' : ''}`;
    },
  ],
};
const [everyMs, line] = ticks[kind] ?? ticks.short;

const timer = setInterval(() => {
  if (Date.now() >= endAt) {
    clearInterval(timer);
    process.stdout.write('\ndone\n');
    return;
  }
  process.stdout.write(line());
  count += 1;
}, everyMs);
