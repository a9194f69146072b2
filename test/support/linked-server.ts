import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Sandbox } from './cli.js';
import { initServerRoot, startServer, type RunningServer } from './server-process.js';
import { runInTerminal, type TerminalResult } from './terminal.js';

/** A real `server run` on 127.0.0.1 (a fixed free port, so it can be restarted at the same origin) and its setup. */
export interface LinkedServer {
  /** The server's own sandbox: its setup root and data live there, apart from every client's. */
  host: Sandbox;
  server: RunningServer;
  origin: string;
  root: string;
  config: string;
  password: string;
  env: Record<string, string>;
  /** Projects the server's data root holds on disk. */
  projectsOnDisk(): string[];
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export async function startLinkedServer(): Promise<LinkedServer> {
  const host = new Sandbox();
  const port = await freePort();
  const setup = await initServerRoot(host, 'srv', ['--port', String(port)]);
  const linked: LinkedServer = {
    host,
    server: await startServer(host, setup.config, setup.env),
    origin: `http://127.0.0.1:${port}`,
    root: setup.root,
    config: setup.config,
    password: setup.env.TASKDAG_SERVER_PASSWORD!,
    env: setup.env,
    projectsOnDisk: () => {
      try {
        return readdirSync(path.join(setup.root, 'data', 'projects'));
      } catch {
        return [];
      }
    },
    restart: async () => {
      if (isRunning(linked.server)) await linked.server.stop();
      linked.server = await startServer(host, setup.config, linked.env);
    },
    close: async () => {
      if (isRunning(linked.server)) await linked.server.stop('SIGKILL');
      host.remove();
    },
  };
  return linked;
}

/** The operator lists the plugins the server runs (server.json `plugins`) and restarts it. */
export async function allowPlugins(linked: LinkedServer, plugins: Record<string, string>): Promise<void> {
  const config = JSON.parse(readFileSync(linked.config, 'utf8'));
  writeFileSync(linked.config, JSON.stringify({ ...config, plugins }));
  await linked.restart();
}

function isRunning(server: RunningServer): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}

/** A client: its own HOME and TASKDAG_HOME, its checkout linked to the server and logged in. */
export async function linkedClient(linked: LinkedServer, { init = true } = {}): Promise<Sandbox> {
  const client = new Sandbox();
  await client.ok(['link', linked.origin]);
  await loginAt(client, linked.password);
  if (init) await client.ok(['init']);
  return client;
}

/** `taskdag login` typed at a real terminal; fails the test unless it succeeds. */
export async function loginAt(client: Sandbox, password: string, args: string[] = []): Promise<TerminalResult> {
  const result = await runInTerminal(client, ['login', ...args], password);
  if (result.code !== 0) throw new Error(`login exited ${result.code}: ${result.stdout}${result.stderr}${result.terminal}`);
  return result;
}

/** A bearer stored by hand in the client's session profile for `origin`, as login would leave it. */
export function seedSession(client: Sandbox, origin: string, bearer = 'bearer-for-a-fake-server'): void {
  const dir = path.join(client.home, '.taskdag');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'remote-sessions.json');
  let profile = { version: 1, sessions: {} as Record<string, unknown> };
  try {
    profile = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // no profile yet: this is the first entry
  }
  profile.sessions[origin] = { bearer, expires_at: null, stored_at: '2026-01-01T00:00:00.000Z' };
  writeFileSync(file, JSON.stringify(profile), { mode: 0o600 });
}

/** An HTTP server on 127.0.0.1 that is no taskdag server: it answers what `handler` says and counts requests. */
export interface FakeServer {
  origin: string;
  /** Requests it received, by path. */
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeServer(handler: (request: http.IncomingMessage, response: http.ServerResponse) => void): Promise<FakeServer> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request.url ?? '');
    request.resume();
    request.on('end', () => handler(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
