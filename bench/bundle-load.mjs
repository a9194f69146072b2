// `node bench/bundle-load.mjs [--runs N] BUNDLE...`: what loading a CLI bundle costs a command
// line before its command runs. Each bundle is loaded as dist/taskdag.js loads it (read, compiled
// with the V8 code cache beside it, its modules initialised) in N fresh Node processes (default
// 21), the bundles taking turns, and the median milliseconds of each are printed. It compares
// builds to an accuracy that timing whole processes cannot reach on a shared machine (issue 8 in
// BENCHMARKS.md), e.g. `node bench/bundle-load.mjs dist/taskdag-cli.js ../other/dist/taskdag-cli.js`.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const { values: options, positionals: bundles } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: 'string', default: '21' }, child: { type: 'boolean', default: false } },
});

if (options.child) {
  const { loadWithCodeCache } = require('../build/entrypoints/cli/code-cache.js');
  const started = process.hrtime.bigint();
  const { script } = loadWithCodeCache(path.resolve(bundles[0]), require);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  process.stdout.write(JSON.stringify({ ms, cacheRejected: script.cachedDataRejected === true }));
} else {
  const runs = Number(options.runs);
  if (!Number.isInteger(runs) || runs < 1 || bundles.length === 0) throw new Error('usage: node bench/bundle-load.mjs [--runs N] BUNDLE...');
  const times = bundles.map(() => []);
  for (let run = 0; run < runs; run++) {
    bundles.forEach((bundle, index) => {
      const child = JSON.parse(execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--child', bundle], { encoding: 'utf8' }));
      if (child.cacheRejected) throw new Error(`${bundle}: V8 rejected its code cache`);
      times[index].push(child.ms);
    });
  }
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  bundles.forEach((bundle, index) => console.log(`${median(times[index]).toFixed(2).padStart(7)} ms  ${bundle}`));
}
