import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { seeded } from '../support/fuzz.js';
import { initServerRoot, login, PROTOCOL, request, startServer, type RunningServer } from '../support/server-process.js';

const SEED = Number(process.env.TASKDAG_FUZZ_SEED ?? 2323);
const OPENAPI = JSON.parse(readFileSync(path.resolve(__dirname, '../../../docs/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
const PARAMETERS: Record<string, string> = { project: 'p-1', nodeId: 'T-1', operation: 'show' };

/** Every route the server documents, with its parameters filled in: new routes join the battery by being documented. */
const ROUTES = Object.entries(OPENAPI.paths).flatMap(([template, operations]) =>
  Object.keys(operations)
    .filter((method) => ['get', 'post', 'put'].includes(method))
    .map((method) => ({ method: method.toUpperCase(), template, path: template.replace(/\{(\w+)\}/g, (_match, name: string) => PARAMETERS[name]!) })),
);

interface Answer {
  status: number;
  type: string;
  text: string;
}

/** One request with the path sent exactly as written (no URL parsing on the way), bounded in time. */
function exchange(port: number, method: string, target: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port, method, path: target, headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) }, agent: false });
    outgoing.setTimeout(5_000, () => {
      outgoing.destroy();
      resolve({ status: 0, type: '', text: 'no complete answer within 5 s (a stream was opened?)' });
    });
    outgoing.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, type: String(response.headers['content-type'] ?? ''), text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/**
 * Ways a path can be respelled so that a lenient reader (a proxy, a case-insensitive router, a
 * decoding framework, a browser) may still take it for the same route. Each takes the path as it
 * stands (possibly already respelled) and the indices of the route's literal segments.
 */
const RESPELLINGS: Record<string, (path: string, random: Random, literals: number[]) => string> = {
  'upper-case prefix': (p) => p.replace(/^\/v1/, '/V1'),
  'upper case': (p) => p.toUpperCase(),
  'one literal segment in upper case': (p, random, literals) => editSegment(p, pick(random, literals), (segment) => segment.toUpperCase()),
  'encoded prefix': (p, random) => p.replace(/^\/v1/, pick(random, ['/%761', '/%561', '/v%31', '/%76%31', '/%2576%2531'])),
  'encoded letter of a literal segment': (p, random, literals) =>
    editSegment(p, pick(random, literals), (segment) => {
      const at = Math.floor(random() * segment.length);
      const hex = segment.charCodeAt(at).toString(16);
      return `${segment.slice(0, at)}%${random() < 0.5 ? hex : hex.toUpperCase()}${segment.slice(at + 1)}`;
    }),
  'encoded slash or backslash': (p, random) => replaceSlash(p, random, pick(random, ['%2F', '%2f', '%5C', '\\', '%252F'])),
  'doubled slash': (p, random) => replaceSlash(p, random, '//', true),
  'dot segment': (p, random) => replaceSlash(p, random, pick(random, ['/./', '/%2e/', '/x/../', '/x/%2E%2E/', '/v1/../']), true),
  'leading traversal': (p, random) => `${pick(random, ['/x/..', '/%2e%2e', '/assets/..', '/.', '//'])}${p}`,
  'trailing slash or dot': (p, random) => `${p}${pick(random, ['/', '/.', '/%2e', '//'])}`,
};

function editSegment(p: string, index: number, edit: (segment: string) => string): string {
  const segments = p.split('/');
  if (segments[index] !== undefined) segments[index] = edit(segments[index]!);
  return segments.join('/');
}

