import { Cli } from 'clipanion';
import { Readable } from 'node:stream';
import { operationCommands } from '../../entrypoints/cli/commands.js';
import { main } from '../../entrypoints/cli/main.js';
import { SERVES_UNTIL_STOPPED, type Sandbox } from './cli.js';

/** A command as the fuzzer sees it: its name, its options, how many positionals it takes. */
interface CommandShape {
  name: string;
  options: { flag: string; takesValue: boolean }[];
  positionals: number;
}

/**
 * Every operation command's shape, read from clipanion's own definitions (so new operations are
 * fuzzed too). `mcp` and `onboard` print no JSON value on success: test/e2e/mcp.spec.ts covers them.
 * `ui` is left out: a fuzzed line it accepts would serve until stopped (in process, for the rest of
 * the test run, and through the binary, until the test's timeout); test/e2e/board-cli.spec.ts
 * covers its bad input.
 */
export function commandShapes(): CommandShape[] {
  const cli = new Cli({ binaryName: 'taskdag' });
  for (const command of operationCommands()) if (!SERVES_UNTIL_STOPPED.has(command.paths![0]!.join(' '))) cli.register(command);
  return cli.definitions().map((definition) => ({
    name: definition.path.replace(/^taskdag /, ''),
    options: definition.options.map((option) => {
      const [flag, value] = option.definition.split(' ');
      return { flag: flag!.split(',').pop()!, takesValue: value !== undefined };
    }),
    positionals: definition.usage.match(/ [[<][^\]>]+[\]>]/g)?.length ?? 0,
  }));
}

/** Values chosen to hit edges: empty, numbers out of range, JSON and broken JSON, ids, huge, unicode, traversal. */
const VALUES = [
  '', ' ', 'x', 'T-1', 'G-1', 'K-1', 'T-404', 'core', 'nowhere', '0', '-1', '1.5', '1e999', '99999999999999999999', 'true', 'false',
  'null', '{}', '[]', '{"a":1}', '{"a":', '[1,2]', '"text"', 'BLOCKS', 'SUPERSEDES', 'DERIVED_FROM', 'blocks', 'a,b', ',', ',,T-1,',
  '../..', '../../tasks', '.', 'ü€😀', 'x'.repeat(5000), '-', '--', 'resolvable', 'knowledge', 'task', 'gate', 'open', 'done',
  'ready', 'in_progress', '20000101T000000000Z-force-init', '{"operations":[]}', '{"operations":[{"op":"add-task"}]}',
];
/** `--project` stays inside the sandbox: the fuzzer must not create checkouts elsewhere. */
const PROJECTS = ['.', 'sub', 'nested/deeper', '../checkout'];
const UNKNOWN_WORDS = ['', 'bogus', 'ADD-TASK', 'add_task', '-x', '--bogus'];

type Random = () => number;

