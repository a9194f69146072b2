// `node bench/cpu-profile.mjs DIR [--top N] [--match NAME,...] [--depth N] [--turns N] [--under NAME]`:
// the time of every V8 CPU profile (`--cpu-prof`) in DIR by function, self and inclusive, over
// the window that DIR's window.json bounds (bench/scale-out.mjs --cpu-prof-dir writes one per
// step; without it, the whole profile). A function is its name, file and line, through the
// bundle's source map for dist/; `(idle)` is the event loop waiting, `(garbage collector)` V8's
// collections; each share is of the time not idle. The samples are of wall time: a main thread
// that waits for a core is counted in the function it was stopped in (a `writev` that woke
// another process onto its core, say).
// --match NAME,...: each stack that holds one of the names, inclusive, with its --depth callers
// (default 4). --under NAME: self time by function of the samples whose stack holds NAME (what it
// spent its time on). --turns N: the N longest stretches with no idle sample (a turn of the event
// loop, or several with no wait between them: what held requests back), with what ran longest
// in each, inclusive.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: options, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' }, match: { type: 'string' }, turns: { type: 'string', default: '0' }, under: { type: 'string' }, depth: { type: 'string', default: '4' } } });
const directory = positionals[0];
if (!directory) throw new Error('usage: node bench/cpu-profile.mjs DIR [--top N] [--match NAME,...] [--depth N] [--turns N] [--under NAME]');
const windowFile = path.join(directory, 'window.json');
const bounds = existsSync(windowFile) ? JSON.parse(readFileSync(windowFile, 'utf8')) : { from_us: -Infinity, to_us: Infinity };
const TOP = Number(options.top);
const DEPTH = Number(options.depth);
const matches = options.match ? options.match.split(',') : [];
/** The source maps of the bundles profiled, by URL (null: none beside it). */
const maps = new Map();

for (const file of readdirSync(directory).filter((name) => name.endsWith('.cpuprofile')).sort()) {
  const profile = JSON.parse(readFileSync(path.join(directory, file), 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const nameOf = (node) => (node.name ??= frameName(node.callFrame));
  const self = new Map();
  const inclusive = new Map();
  const stacks = new Map();
  const under = new Map();
  let at = profile.startTime;
  let total = 0;
  /** Busy stretches: each its length and inclusive time by function. */
  const turns = [];
  let turn = null;
  for (let index = 0; index < profile.samples.length; index++) {
    at += profile.timeDeltas[index];
    // A sample stands for the time until the next one.
    const span = profile.timeDeltas[index + 1] ?? 0;
    if (at < bounds.from_us || at > bounds.to_us) continue;
    total += span;
    const leaf = byId.get(profile.samples[index]);
    const leafName = nameOf(leaf);
    if (leafName === '(idle)') {
      if (turn) turns.push(turn);
      turn = null;
    } else turn ??= { us: 0, from: at, by: new Map() };
    if (turn) turn.us += span;
    self.set(leafName, (self.get(leafName) ?? 0) + span);
    const seen = new Set();
    const chain = [];
    for (let id = leaf.id; id !== undefined; id = parentOf.get(id)) {
      const name = nameOf(byId.get(id));
      chain.push(name);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + span);
      if (turn) turn.by.set(name, (turn.by.get(name) ?? 0) + span);
    }
    if (options.under && chain.some((name) => name.startsWith(`${options.under} `) || name === options.under)) under.set(leafName, (under.get(leafName) ?? 0) + span);
    for (const match of matches) {
      const position = chain.findIndex((name) => name.startsWith(`${match} `) || name === match);
      if (position < 0) continue;
      const key = `${match} <- ${chain.slice(position + 1, position + 1 + DEPTH).join(' <- ')}`;
      stacks.set(key, (stacks.get(key) ?? 0) + span);
    }
  }
  const ms = (us) => (us / 1000).toFixed(1).padStart(8);
  const busy = total - (self.get('(idle)') ?? 0);
  process.stdout.write(`${file}: ${ms(total)} ms in the window, ${ms(busy)} ms not idle\n`);
  const table = (title, map) => {
    process.stdout.write(`  ${title}\n`);
    for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, TOP)) process.stdout.write(`  ${ms(us)} ms ${((us * 100) / Math.max(1, busy)).toFixed(1).padStart(5)}%  ${name}\n`);
  };
  table('self', self);
  table('inclusive', inclusive);
  if (matches.length > 0) table('matched stacks (inclusive, callers after <-)', stacks);
  if (options.under) table(`self, under ${options.under}`, under);
  if (turn) turns.push(turn);
  for (const longest of turns.sort((a, b) => b.us - a.us).slice(0, Number(options.turns))) {
    const ranked = [...longest.by].filter(([name]) => name !== '(root)').sort((a, b) => b[1] - a[1]);
    process.stdout.write(`  busy ${ms(longest.us)} ms ${((longest.from - Math.max(bounds.from_us, profile.startTime)) / 1000).toFixed(0)} ms in: ${ranked.slice(0, 12).map(([name, us]) => `${name} ${(us / 1000).toFixed(1)}`).join('; ')}\n`);
  }
}

function sourceMapOf(url) {
  if (!maps.has(url)) {
    const file = url.startsWith('file:') ? fileURLToPath(url) : url;
    maps.set(url, existsSync(`${file}.map`) ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))) : null);
  }
  return maps.get(url);
}

/** A frame as `name file:line`, through the bundle's source map where there is one. */
function frameName({ functionName, url, lineNumber, columnNumber }) {
  const name = functionName || '(anonymous)';
  if (!url) return name;
  const entry = sourceMapOf(url)?.findEntry(lineNumber, columnNumber);
  if (!entry?.originalSource) return `${name} ${path.basename(url)}:${lineNumber + 1}`;
  const source = entry.originalSource.replace(/^.*?\/(adapters|application|domain|entrypoints|node_modules)\//, '$1/');
  return `${entry.name ?? name} ${source}:${entry.originalLine + 1}`;
}
