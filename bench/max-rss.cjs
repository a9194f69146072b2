// Preloaded into a Node child when GNU time is missing: writes the child's peak RSS (KiB) at exit.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  try {
    writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS));
  } catch {
    // The bench reports memory as unknown.
  }
});