/** A seeded generator (mulberry32), so a failing case can be replayed from its seed. */
export function seeded(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** One random command line: mostly a real command with random options, values and positionals. */
export function randomArgv(random: Random, shapes: CommandShape[]): string[] {
  const argv: string[] = [];
  if (random() < 0.1) argv.push('--project', pick(random, PROJECTS));
  if (random() < 0.1) argv.push('--no-warnings');
  if (random() < 0.05) return [...argv, pick(random, UNKNOWN_WORDS)];
  const shape = pick(random, shapes);
  argv.push(...shape.name.split(' '));
  const allOptions = shapes.flatMap((other) => other.options);
  for (let count = Math.floor(random() * 7); count > 0; count--) {
    const option = random() < 0.85 ? pick(random, shape.options.length > 0 ? shape.options : allOptions) : pick(random, allOptions);
    if (!option) continue;
    if (!option.takesValue && random() < 0.7) argv.push(option.flag);
    else if (random() < 0.5) argv.push(`${option.flag}=${pick(random, VALUES)}`);
    else argv.push(option.flag, ...(random() < 0.95 ? [pick(random, VALUES)] : []));
  }
  for (let count = Math.floor(random() * (shape.positionals + 2)); count > 0; count--) argv.push(pick(random, VALUES));
  if (random() < 0.6) argv.push('--as', pick(random, ['alice', 'orchestrator', 'recovery', '']));
  return argv;
}

/**
 * Keeps a command line's effects inside the sandbox and this machine: the server's host commands
 * write where their paths say (default root /srv/taskdag) and probe their host, so they get a
 * root in the sandbox, no value that climbs out of it, and host 127.0.0.1. Through the binary,
 * `--env-file` is left out of every command line (the fuzzer gives any command any flag): Node 20
 * itself reads that flag anywhere on its command line and exits 9 when the file is missing,
 * before taskdag runs (docs/operating.md); in process it is fuzzed.
 */
export function confined(argv: string[], viaBinary: boolean): string[] {
  const line = viaBinary ? argv.filter((word, index) => !(word.startsWith('--env-file') || (index > 0 && argv[index - 1] === '--env-file'))) : argv;
  const at = line.indexOf('server');
  if (at < 0 || at === line.length - 1) return line;
  const words = line.slice(at + 2).map((word) => (word.includes('..') ? 'srv-fuzz' : word.startsWith('--host=') ? '--host=127.0.0.1' : word));
  const kept = words.map((word, index) => (index > 0 && words[index - 1] === '--host' ? '127.0.0.1' : word));
  const command = line[at + 1]!;
  const rooted = command === 'init' || command === 'setup' ? ['--root', 'srv-fuzz'] : [];
  return [...line.slice(0, at + 2), ...rooted, ...kept];
}

/** Why an outcome breaks the contract (one JSON value; exit 0, 1 or 2; never CLI_INTERNAL_ERROR), or null. */
export function outcomeProblem(code: number | null, stdout: string): string | null {
  if (!stdout.endsWith('\n') || stdout.indexOf('\n') !== stdout.length - 1) return 'the output is not exactly one line';
  let value: any;
  try {
    value = JSON.parse(stdout);
  } catch {
    return 'the output is not JSON';
  }
  const failed = typeof value === 'object' && value !== null && value.ok === false;
  switch (code) {
    case 0:
      return failed ? 'exit 0 with an error envelope' : null;
    case 1:
    case 2: {
      if (!failed || typeof value.error?.code !== 'string' || typeof value.error.details !== 'object') return `exit ${code} without an error envelope`;
      if (value.error.code === 'CLI_INTERNAL_ERROR') return `CLI_INTERNAL_ERROR: ${value.error.details.reason}`;
      if ((code === 2) !== (value.error.code === 'UNKNOWN_COMMAND')) return `exit ${code} with ${value.error.code}`;
      return null;
    }
    default:
      return `exit status ${code}`;
  }
}

/** Runs one command line through the CLI's `main` in this process (the same code as the binary, minus process start). */
export async function runInProcess(sandbox: Sandbox, argv: string[], input: string): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const sink = { write: (chunk: string) => ((stdout += chunk), true) } as unknown as NodeJS.WritableStream;
  const code = await main({ argv, cwd: sandbox.checkout, env: sandbox.env(), stdin: Readable.from([input]), stdout: sink, stderr: { write: () => true } as unknown as NodeJS.WritableStream });
  return { code, stdout };
}

export interface FuzzReport {
  cases: number;
  byExit: Record<string, number>;
  failures: { argv: string[]; problem: string }[];
}

/**
 * `cases` random command lines from `seed`, each run in process (or, with `viaBinary`, through the
 * built binary), against a sandbox whose project holds a few nodes so that commands reach their
 * rules. Collects every contract violation.
 */
export async function fuzz(sandbox: Sandbox, seed: number, cases: number, viaBinary: boolean): Promise<FuzzReport> {
  const random = seeded(seed);
  const shapes = commandShapes();
  const report: FuzzReport = { cases, byExit: {}, failures: [] };
  for (let i = 0; i < cases; i++) {
    const argv = confined(randomArgv(random, shapes), viaBinary);
    const input = pick(random, VALUES);
    const { code, stdout } = viaBinary ? await sandbox.run(argv, { input }) : await runInProcess(sandbox, argv, input);
    report.byExit[String(code)] = (report.byExit[String(code)] ?? 0) + 1;
    const problem = outcomeProblem(code, stdout);
    if (problem) report.failures.push({ argv, problem });
  }
  return report;
}

/** A project with a task, a gate and a knowledge item, for the fuzzer to aim at. */
export async function fuzzTarget(sandbox: Sandbox): Promise<void> {
  await sandbox.init();
  await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
  await sandbox.ok(['add-gate', 'G-1', '--initiative', 'core', '--title', 'g', '--body', '', '--purpose', 'p', '--as', 'alice']);
  await sandbox.ok(['add-task', 'T-1', '--initiative', 'core', '--title', 't', '--body', '', '--acceptance', 'a', '--blocked-by', 'G-1', '--as', 'alice']);
  await sandbox.ok(['add-knowledge', 'K-1', '--initiative', 'core', '--title', 'k', '--body', '', '--scope-tags', 'x', '--as', 'alice']);
}
