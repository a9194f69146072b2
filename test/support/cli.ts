import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HIDDEN_DIRECTORIES } from '../../application/server/unit-file.js';
import { contractViolation } from './output-schemas.js';

export const BINARY = path.resolve(__dirname, '../../../dist/taskdag.js');

const CHECKOUT = path.resolve(__dirname, '../../..');

/**
 * Where a generated unit can see the package: the checkout itself, or, for a checkout the unit
 * could not see (a fresh clone in `mktemp -d` is under /tmp), a copy of what the package ships
 * under /var/lib (CI runs as root), its node_modules linked.
 */
export const UNIT_VISIBLE_CHECKOUT = HIDDEN_DIRECTORIES.some(({ dir }) => `${realpathSync(CHECKOUT)}/`.startsWith(`${dir}/`)) ? visibleCopy() : CHECKOUT;

function visibleCopy(): string {
  const copy = path.join('/var/lib/taskdag-tests', createHash('sha256').update(CHECKOUT).digest('hex').slice(0, 12));
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy, { recursive: true });
  for (const shipped of ['dist', 'ui/dist', 'schemas', 'examples', 'package.json']) {
    if (existsSync(path.join(CHECKOUT, shipped))) cpSync(path.join(CHECKOUT, shipped), path.join(copy, shipped), { recursive: true });
  }
  symlinkSync(path.join(CHECKOUT, 'node_modules'), path.join(copy, 'node_modules'));
  return copy;
}

/** The executable a test that writes a unit runs: one the unit can start. */
export const UNIT_VISIBLE_BINARY = path.join(UNIT_VISIBLE_CHECKOUT, 'dist', 'taskdag.js');

/**
 * Sandboxes for a server root that a generated unit names: beside the visible package, since the
 * unit's sandbox hides /tmp (PrivateTmp=true) and `server init` refuses a root there. Like the
 * tool itself (which the unit starts), it must lie outside /home.
 */
export const UNIT_VISIBLE_BASE = UNIT_VISIBLE_CHECKOUT === CHECKOUT ? path.resolve(__dirname, '../../sandboxes') : path.join(UNIT_VISIBLE_CHECKOUT, 'sandboxes');

/**
 * Commands that, on success, serve until stopped (`ui` is also an operation): a test runs them as
 * a process it stops, never in its own process or as a command expected to exit.
 */
export const SERVES_UNTIL_STOPPED = new Set(['server run', 'ui']);

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON value every command prints. */
  json: any;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
  /** Another copy of the executable (default: the built dist/taskdag.js). */
  binary?: string;
  /** The output may carry fields a newer server added: it is not held to this release's schemas. */
  fromNewerServer?: boolean;
}

/**
 * A hermetic sandbox for the real binary: HOME and TASKDAG_HOME in a temp dir, a checkout dir,
 * and no TASKDAG_* variable inherited from the developer's shell.
 */
export class Sandbox {
  readonly root: string;
  readonly home: string;
  readonly checkout: string;

  /** `base`: where the sandbox goes; UNIT_VISIBLE_BASE for a server root a generated unit must see. */
  constructor(private readonly base = os.tmpdir()) {
    mkdirSync(base, { recursive: true });
    this.root = mkdtempSync(path.join(base, 'taskdag-test-'));
    this.home = path.join(this.root, 'home');
    this.checkout = path.join(this.root, 'checkout');
  }

  env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    const env: Record<string, string | undefined> = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('TASKDAG_')) env[key] = value;
    return { ...env, HOME: this.home, TASKDAG_HOME: path.join(this.home, '.taskdag'), ...extra };
  }

  run(args: string[], options: RunOptions = {}): Promise<CliResult> {
    const binary = this.base === UNIT_VISIBLE_BASE ? UNIT_VISIBLE_BINARY : BINARY;
    return runCli(args, { cwd: this.checkout, binary, ...options, env: this.env(options.env) });
  }

  /** Runs and insists on success, returning the parsed result. */
  async ok(args: string[], options: RunOptions = {}): Promise<any> {
    const result = await this.run(args, options);
    if (result.code !== 0) throw new Error(`taskdag ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`);
    return result.json;
  }

  async init(): Promise<any> {
    return this.ok(['init']);
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    if (options.cwd) mkdirSync(options.cwd, { recursive: true });
    const child = spawn(process.execPath, [options.binary ?? BINARY, ...args], {
      cwd: options.cwd,
      env: options.env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    // Decoded as one stream each: a character whose bytes two reads of the pipe split stays whole.
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        resolve(checkedResult(options.fromNewerServer ? [] : args, code, stdout, stderr));
      } catch (error) {
        reject(error);
      }
    });
    // A command that never reads its input may exit before the pipe is written: the EPIPE that
    // follows says nothing about the command, whose exit code and output the test checks.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/**
 * What a run of `args` printed, parsed; every end-to-end run holds its output to the published
 * schemas (schemas/), so output outside them throws.
 */
export function checkedResult(args: readonly string[], code: number | null, stdout: string, stderr: string): CliResult {
  let json: unknown;
  try {
    json = stdout.trim() === '' ? undefined : JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  const violation = contractViolation(args, json);
  if (violation) throw new Error(violation);
  return { code, stdout, stderr, json };
}
