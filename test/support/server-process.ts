import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BINARY, type Sandbox } from './cli.js';

export const PROTOCOL = { 'X-Taskdag-Protocol-Version': '1' };

export interface RunningServer {
  child: ChildProcess;
  port: number;
  origin: string;
  /** Everything the process printed so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the exit status (and signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The env file's entries, as a shell that sources it would export them. */
export function envFileEntries(envFile: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const line of readFileSync(envFile, 'utf8').split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) entries[match[1]!] = match[2]!;
  }
  return entries;
}

/**
 * Spawns the built binary's `server run <config>` with the sandbox's environment plus `env`, and
 * resolves once it printed its ready line, or rejects with what it printed if it exits first.
 */
export function startServer(sandbox: Sandbox, configPath: string, env: Record<string, string | undefined>): Promise<RunningServer> {
  return spawnServer(process.execPath, [BINARY, 'server', 'run', configPath], { env: sandbox.env(env) });
}

/**
 * Spawns a command that runs a server (the binary itself, a unit's ExecStart=, or a shell line
 * that ends in `server run`) in a process group of its own, and resolves once the ready line
 * `{"ok":true,...}` is out. `stop` signals the server process itself, as systemd's KillSignal=
 * or Ctrl-C reaches it, so a shell in front of it passes its exit status on.
 */
export function spawnServer(command: string, args: string[], options: { env: Record<string, string | undefined>; cwd?: string; timeoutMs?: number }): Promise<RunningServer> {
  const child = spawn(command, args, { env: options.env as NodeJS.ProcessEnv, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  // Decoded as one stream each (cli.ts): a character split across two reads of the pipe stays whole.
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise((resolve, reject) => {
    const fail = (why: string) => reject(Object.assign(new Error(`${why}: ${stdout}${stderr}`), { stdout, stderr }));
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      fail(`no ready line in ${timeoutMs} ms`);
    }, timeoutMs);
    const ready = () => {
      if (!stdout.includes('\n')) return;
      clearTimeout(timer);
      child.stdout!.off('data', ready);
      let port: number;
      try {
        const line = JSON.parse(stdout.split('\n')[0]!);
        if (line.ok !== true || !Number.isInteger(line.port)) throw new Error('not a ready line');
        port = line.port;
      } catch {
        fail('the first line is not the ready line');
        return;
      }
      resolve({
        child,
        port,
        origin: `http://127.0.0.1:${port}`,
        output: () => ({ stdout, stderr }),
        exited,
        stop: (signal = 'SIGTERM') => {
          for (const pid of serverProcessesIn(child.pid!)) process.kill(pid, signal);
          return exited;
        },
      });
    };
    child.stdout!.on('data', ready);
    void exited.then(() => {
      clearTimeout(timer);
      fail('exited before it was ready');
    });
  });
}

/** Starts a unit as systemd would: its ExecStart= with the entries of its EnvironmentFile= (and nothing of the unit's sandboxing). */
export function startUnit(sandbox: Sandbox, unitFile: string): Promise<RunningServer & { envFile: string }> {
  const unit = readFileSync(unitFile, 'utf8');
  const [command, ...args] = /^ExecStart=(.*)$/m.exec(unit)![1]!.split(' ');
  const envFile = /^EnvironmentFile=(.*)$/m.exec(unit)![1]!;
  return spawnServer(command!, args, { env: sandbox.env(envFileEntries(envFile)) }).then((server) => ({ ...server, envFile }));
}

/** A server root made by the real `server init` (no unit, port 0), with its env file's entries. */
export async function initServerRoot(sandbox: Sandbox, name = 'srv', extra: string[] = []): Promise<{ root: string; config: string; env: Record<string, string> }> {
  const root = path.join(sandbox.root, name);
  const port = extra.includes('--port') ? [] : ['--port', '0'];
  await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none', ...port, ...extra]);
  return { root, config: path.join(root, 'server.json'), env: envFileEntries(path.join(root, 'server.env')) };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** One HTTP request on a fresh connection (no pooling between tests), with the protocol header unless told otherwise. */
export function request(
  origin: string,
  method: string,
  route: string,
  options: { headers?: Record<string, string>; body?: unknown; protocol?: boolean } = {},
): Promise<HttpAnswer> {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const headers = { ...(options.protocol === false ? {} : PROTOCOL), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...options.headers };
  return new Promise((resolve, reject) => {
    const outgoing = http.request(`${origin}${route}`, { method, headers, agent: false, timeout: 20_000 }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode!, headers: response.headers, text, json });
      });
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${route} timed out`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export function login(origin: string, password: string): Promise<HttpAnswer> {
  return request(origin, 'POST', '/v1/auth/login', { body: { password } });
}

export function session(origin: string, bearer: string): Promise<HttpAnswer> {
  return request(origin, 'GET', '/v1/auth/session', { headers: { Authorization: `Bearer ${bearer}` } });
}

/** The `taskdag server run` and `taskdag ui` processes of a process group. */
export function serverProcessesIn(group: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[2]) === group && /\0(server\0run|ui)\0/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}
