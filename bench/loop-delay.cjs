// Preloaded (--require) into the `server run` the server bench drives: measures how long the
// server's event loop is held up (perf_hooks monitorEventLoopDelay, 10 ms resolution). Each
// SIGUSR2 writes what was measured since the previous one (p99 and max, in ms, and a sequence
// number) to the file named by BENCH_LOOP_DELAY_FILE, then starts measuring afresh: the bench
// signals as a step's window opens and as it closes.
const { writeFileSync } = require('node:fs');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
let sequence = 0;
process.on('SIGUSR2', () => {
  sequence += 1;
  const ms = (nanoseconds) => Math.round(nanoseconds / 1e5) / 10;
  const report = { sequence, p99_ms: ms(histogram.percentile(99)), max_ms: ms(histogram.max) };
  histogram.reset();
  if (process.env.BENCH_LOOP_DELAY_FILE) writeFileSync(process.env.BENCH_LOOP_DELAY_FILE, JSON.stringify(report));
});
