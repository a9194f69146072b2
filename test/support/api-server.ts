import { readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Sandbox } from './cli.js';
import { openApiViolation } from './openapi-check.js';
import { initServerRoot, login, request, startServer, type HttpAnswer, type RunningServer } from './server-process.js';

/** A real `server run` on 127.0.0.1 with a logged-in bearer, and helpers to call its /v1 routes. */
export interface ApiServer {
  sandbox: Sandbox;
  server: RunningServer;
  root: string;
  bearer: string;
  dataRoot: string;
  get(route: string, headers?: Record<string, string>): Promise<HttpAnswer>;
  op(project: string, operation: string, args?: Record<string, unknown>, agent?: string | null): Promise<HttpAnswer>;
  /** Projects the data root holds on disk. */
  projectsOnDisk(): string[];
  close(): Promise<void>;
}

/** Every answer the tests get is held to docs/openapi.json (routes that exist, documented bodies). */
function documented(method: string, route: string, answer: HttpAnswer): HttpAnswer {
  const known = answer.status !== 404 || answer.json?.error?.code !== 'UNKNOWN_COMMAND';
  const violation = known ? openApiViolation(method, route, answer.status, answer.json) : null;
  if (violation) throw new Error(violation);
  return answer;
}

export async function startApiServer(extraEnv: Record<string, string> = {}): Promise<ApiServer> {
  const sandbox = new Sandbox();
  // No board is built at its UI root: the API must not depend on one, and the 503 hint is tested on it.
  const { root, config, env } = await initServerRoot(sandbox, 'srv', ['--ui-root', path.join(sandbox.root, 'no-board')]);
  const server = await startServer(sandbox, config, { ...env, ...extraEnv });
  const bearer = (await login(server.origin, env.TASKDAG_SERVER_PASSWORD!)).json.bearer as string;
  const auth = { Authorization: `Bearer ${bearer}` };
  const dataRoot = path.join(root, 'data');
  return {
    sandbox,
    server,
    root,
    bearer,
    dataRoot,
    get: async (route, headers = {}) => documented('GET', route, await request(server.origin, 'GET', route, { headers: { ...auth, ...headers } })),
    op: async (project, operation, args = {}, agent = 'alice') => {
      const route = `/v1/projects/${project}/ops/${operation}`;
      return documented('POST', route, await request(server.origin, 'POST', route, { headers: auth, body: { args, agent } }));
    },
    projectsOnDisk: () => {
      try {
        return readdirSync(path.join(dataRoot, 'projects'));
      } catch {
        return [];
      }
    },
    close: async () => {
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
      sandbox.remove();
    },
  };
}

/** An open event stream: every event received so far, parsed, and a way to wait for one. */
export interface EventStream {
  events: { id: string | null; event: string; data: string }[];
  waitFor(test: (event: { id: string | null; event: string }) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export function openEvents(origin: string, bearer: string, project: string, lastEventId?: number): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'X-Taskdag-Protocol-Version': '1', Authorization: `Bearer ${bearer}` };
    if (lastEventId !== undefined) headers['Last-Event-ID'] = String(lastEventId);
    const outgoing = http.get(`${origin}/v1/projects/${project}/ui/events`, { headers, agent: false }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`events answered ${response.statusCode}`));
      const events: EventStream['events'] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = Object.fromEntries(block.split('\n').filter((line) => !line.startsWith(':')).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
          if (fields.event) events.push({ id: fields.id ?? null, event: fields.event, data: fields.data ?? '' });
        }
        for (const waiter of [...waiters]) waiter();
      });
      resolve({
        events,
        waitFor: (test, timeoutMs = 10_000) =>
          new Promise((done, fail) => {
            const check = () => {
              if (!events.some(test)) return;
              waiters.delete(check);
              clearTimeout(timer);
              done();
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`no such event within ${timeoutMs} ms; got ${JSON.stringify(events)}`));
            }, timeoutMs);
            waiters.add(check);
            check();
          }),
        close: () => outgoing.destroy(),
      });
    });
    outgoing.on('error', reject);
  });
}