/** Replaces one of the path's slashes (the leading one too when `leading`). */
function replaceSlash(p: string, random: Random, by: string, leading = false): string {
  const slashes = [...p.matchAll(/\//g)].map((match) => match.index!).filter((at) => leading || at > 0);
  const at = pick(random, slashes);
  return `${p.slice(0, at)}${by}${p.slice(at + 1)}`;
}

/** Each respelling alone, then `combined` random pairs of them, sent as written and in absolute form. */
function variantsOf(route: (typeof ROUTES)[number], random: Random, port: number, combined: number): string[] {
  const literals = route.template.split('/').flatMap((segment, index) => (index > 0 && !segment.startsWith('{') ? [index] : []));
  const respell = (p: string, name: string) => RESPELLINGS[name]!(p, random, literals);
  const names = Object.keys(RESPELLINGS);
  const variants = names.map((name) => respell(route.path, name));
  for (let round = 0; round < combined; round++) variants.push(respell(respell(route.path, pick(random, names)), pick(random, names)));
  variants.push(`http://127.0.0.1:${port}${respell(route.path, pick(random, names))}`);
  return [...new Set(variants)].filter((variant) => variant !== route.path);
}

describe('one spelling of every API path (issue 23): respelled paths never skip the protocol header, the bearer, or the JSON rule', function () {
  this.timeout(180_000);
  let sandbox: Sandbox;
  let server: RunningServer;
  let password: string;
  let bearer: string;
  before(async () => {
    sandbox = new Sandbox();
    // A built board, so an API path answered by the board would show as HTML.
    const uiRoot = path.join(sandbox.root, 'ui');
    mkdirSync(uiRoot, { recursive: true });
    writeFileSync(path.join(uiRoot, 'index.html'), '<!doctype html><title>board</title>');
    const { config, env } = await initServerRoot(sandbox, 'srv', ['--ui-root', uiRoot]);
    password = env.TASKDAG_SERVER_PASSWORD!;
    server = await startServer(sandbox, config, env);
    bearer = (await login(server.origin, password)).json.bearer;
    const op = (operation: string, args: object) => request(server.origin, 'POST', `/v1/projects/p-1/ops/${operation}`, { headers: { Authorization: `Bearer ${bearer}` }, body: { args, agent: 'alice' } });
    await op('init', {});
    await op('add-initiative', { name: 'core' });
    await op('add-task', { id: 'T-1', initiative: 'core', title: 'x', body: '', acceptance: 'a', blocked_by: [] });
  });
  after(async () => {
    await server.stop('SIGKILL');
    sandbox.remove();
  });

  it('the battery reaches every route: each canonical path, with the header and the bearer, is answered', async () => {
    expect(ROUTES.length).to.be.above(30);
    for (const route of ROUTES.filter((candidate) => candidate.method === 'GET' && !candidate.path.endsWith('/events'))) {
      const answer = await exchange(server.port, 'GET', route.path, { ...PROTOCOL, Authorization: `Bearer ${bearer}` });
      expect(answer.status, route.path).to.equal(200);
    }
    const board = await exchange(server.port, 'GET', '/projects/p-1', {});
    expect([board.status, board.type]).to.deep.equal([200, 'text/html; charset=utf-8']);
  });

  it(`case, encoding, slash and dot variants of every route are refused as JSON without the header or the bearer (seed ${SEED})`, async () => {
    const random = seeded(SEED);
    const loginBody = (secret: string) => JSON.stringify({ password: secret });
    const bodyOf = (route: (typeof ROUTES)[number]) => (route.path === '/v1/auth/login' ? loginBody(password) : route.method === 'GET' ? undefined : JSON.stringify({ args: { id: 'T-1' }, agent: 'alice' }));
    const attempts: { what: string; send: () => Promise<Answer> }[] = [];
    for (const route of ROUTES) {
      for (const variant of variantsOf(route, random, server.port, 6)) {
        const methods = route.method === 'GET' ? ['GET', 'HEAD'] : [route.method];
        for (const method of methods) {
          attempts.push({ what: `${method} ${variant} (no header, no bearer)`, send: () => exchange(server.port, method, variant, {}, bodyOf(route)) });
          attempts.push({ what: `${method} ${variant} (header, no bearer)`, send: () => exchange(server.port, method, variant, PROTOCOL, bodyOf(route)) });
        }
        // What a cross-site page could send: wrong guesses that must not reach the login's rate limit.
        if (route.path === '/v1/auth/login') attempts.push({ what: `POST ${variant} (no header, a wrong password)`, send: () => exchange(server.port, 'POST', variant, {}, loginBody('guess')) });
      }
    }
    const problems: string[] = [];
    for (let start = 0; start < attempts.length; start += 16) {
      const batch = attempts.slice(start, start + 16);
      const answers = await Promise.all(batch.map((attempt) => attempt.send()));
      answers.forEach((answer, index) => {
        const what = batch[index]!.what;
        const envelope = batch[index]!.what.startsWith('HEAD') || answer.text.startsWith('{"ok":false');
        if (answer.status < 400 || answer.status >= 500 || !answer.type.startsWith('application/json') || !envelope) problems.push(`${what} -> ${answer.status} ${answer.type} ${answer.text.slice(0, 80)}`);
      });
    }
    expect(problems.length, `${problems.length} of ${attempts.length} variants got through:\n${problems.slice(0, 30).join('\n')}`).to.equal(0);
    expect(attempts.length).to.be.above(1000);
    // None of the wrong guesses above counted: the right password still logs in at once.
    expect((await login(server.origin, password)).status).to.equal(200);
  });
});
