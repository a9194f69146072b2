import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Sandbox } from './cli.js';
import { expectedAfter } from './mutations.js';

const WRITER = path.resolve(__dirname, 'crash-writer.js');

/** The state directory of the sandbox's project. */
export function projectDir(sandbox: Sandbox): string {
  const { project_id } = JSON.parse(readFileSync(path.join(sandbox.checkout, '.taskdag.json'), 'utf8'));
  return path.join(sandbox.home, '.taskdag', 'projects', project_id);
}

/** Every file under `dir` with its sha256: two equal digests mean not one byte was written. */
export function treeDigest(dir: string): Record<string, string> {
  const digest: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else digest[path.relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return digest;
}

/** The sandbox's state through the binary; throws when it does not load. */
export async function loadState(sandbox: Sandbox): Promise<any> {
  const result = await sandbox.run(['state']);
  if (result.code !== 0 || result.json === undefined) throw new Error(`state did not load after a kill: ${result.stdout}${result.stderr}`);
  return result.json;
}

interface WriterRun {
  /** The last k the writer reported successful, or first - 1. */
  acknowledged: number;
  /** Whether the writer was still running when it was killed. */
  killed: boolean;
}

/** Starts a writer, waits for it to be ready, lets it write for a random 0..maxDelayMs, then SIGKILLs it. */
export function killWriterAtRandom(sandbox: Sandbox, args: string[], maxDelayMs: number): Promise<WriterRun> {
  return runWriter(sandbox, args, () => Math.random() * maxDelayMs);
}

/** Runs a writer to its end (`count` mode). */
export function runWriterToEnd(sandbox: Sandbox, args: string[]): Promise<WriterRun> {
  return runWriter(sandbox, args, null);
}

function runWriter(sandbox: Sandbox, args: string[], delay: (() => number) | null): Promise<WriterRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, sandbox.checkout, ...args], { env: sandbox.env() as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const first = Number(args[1]);
    let acknowledged = first - 1;
    let output = '';
    let failure: string | null = null;
    let timer: NodeJS.Timeout | null = null;
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const lines = output.split('\n');
      output = lines.pop()!;
      for (const line of lines) {
        if (line === 'ready' && delay) timer = setTimeout(() => child.kill('SIGKILL'), delay());
        else if (line.startsWith('ok ')) acknowledged = Number(line.slice(3));
        else if (line.startsWith('fail ')) failure = line;
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (failure ??= chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      if (timer) clearTimeout(timer);
      if (failure || (signal === null && code !== 0)) reject(new Error(`writer failed (exit ${code}): ${failure ?? output}`));
      else resolve({ acknowledged, killed: signal === 'SIGKILL' });
    });
  });
}

/**
 * One crash of the mutation writer: mutations from `first` on, a SIGKILL at a random instant, then
 * the state must load and hold exactly mutations 1..m where m is the last acknowledged mutation
 * (it was reported, so it must be there) or the one after it (in flight, committed before the
 * kill). Returns m (the next writer starts after it) and the acknowledged count.
 */
export async function crashMutationWriter(
  sandbox: Sandbox,
  first: number,
  base: number,
  maxDelayMs: number,
): Promise<{ committed: number; acknowledged: number }> {
  const run = await killWriterAtRandom(sandbox, ['mutate', String(first)], maxDelayMs);
  const state = await loadState(sandbox);
  const ids = Object.keys(state.nodes).sort();
  for (const m of [run.acknowledged, run.acknowledged + 1]) {
    const expected = expectedAfter(m, base);
    if (sameList(ids, expected.ids) && state.revision === expected.revision && state.log.length === expected.revision) {
      return { committed: m, acknowledged: run.acknowledged };
    }
  }
  throw new Error(
    `after a kill with mutation ${run.acknowledged} acknowledged, the state holds ${ids.length} nodes at revision ${state.revision}: ` +
      `neither the state before nor the state after the mutation in flight`,
  );
}

/** What the restore proof knows of each snapshot it restores. */
export interface KnownSnapshot {
  nodes: string[];
  revision: number;
}

/**
 * The restore proof, `kills` times: two snapshots with different tasks (taken by `init --force`),
 * then a restore writer killed at random within `maxDelayMs`, each time checked by
 * crashRestoreWriter. Returns how many restores were committed.
 */
