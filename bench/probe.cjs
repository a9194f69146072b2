// Preloaded (--require) into every Node process the bench times, floor included: at exit it
// reports the process's own CPU time and peak resident memory on fd 3, a pipe the bench opens.
// CPU time moves far less than wall time when other work shares the machine. Peak memory is
// VmHWM, the high-water mark of this process's own memory: ru_maxrss would also count the
// spawning parent's memory, which a child inherits the record of across fork and exec.
const { readFileSync, writeSync } = require('node:fs');

function peakResidentKb() {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]);
  } catch {
    // No procfs: fall back to ru_maxrss below.
  }
  return process.resourceUsage().maxRSS;
}

process.on('exit', () => {
  const usage = process.resourceUsage();
  try {
    writeSync(3, JSON.stringify({ cpu_ms: (usage.userCPUTime + usage.systemCPUTime) / 1000, max_rss_kb: peakResidentKb() }));
  } catch {
    // Run outside the bench (no fd 3): nothing to report to.
  }
});
