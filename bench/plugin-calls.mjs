// `node bench/plugin-calls.mjs [--root DIR] [--calls N]`: what one call into a policy plugin
// costs, through the plugin runtime a build holds (`DIR/build`, default this checkout; after
// `npm run build`): the first load of the module (with the worker's start, if there is one),
// the first decision, and the median of N decisions of wip-limit on a request of 20 touched nodes and 200 claims.
// Run it against another build with --root to compare (BENCHMARKS.md).
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const HERE = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { values: options } = parseArgs({ options: { root: { type: 'string', default: HERE }, calls: { type: 'string', default: '5000' } } });
const require = createRequire(import.meta.url);
const { NodePluginRuntime } = require(path.join(path.resolve(options.root), 'build', 'adapters', 'node-plugin-runtime.js'));

const node = (id) => ({ id, kind: 'resolvable', subkind: 'task', title: id, status: 'in_progress', claim: { by: `agent-${id}`, at: '2026-01-01T00:00:00.000Z' } });
const request = {
  operation: 'take',
  args: { id: 'T-1' },
  agent: 'agent-1',
  nodes: Array.from({ length: 20 }, (_, at) => ({ id: `T-${at}`, before: node(`T-${at}`), after: node(`T-${at}`) })),
  claims: Object.fromEntries(Array.from({ length: 200 }, (_, at) => [`agent-${at}`, [`T-${at}`]])),
  preview: false,
  data: { limit: 1000000 },
};
const runtime = new NodePluginRuntime(5000);
const loading = process.hrtime.bigint();
const plugin = { ...runtime.declaration(path.join(HERE, 'examples', 'plugins', 'wip-limit.js'), HERE), installed_at: '2026-01-01T00:00:00.000Z', installed_by: 'bench', data: request.data };
const loadMs = Number(process.hrtime.bigint() - loading) / 1e6;
const first = process.hrtime.bigint();
runtime.decide(plugin, request);
const firstMs = Number(process.hrtime.bigint() - first) / 1e6;
const times = [];
for (let at = 0; at < Number(options.calls); at++) {
  const started = process.hrtime.bigint();
  runtime.decide(plugin, request);
  times.push(Number(process.hrtime.bigint() - started) / 1e3);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ root: options.root, load_ms: +loadMs.toFixed(2), first_decision_ms: +firstMs.toFixed(2), median_us: +times[times.length >> 1].toFixed(1), p99_us: +times[Math.floor(times.length * 0.99)].toFixed(1) }));
runtime.close?.();