export async function crashRestores(sandbox: Sandbox, kills: number, maxDelayMs: number): Promise<{ restores: number }> {
  const snapshots: Record<string, KnownSnapshot> = {};
  for (const id of ['T-old', 'T-new']) {
    await sandbox.ok(['add-initiative', id, '--as', 'writer']);
    await sandbox.ok(['add-task', id, '--initiative', id, '--title', id, '--body', '', '--acceptance', 'a', '--blocked-by', '', '--as', 'writer']);
    const { revision, nodes } = await loadState(sandbox);
    snapshots[(await sandbox.ok(['init', '--force', '--as', 'writer'])).snapshot.id] = { revision, nodes: Object.keys(nodes) };
  }
  const ids = Object.keys(snapshots);
  let position = { restores: 0, revision: (await loadState(sandbox)).revision };
  for (let kill = 0; kill < kills; kill++) {
    const next = await crashRestoreWriter(sandbox, ids, snapshots, position.restores + 1, position.revision, maxDelayMs);
    position = { restores: position.restores + next.restores, revision: next.revision };
  }
  return { restores: position.restores };
}

/**
 * One crash of the restore writer, restoring `ids` in turn from restore number `first` on: the
 * state must load and be the state after m more restores, m the acknowledged count or one more.
 * A restore's revision is one past both the snapshot's and the displaced state's.
 */
export async function crashRestoreWriter(
  sandbox: Sandbox,
  ids: string[],
  snapshots: Record<string, KnownSnapshot>,
  first: number,
  revisionBefore: number,
  maxDelayMs: number,
): Promise<{ restores: number; revision: number }> {
  const run = await killWriterAtRandom(sandbox, ['restore', String(first), ...ids], maxDelayMs);
  const state = await loadState(sandbox);
  const acknowledged = run.acknowledged - first + 1;
  const restored = (done: number) => ids[(first + done - 1) % ids.length]!;
  const revisions = [revisionBefore];
  for (let done = 1; done <= acknowledged + 1; done++) revisions.push(Math.max(revisions[done - 1]!, snapshots[restored(done)]!.revision) + 1);
  for (const done of [acknowledged, acknowledged + 1]) {
    if (state.revision !== revisions[done]) continue;
    if (done === 0) return { restores: 0, revision: state.revision };
    const last = state.log[state.log.length - 1];
    if (last.op !== 'restore' || last.snapshot !== restored(done)) throw new Error(`the last log entry is not the restore of ${restored(done)}`);
    if (!sameList(Object.keys(state.nodes).sort(), snapshots[restored(done)]!.nodes)) throw new Error(`the nodes are not those of ${restored(done)}`);
    return { restores: done, revision: state.revision };
  }
  throw new Error(`${acknowledged} restores acknowledged, but the state is at revision ${state.revision}, not after them or the one in flight`);
}

/**
 * `workers` processes, each making `each` add-tasks at once: writer processes committing one
 * mutation after another, or (`binary`) one `taskdag add-task` process per mutation. Every
 * mutation must be in the state, the log must hold them all with strictly increasing revisions,
 * and each worker's in its order.
 */
export async function concurrentWriters(
  sandbox: Sandbox,
  workers: number,
  each: number,
  via: 'writer' | 'binary' = 'writer',
): Promise<{ elapsedMs: number; mutations: number }> {
  const before = await loadState(sandbox);
  const started = process.hrtime.bigint();
  const worker = async (w: number) => {
    if (via === 'writer') return void (await runWriterToEnd(sandbox, ['count', '1', String(each), `W${w}`]));
    for (let k = 1; k <= each; k++) {
      await sandbox.ok(['add-task', `W${w}-${k}`, '--initiative', 'core', '--title', `task ${k}`, '--body', '', '--acceptance', 'a', '--blocked-by', '', '--as', `W${w}`]);
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  const state = await loadState(sandbox);
  const added: any[] = state.log.slice(before.log.length);
  const problems: string[] = [];
  if (added.length !== workers * each) problems.push(`${added.length} log entries, expected ${workers * each}`);
  if (Object.keys(state.nodes).length !== Object.keys(before.nodes).length + workers * each) problems.push('missing nodes');
  for (let i = 1; i < state.log.length; i++) {
    if (state.log[i].revision <= state.log[i - 1].revision) problems.push(`revision ${state.log[i].revision} after ${state.log[i - 1].revision}`);
  }
  if (state.revision !== state.log[state.log.length - 1].revision) problems.push('the state revision is not its last log revision');
  for (let w = 0; w < workers; w++) {
    const order = added.filter((entry) => entry.by === `W${w}`).map((entry) => entry.node);
    const expected = Array.from({ length: each }, (_, k) => `W${w}-${k + 1}`);
    if (!sameList(order, expected)) problems.push(`worker W${w}'s mutations are missing or out of order`);
    for (const id of expected) if (!state.nodes[id]) problems.push(`${id} is missing`);
  }
  if (problems.length > 0) throw new Error(problems.slice(0, 10).join('; '));
  return { elapsedMs, mutations: workers * each };
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
