// `npm run bench`: the CLI bench (bench/run.mjs), then the server bench (bench/server-load.mjs),
// each given the options it takes. --quick and --publish go to both; --runs and --cli to the CLI
// bench; --seconds, --sizes, --agents and --all-stale to the server bench. An option neither
// takes fails before anything runs.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

const BENCHES = [
  { script: 'run.mjs', takes: ['quick', 'publish', 'runs', 'cli'] },
  { script: 'server-load.mjs', takes: ['quick', 'publish', 'seconds', 'sizes', 'agents', 'all-stale'] },
];
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    publish: { type: 'boolean' },
    'all-stale': { type: 'boolean' },
    runs: { type: 'string' },
    cli: { type: 'string' },
    seconds: { type: 'string' },
    sizes: { type: 'string' },
    agents: { type: 'string' },
  },
});
const here = path.dirname(new URL(import.meta.url).pathname);
for (const { script, takes } of BENCHES) {
  const flags = takes.flatMap((name) => (values[name] === undefined ? [] : values[name] === true ? [`--${name}`] : [`--${name}`, values[name]]));
  const child = spawnSync(process.execPath, [path.join(here, script), ...flags], { stdio: 'inherit' });
  if (child.status !== 0) process.exit(child.status ?? 1);
}
