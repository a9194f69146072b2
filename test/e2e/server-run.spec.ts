import { expect } from 'chai';
import { existsSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { runCli, Sandbox, UNIT_VISIBLE_BASE } from '../support/cli.js';
import { modeOf } from '../support/file-tree.js';
import { envFileEntries, initServerRoot, login, spawnServer, startServer, startUnit, type RunningServer } from '../support/server-process.js';

describe('server run (spec 4.6, 5.3)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  const servers: RunningServer[] = [];
  const start = async (config: string, env: Record<string, string | undefined>) => {
    const server = await startServer(sandbox, config, env);
    servers.push(server);
    return server;
  };
  beforeEach(() => {
    sandbox = new Sandbox();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    sandbox.remove();
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`prints one JSON line with the real port, serves, and on ${signal} releases the lock and exits 0`, async () => {
      const { root, config, env } = await initServerRoot(sandbox);
      const server = await start(config, env);
      expect(server.output().stdout).to.equal(`${JSON.stringify({ ok: true, host: '127.0.0.1', port: server.port })}\n`);
      expect(server.port).to.be.above(0);
      expect((await login(server.origin, env.TASKDAG_SERVER_PASSWORD!)).status).to.equal(200);
      expect(await server.stop(signal)).to.deep.equal({ code: 0, signal: null });
      const { stdout, stderr } = server.output();
      expect(stdout.split('\n').filter(Boolean)).to.have.length(1);
      expect(`${stdout}${stderr}`).not.to.include(env.TASKDAG_SERVER_PASSWORD!);
      expect(modeOf(path.join(root, 'state', 'remote-auth.json'))).to.equal('600');
      expect(modeOf(path.join(root, 'state', '.server.lock'))).to.equal('600');
      // The lock went with the process: the same state home serves again.
      const again = await start(config, env);
      expect((await login(again.origin, env.TASKDAG_SERVER_PASSWORD!)).status).to.equal(200);
    });
  }

  it('handles a signal sent the moment its ready line is read (the handler is in place before the line goes out)', async () => {
    const { config, env } = await initServerRoot(sandbox);
    for (let round = 0; round < 5; round++) {
      const server = await start(config, env);
      expect(await server.stop(), `round ${round}: ${server.output().stderr}`).to.deep.equal({ code: 0, signal: null });
    }
  });

  it('refuses to start without the password, with a bad one, or with an out-of-range setting, creating nothing', async () => {
    const { root, config, env } = await initServerRoot(sandbox);
    const cases: [Record<string, string | undefined>, string, Record<string, unknown>][] = [
      [{}, 'MISSING_FIELD', { field: 'TASKDAG_SERVER_PASSWORD' }],
      [{ TASKDAG_SERVER_PASSWORD: '' }, 'MISSING_FIELD', { field: 'TASKDAG_SERVER_PASSWORD' }],
      [{ TASKDAG_SERVER_PASSWORD: 'has space' }, 'INVALID_ARGUMENT', { field: 'TASKDAG_SERVER_PASSWORD' }],
      [{ ...env, TASKDAG_SERVER_MAX_BODY_BYTES: '12abc' }, 'INVALID_ARGUMENT', {}],
      [{ ...env, TASKDAG_SERVER_DRAIN_MS: '999999999' }, 'INVALID_ARGUMENT', {}],
      [{ ...env, TASKDAG_PASSWORD_GENERATION: '-1' }, 'INVALID_ARGUMENT', { field: 'TASKDAG_PASSWORD_GENERATION' }],
    ];
    for (const [extra, code, details] of cases) {
      const result = await sandbox.run(['server', 'run', config], { env: extra });
      const label = `${JSON.stringify(extra)} -> ${result.stdout}${result.stderr}`;
      expect(result.code, label).to.equal(1);
      expect(result.json.error.code, label).to.equal(code);
      expect(result.json.error.details, label).to.deep.include(details);
    }
    expect(existsSync(path.join(root, 'state', 'remote-auth.json'))).to.equal(false);
    expect(existsSync(path.join(root, 'state', '.server.lock'))).to.equal(false);
  });

  it('takes the password only from the environment: never from argv', async () => {
    const { config, env } = await initServerRoot(sandbox);
    const result = await sandbox.run(['server', 'run', config, env.TASKDAG_SERVER_PASSWORD!]);
    expect(result.code).to.equal(1);
    expect(result.json.error.code).to.equal('INVALID_ARGUMENT');
  });

  it('refuses a missing configuration or storage directory, and never creates them', async () => {
    const { root, config, env } = await initServerRoot(sandbox);
    const missingConfig = await sandbox.run(['server', 'run', path.join(sandbox.root, 'none.json')], { env });
    expect(missingConfig.json.error).to.deep.include({ code: 'STORAGE_ERROR' });
    expect(missingConfig.json.error.details.cause).to.equal('ENOENT');
    rmSync(path.join(root, 'data'), { recursive: true });
    const missingData = await sandbox.run(['server', 'run', config], { env });
    expect(missingData.json.error.code).to.equal('STORAGE_ERROR');
    expect(missingData.json.error.details.path).to.equal(path.join(root, 'data'));
    expect(existsSync(path.join(root, 'data'))).to.equal(false);
    const noConfig = await sandbox.run(['server', 'run'], { env });
    expect(noConfig.json.error).to.deep.include({ code: 'MISSING_FIELD' });
  });

  it('a second server on the same state home fails with SERVER_ALREADY_RUNNING before listening; the first keeps serving', async () => {
    const { config, env } = await initServerRoot(sandbox);
    const first = await start(config, env);
    const second = await sandbox.run(['server', 'run', config], { env });
    expect(second.code).to.equal(1);
    expect(second.json.error.code).to.equal('SERVER_ALREADY_RUNNING');
    expect((await login(first.origin, env.TASKDAG_SERVER_PASSWORD!)).status).to.equal(200);
  });

  it('a port another process holds fails with SERVER_BIND_FAILED and releases the lock', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (holder.address() as net.AddressInfo).port;
      const { config, env } = await initServerRoot(sandbox, 'srv', []);
      await sandbox.ok(['server', 'init', '--root', path.dirname(config), '--unit', 'none', '--port', String(port), '--force']);
      const refused = await sandbox.run(['server', 'run', config], { env });
      expect(refused.json.error).to.deep.include({ code: 'SERVER_BIND_FAILED' });
      expect(refused.json.error.details).to.deep.include({ cause: 'EADDRINUSE', port });
      await sandbox.ok(['server', 'init', '--root', path.dirname(config), '--unit', 'none', '--port', '0', '--force']);
      await start(config, env);
    } finally {
      holder.close();
    }
  });

  it("runs from the start command server setup prints for --unit none (the env file sourced by a shell)", async () => {
    const root = path.join(sandbox.root, 'srv');
    const setup = await sandbox.ok(['server', 'setup', '--root', root, '--unit', 'none', '--port', '0']);
    const startLine: string = setup.next_steps[0];
    expect(startLine).to.match(/^sh -c '.* server run \S+'$/);
    const server = await spawnServer('/bin/sh', ['-c', startLine.slice("sh -c '".length, -1)], { env: sandbox.env() });
    servers.push(server);
    expect((await login(server.origin, envFileEntries(path.join(root, 'server.env')).TASKDAG_SERVER_PASSWORD!)).status).to.equal(200);
    // Port 0: the link step cannot name the port, and says where the real one is: the line the start command printed.
    expect(setup.next_steps.slice(-2)).to.deep.equal(['taskdag link http://127.0.0.1:<port>', 'taskdag login']);
    expect(Object.keys(setup.placeholders)).to.deep.equal(['<port>']);
    expect(setup.placeholders['<port>']).to.include('the start command above prints');
    expect(setup.next_steps.at(-2).replace('<port>', String(server.port))).to.equal(`taskdag link ${server.origin}`);
    expect(await server.stop()).to.deep.equal({ code: 0, signal: null });
  });

  it("runs from the unit's ExecStart= with its EnvironmentFile=, as systemd would start it", async () => {
    // A unit's root lies outside /tmp, which its PrivateTmp=true hides.
    sandbox.remove();
    sandbox = new Sandbox(UNIT_VISIBLE_BASE);
    const root = path.join(sandbox.root, 'srv');
    await sandbox.ok(['server', 'init', '--root', root, '--port', '0']);
    const server = await startUnit(sandbox, path.join(root, 'taskdag-server.service'));
    servers.push(server);
    expect((await login(server.origin, envFileEntries(server.envFile).TASKDAG_SERVER_PASSWORD!)).status).to.equal(200);
    expect(await server.stop()).to.deep.equal({ code: 0, signal: null });
  });

  it('the global help lists the four server commands', async () => {
    const help = await runCli(['--help']);
    for (const command of ['server init', 'server doctor', 'server setup', 'server run']) expect(help.stdout).to.include(`taskdag ${command}`);
  });
});
