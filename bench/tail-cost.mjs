// What each byte of ledger tail costs the point commands that replay it (issue 28's checkpoint
// threshold weighs it against a rewrite's cost): instructions (callgrind, the whole process) of
// `status --limit 20`, `take` and `context` on the bench project, with a short tail and with a
// long one, and the difference per tail byte. The tails are mutations of a task's life (add-task
// with a 600-character body, update, add-note, take, submit, accept: bench/mutation-mean.mjs's
// cycle), laid past the checkpoint: a checkpoint a crossing commit writes meanwhile is put back,
// so the whole tail stays to replay. Keep `--long` under the build's threshold (about 100 records
// at 10k nodes): past it, the `take` measured rewrites the checkpoint and its count is a rewrite's
// (how BENCHMARKS.md read a rewrite's instructions at 10k nodes).
// Usage (after npm run build): node bench/tail-cost.mjs [checkout, default this one] [--size 10000] [--short 6] [--long 120]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REVIEWER, WORKER, storeOf, writeProject } from './generate.mjs';

const option = (name, fallback) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback);
const flagged = new Set(['--size', '--short', '--long'].map((name) => process.argv.indexOf(name) + 1));
const root = path.resolve(process.argv.slice(2).find((arg, at) => !arg.startsWith('--') && !flagged.has(at + 2)) ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const size = Number(option('--size', 10000));
const tails = [Number(option('--short', 6)), Number(option('--long', 120))];
const BODY = 'Carry the change through the service and its callers, then say what was left. '.repeat(8).slice(0, 600);
const binary = path.join(root, 'dist/taskdag.js');

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'taskdag-tail-cost-'));
try {
  const rows = [];
  for (const records of tails) {
    const fixture = await writeProject(path.join(scratch, `t${records}`), `tc${size}`, { size, logEntries: size >= 50_000 ? 200_000 : 100_000, poolSize: 6 }, storeOf(root));
    const env = { PATH: process.env.PATH, ...fixture.env };
    const run = (args) => {
      const ran = spawnSync(process.execPath, [binary, ...args], { cwd: fixture.checkout, env, encoding: 'utf8' });
      if (ran.status !== 0) throw new Error(`${args.join(' ')}: exit ${ran.status} ${ran.stdout.slice(0, 300)}`);
      return ran.stdout;
    };
    const checkpoint = path.join(fixture.stateDir, 'tasks.json');
    const before = fs.readFileSync(checkpoint);
    let task = null;
    for (let step = 0; step < records; step++) {
      const cycle = Math.floor(step / 6);
      const args = [
        ['add-task', '--initiative', fixture.initiative, '--title', `task ${cycle}`, '--body', BODY, '--acceptance', 'its callers pass', '--blocked-by', '', '--as', WORKER],
        ['update', task, '--title', `task ${cycle}, renamed`, '--as', WORKER],
        ['add-note', task, `looked at the callers of task ${cycle}: three of them, two in the worker`, '--as', WORKER],
        ['take', task, '--as', WORKER],
        ['submit', task, '--note', 'done, the callers pass', '--as', WORKER],
        ['accept', task, '--as', REVIEWER],
      ][step % 6];
      const out = run(args);
      if (step % 6 === 0) task = JSON.parse(out).node.id;
      // The tail stays a tail: the checkpoint a crossing commit wrote is put back (the ledger extends it all the same).
      if (!fs.readFileSync(checkpoint).equals(before)) fs.writeFileSync(checkpoint, before);
    }
    const ledger = JSON.parse(/"ledger":(\{"file":"[^"]+","bytes":\d+\})/.exec(before.toString('utf8', 0, 65536))[1]);
    const tailBytes = fs.statSync(path.join(fixture.stateDir, ledger.file)).size - ledger.bytes;
    const instructions = (args) => {
      const ran = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, binary, ...args], { cwd: fixture.checkout, env, encoding: 'utf8' });
      const match = /Collected : (\d+)/.exec(ran.stderr);
      if (ran.status !== 0 || !match) throw new Error(`callgrind ${args.join(' ')}: exit ${ran.status} ${ran.stderr.slice(-300)}`);
      return Number(match[1]);
    };
    const row = { records, tail_bytes: tailBytes };
    row['status --limit 20'] = instructions(['status', '--limit', '20']);
    row.context = instructions(['context', fixture.sample.context]);
    row.take = instructions(['take', fixture.pools.take[1], '--as', WORKER]);
    rows.push(row);
  }
  const [short, long] = rows;
  const perByte = Object.fromEntries(['status --limit 20', 'context', 'take'].map((name) => [name, Math.round((long[name] - short[name]) / (long.tail_bytes - short.tail_bytes))]));
  console.log(JSON.stringify({ size, load: os.loadavg().map((value) => Number(value.toFixed(2))), rows, instructions_per_tail_byte: perByte }, null, 2));
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
