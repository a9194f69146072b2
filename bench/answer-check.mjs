// `node bench/answer-check.mjs [--size N] [--log N] [--runs N]`: what holding a server's answer to
// its operation's result schema costs the remote client (docs/remote.md). A generated project
// (50k nodes and a 200k-entry log by default) answers `status` and `state` as a server would.
// Each run is a fresh process, as each command is: it parses the answer's text, then checks it,
// once. The report is the medians of both and their ratio, so a loaded machine slows both alike.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeProject } from './generate.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CLI = path.join(ROOT, 'dist', 'taskdag.js');
const { values: options } = parseArgs({
  options: {
    size: { type: 'string', default: '50000' },
    log: { type: 'string', default: '200000' },
    runs: { type: 'string', default: '7' },
    // One run, inside the child process: `--measure <operation> <file>`.
    measure: { type: 'string' },
  },
  allowPositionals: true,
  strict: false,
});

if (options.measure) measureOnce(options.measure, process.argv.at(-1));
else await report(Number(options.size), Number(options.log), Number(options.runs));

async function report(size, logEntries, runs) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-bench-answer-'));
  try {
    const project = await writeProject(scratch, 'answers', { size, logEntries, poolSize: 2 });
    console.log(`| answer (${project.nodes} nodes, ${project.log} log entries, ${runs} fresh processes) | bytes | JSON.parse, median ms | schema check, median ms | check / parse |`);
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const name of ['status', 'state']) {
      const file = path.join(scratch, `${name}.json`);
      writeFileSync(file, answerOf(project, name));
      const times = Array.from({ length: runs }, () => JSON.parse(run([new URL(import.meta.url).pathname, '--measure', name, file])));
      const [parseMs, checkMs] = [median(times.map((one) => one.parse_ms)), median(times.map((one) => one.check_ms))];
      const bytes = readFileSync(file).length.toLocaleString('en');
      console.log(`| \`${name}\` | ${bytes} | ${parseMs.toFixed(1)} | ${checkMs.toFixed(1)} | ${(checkMs / parseMs).toFixed(2)}× |`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function measureOnce(name, file) {
  const { schemaViolations } = require('../build/application/contract/schema-check.js');
  const { OPERATIONS } = require('../build/application/operations/index.js');
  const { result } = OPERATIONS.find((operation) => operation.name === name);
  const text = readFileSync(file, 'utf8');
  let started = performance.now();
  const value = JSON.parse(text);
  const parse_ms = performance.now() - started;
  started = performance.now();
  const violations = schemaViolations(result, value);
  const check_ms = performance.now() - started;
  if (violations.length > 0) throw new Error(`${name}: ${violations.join('; ')}`);
  console.log(JSON.stringify({ parse_ms, check_ms }));
}

/** What the command prints in the project: the JSON a server answers for it. */
function answerOf(project, command) {
  return run([CLI, command], { cwd: project.checkout, env: { ...process.env, ...project.env } });
}

function run(argv, options = {}) {
  const child = spawnSync(process.execPath, argv, { ...options, encoding: 'utf8', maxBuffer: 1024 ** 3 });
  if (child.status !== 0) throw new Error(`${argv.join(' ')} exited ${child.status}: ${child.stderr}`);
  return child.stdout.trim();
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
