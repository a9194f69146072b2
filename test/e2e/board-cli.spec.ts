import { expect } from 'chai';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { BINARY, Sandbox } from '../support/cli.js';
import { startLocalBoard } from '../support/local-board.js';
import { eventually } from '../support/browser.js';
import { request, spawnServer } from '../support/server-process.js';

const ROOT = path.resolve(__dirname, '../../..');

describe('taskdag ui and urls (the real binary)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let project: string;

  before(async () => {
    sandbox = new Sandbox();
    ({ project_id: project } = await sandbox.ok(['init']));
    await sandbox.ok(['add-initiative', 'billing', '--as', 'alice']);
    await sandbox.ok(['add-task', 'T-1', '--initiative', 'billing', '--title', 'One', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice']);
  });
  after(() => sandbox.remove());

  describe('urls', () => {
    it('prints the local board links, each marked local_only, on port 7408 by default', async () => {
      const result = await sandbox.ok(['urls', '--id', 'T-1', '--initiative', 'billing']);
      const base = `http://127.0.0.1:7408/projects/${project}`;
      expect(result).to.deep.equal({
        project,
        origin: 'http://127.0.0.1:7408',
        local_only: true,
        links: [
          { view: 'catalog', url: 'http://127.0.0.1:7408/', local_only: true },
          { view: 'board', url: base, local_only: true },
          { view: 'gates', url: `${base}/gates`, local_only: true },
          { view: 'graph', url: `${base}/graph`, local_only: true },
          { view: 'activity', url: `${base}/activity`, local_only: true },
          { view: 'initiative', url: `${base}?initiative=billing`, local_only: true },
          { view: 'initiative-graph', url: `${base}/graph?initiative=billing`, local_only: true },
          { view: 'node', url: `${base}/nodes/T-1`, local_only: true },
          { view: 'node-graph', url: `${base}/graph?focus=T-1`, local_only: true },
        ],
      });
    });

    it('puts links on --origin, or on the server a linked checkout names, not marked local_only', async () => {
      const served = await sandbox.ok(['urls', '--origin', 'https://Board.Example.com/', '--id', 'T-unknown-here']);
      expect(served.origin).to.equal('https://board.example.com');
      expect(served.local_only).to.equal(false);
      expect(served.links.every((link: { url: string; local_only: boolean }) => link.url.startsWith('https://board.example.com/') && !link.local_only)).to.equal(true);

      const linked = new Sandbox();
      try {
        await linked.ok(['link', 'http://127.0.0.1:9']);
        const result = await linked.ok(['urls']);
        expect(result.origin).to.equal('http://127.0.0.1:9');
        expect(result.local_only).to.equal(false);
        // --port names the local board, even in a linked checkout.
        expect((await linked.ok(['urls', '--port', '7500'])).origin).to.equal('http://127.0.0.1:7500');
      } finally {
        linked.remove();
      }
    });

    it('escapes node ids in the links', async () => {
      await sandbox.ok(['add-task', 'T:odd', '--initiative', 'billing', '--title', 'Odd id', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice']);
      const { links } = await sandbox.ok(['urls', '--id', 'T:odd']);
      expect(links.find((link: { view: string }) => link.view === 'node').url).to.equal(`http://127.0.0.1:7408/projects/${project}/nodes/T%3Aodd`);
    });

    it('prints only the catalog outside a checkout', async () => {
      const outside = new Sandbox();
      try {
        mkdirSync(outside.checkout, { recursive: true });
        const result = await outside.ok(['urls']);
        expect(result).to.deep.equal({ project: null, origin: 'http://127.0.0.1:7408', local_only: true, links: [{ view: 'catalog', url: 'http://127.0.0.1:7408/', local_only: true }] });
        const refused = await outside.run(['urls', '--id', 'T-1']);
        expect(refused.code).to.equal(1);
        expect(refused.json.error).to.deep.include({ code: 'STORAGE_ERROR' });
        expect(refused.json.error.details.cause).to.equal('ENOENT');
      } finally {
        outside.remove();
      }
    });

    const refusals: [string, string[], string, Record<string, unknown>][] = [
      ['an unknown node on the local board', ['--id', 'T-nope'], 'NODE_NOT_FOUND', { id: 'T-nope' }],
      ['an unknown initiative on the local board', ['--initiative', 'nope'], 'INITIATIVE_NOT_FOUND', { initiative: 'nope' }],
      ['--port with --origin', ['--port', '8000', '--origin', 'https://x.example.com'], 'INVALID_ARGUMENT', { field: 'port' }],
      ['a port out of range', ['--port', '70000'], 'INVALID_ARGUMENT', { field: 'port', value: 70000 }],
      ['an origin that is not http(s)', ['--origin', 'ftp://x.example.com'], 'INVALID_ARGUMENT', { field: 'origin' }],
    ];
    for (const [what, args, code, details] of refusals) {
      it(`refuses ${what} with ${code}, exit 1`, async () => {
        const before = readFileSync(path.join(sandbox.home, '.taskdag', 'projects', project, 'tasks.json'));
        const result = await sandbox.run(['urls', ...args]);
        expect(result.code).to.equal(1);
        expect(result.json.error.code).to.equal(code);
        expect(result.json.error.details).to.deep.include(details);
        expect(readFileSync(path.join(sandbox.home, '.taskdag', 'projects', project, 'tasks.json'))).to.deep.equal(before);
      });
    }
  });

  describe('ui', () => {
    it('prints one JSON line, serves the board reads with no bearer and nothing else, and exits 0 on SIGTERM', async () => {
      // As for a project made before checkouts were noted: the board launched in it notes its checkout.
      rmSync(path.join(sandbox.home, '.taskdag', 'checkouts.json'), { force: true });
      const board = await startLocalBoard(sandbox);
      try {
        expect(board.line).to.deep.equal({
          ok: true,
          url: `${board.origin}/`,
          project_url: `${board.origin}/projects/${project}`,
          host: '127.0.0.1',
          port: board.port,
          project,
          local_only: true,
          opened: false,
        });
        const catalog = await request(board.origin, 'GET', '/v1/projects');
        expect(catalog.status).to.equal(200);
        expect(catalog.json.projects.map((entry: { id: string }) => entry.id)).to.deep.equal([project]);
        expect(catalog.json.projects[0].checkouts.map((entry: { label: string }) => entry.label)).to.deep.equal([sandbox.checkout]);
        const snapshot = await request(board.origin, 'GET', `/v1/projects/${project}/ui/snapshot`);
        expect(snapshot.status).to.equal(200);
        const revalidated = await request(board.origin, 'GET', `/v1/projects/${project}/ui/snapshot`, { headers: { 'If-None-Match': String(snapshot.headers.etag) } });
        expect(revalidated.status).to.equal(304);
        // Read-only: no operation, transfer or login route.
        const take = await request(board.origin, 'POST', `/v1/projects/${project}/ops/take`, { body: { args: { id: 'T-1' }, agent: 'mallory' } });
        expect(take.status).to.equal(404);
        expect(take.json.error.code).to.equal('UNKNOWN_COMMAND');
        expect((await request(board.origin, 'POST', '/v1/auth/login', { body: { password: 'x' } })).status).to.equal(404);
        expect((await request(board.origin, 'GET', `/v1/projects/${project}/transfer`)).status).to.equal(404);
        const page = await request(board.origin, 'GET', `/projects/${project}/nodes/T-1`, { protocol: false });
        expect(page.status).to.equal(200);
        expect(page.text).to.contain('<div id="app">');
        expect((await sandbox.ok(['show', 'T-1'])).node.status).to.equal('open');
      } finally {
        expect(await board.stop()).to.deep.equal({ code: 0, signal: null });
      }
    });

    it('answers only requests addressed to the loopback names on its port (DNS rebinding)', async () => {
      const board = await startLocalBoard(sandbox);
      try {
        const foreign = await request(board.origin, 'GET', '/v1/projects', { headers: { Host: `evil.example.com:${board.port}` } });
        expect(foreign.status).to.equal(400);
        expect(foreign.json.error.code).to.equal('INVALID_ARGUMENT');
        expect((await request(board.origin, 'GET', '/', { protocol: false, headers: { Host: `attacker.test:${board.port}` } })).status).to.equal(400);
        for (const name of ['localhost', 'LOCALHOST', 'localhost.', 'app.localhost', '127.0.0.1', '127.1']) {
          expect((await request(board.origin, 'GET', '/v1/projects', { headers: { Host: `${name}:${board.port}` } })).status, name).to.equal(200);
        }
        for (const host of [`localhost:${board.port + 1}`, `localhost.example.test:${board.port}`, `127.0.0.1.example.test:${board.port}`, `evil.test@localhost:${board.port}`, `localhost:${board.port}/x`, 'localhost']) {
          expect((await request(board.origin, 'GET', '/v1/projects', { headers: { Host: host } })).status, host).to.equal(400);
        }
      } finally {
        await board.stop();
      }
    });

    it('opens the launch project in $BROWSER with --open=true, and warns when no browser starts', async () => {
      const opener = path.join(sandbox.root, 'browser.sh');
      const seen = path.join(sandbox.root, 'opened.txt');
      writeFileSync(opener, `#!/bin/sh\necho "$1" > '${seen}'\n`);
      chmodSync(opener, 0o755);
      const opened = await spawnServer(process.execPath, [BINARY, 'ui', '--port', '0', '--open=true'], { env: sandbox.env({ BROWSER: opener }), cwd: sandbox.checkout });
      try {
        const line = JSON.parse(opened.output().stdout.split('\n')[0]!);
        expect(line.opened).to.equal(true);
        expect(line).not.to.have.property('warnings');
        await eventually('the browser script ran', async () => existsSync(seen) && readFileSync(seen, 'utf8').trim() === line.project_url);
      } finally {
        await opened.stop();
      }
      const missing = await spawnServer(process.execPath, [BINARY, 'ui', '--port', '0'], { env: sandbox.env({ BROWSER: path.join(sandbox.root, 'no-such-browser') }), cwd: sandbox.checkout });
      try {
        const line = JSON.parse(missing.output().stdout.split('\n')[0]!);
        expect(line.opened).to.equal(false);
        expect(line.warnings[0]).to.contain('ENOENT').and.contain(line.project_url);
      } finally {
        await missing.stop();
      }
    });

    it('fails with SERVER_BIND_FAILED when its port is taken, and INVALID_ARGUMENT for a port out of range', async () => {
      const holder = net.createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      try {
        const port = (holder.address() as net.AddressInfo).port;
        const busy = await sandbox.run(['ui', '--port', String(port), '--open=false']);
        expect(busy.code).to.equal(1);
        expect(busy.json.error).to.deep.include({ code: 'SERVER_BIND_FAILED' });
        expect(busy.json.error.details).to.deep.include({ port, cause: 'EADDRINUSE' });
      } finally {
        holder.close();
      }
      const wrong = await sandbox.run(['ui', '--port', '65536', '--open=false']);
      expect(wrong.code).to.equal(1);
      expect(wrong.json.error.code).to.equal('INVALID_ARGUMENT');
    });

    describe('without a board to serve (UI_UNAVAILABLE)', () => {
      let install: string;
      let binary: string;
      before(() => {
        // A copy of the built program beside no ui/ (as the published package is), using this repository's modules.
        install = path.join(sandbox.root, 'install');
        mkdirSync(path.join(install, 'dist'), { recursive: true });
        for (const name of readdirSync(path.join(ROOT, 'dist'))) if (name.endsWith('.js') || name.endsWith('.cache')) copyFileSync(path.join(ROOT, 'dist', name), path.join(install, 'dist', name));
        symlinkSync(path.join(ROOT, 'node_modules'), path.join(install, 'node_modules'));
        binary = path.join(install, 'dist', 'taskdag.js');
      });

      const cases: [string, () => void, string, string][] = [
        ['the sub-project', () => undefined, 'sub-project', 'published package'],
        ['its dependencies', () => writeFileSync(path.join(install, 'ui', 'package.json'), '{}'), 'dependencies', 'npm run build:ui'],
        ['its build', () => mkdirSync(path.join(install, 'ui', 'node_modules')), 'build', 'npm run build:ui'],
      ];
      for (const [what, arrange, missing, hint] of cases) {
        it(`names missing ${what} and how to fix it, exit 1, serving nothing`, async () => {
          mkdirSync(path.join(install, 'ui'), { recursive: true });
          arrange();
          const result = await sandbox.run(['ui', '--port', '0', '--open=false'], { binary });
          expect(result.code).to.equal(1);
          expect(result.json.error.code).to.equal('UI_UNAVAILABLE');
          expect(result.json.error.details).to.deep.include({ missing, fix: 'npm run build:ui' });
          expect(result.json.error.message).to.contain(hint);
        });
      }
    });
  });
});
