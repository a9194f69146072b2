// `node bench/answer-check.mjs [--size N] [--log N] [--runs N]`: what holding a server's answer to
// its operation's result schema costs the remote client (docs/remote.md). A generated project
// (50k nodes and a 200k-entry log by default) answers `status` and `state` as a server would.
// Each run is a fresh process, as each command is: it parses the answer's text, then holds it to
// the generated test the client runs (schema-test.ts), then to the walk that explains a refusal
// (schema-check.ts), each once. The report is the medians of the CPU time of each and their ratios
// to the parse, so a loaded machine slows them alike.
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
    console.log(`| answer (${project.nodes} nodes, ${project.log} log entries, ${runs} fresh processes) | bytes | JSON.parse, CPU ms | generated test, CPU ms | test / parse | walk, CPU ms | walk / parse |`);
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const name of ['status', 'state']) {
      const file = path.join(scratch, `${name}.json`);
      writeFileSync(file, answerOf(project, name));
      const times = Array.from({ length: runs }, () => JSON.parse(run([new URL(import.meta.url).pathname, '--measure', name, file])));
      const [parseMs, testMs, checkMs] = ['parse_ms', 'test_ms', 'check_ms'].map((figure) => median(times.map((one) => one[figure])));
      const bytes = readFileSync(file).length.toLocaleString('en');
      console.log(`| \`${name}\` | ${bytes} | ${parseMs.toFixed(1)} | ${testMs.toFixed(1)} | ${(testMs / parseMs).toFixed(2)}× | ${checkMs.toFixed(1)} | ${(checkMs / parseMs).toFixed(2)}× |`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function measureOnce(name, file) {
  const { schemaViolations } = require('../build/application/contract/schema-check.js');
  const { schemaTest } = require('../build/application/contract/schema-test.js');
  const { OPERATIONS } = require('../build/application/operations/index.js');
  const { result } = OPERATIONS.find((operation) => operation.name === name);
  const text = readFileSync(file, 'utf8');
  const [value, parse_ms] = cpuTimed(() => JSON.parse(text));
  const [conforms, test_ms] = cpuTimed(() => schemaTest(result)(value));
  const [violations, check_ms] = cpuTimed(() => schemaViolations(result, value));
  if (violations.length > 0 || !conforms) throw new Error(`${name}: ${violations.join('; ') || 'refused by the generated test'}`);
  console.log(JSON.stringify({ parse_ms, test_ms, check_ms }));
}

/**
 * What `work` returns and the CPU milliseconds it took: on a shared machine a step of a few
 * milliseconds is often cut by the scheduler, which wall time would count and CPU time does not.
 */
function cpuTimed(work) {
  const before = process.cpuUsage();
  const result = work();
  const { user, system } = process.cpuUsage(before);
  return [result, (user + system) / 1000];
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
