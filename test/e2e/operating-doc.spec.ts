import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox, UNIT_VISIBLE_BASE, UNIT_VISIBLE_BINARY } from '../support/cli.js';
import { envFileEntries, login, spawnServer, startUnit, type RunningServer } from '../support/server-process.js';
import { docCommands } from '../support/doc-commands.js';
import { ensureSystemdAnalyze, verifyUnit } from '../support/systemd.js';

const DOC = path.resolve(__dirname, '../../../docs/operating.md');


/**
 * Walks docs/operating.md's procedure as an operator would, in a sandbox: /srv/ becomes the
 * sandbox's, `taskdag` the built binary, and the service manager is played by the test (start
 * = the unit's ExecStart= with its EnvironmentFile=, stop = SIGTERM and a clean exit). A command
 * the walk does not know fails the test, so the doc cannot show a command no test runs.
 */
describe('docs/operating.md (every command runs)', function () {
  this.timeout(600_000);
  let sandbox: Sandbox;
  /** The servers running: the unit's, and one started by hand. */
  const running = new Map<'unit' | 'by-hand', RunningServer>();
  before(() => {
    // The doc's /srv/ moves into the sandbox, which the unit must see: outside /tmp (PrivateTmp=true).
    sandbox = new Sandbox(UNIT_VISIBLE_BASE);
    mkdirSync(sandbox.checkout, { recursive: true });
    ensureSystemdAnalyze();
  });
  after(async () => {
    for (const server of running.values()) await server.stop('SIGKILL');
    sandbox.remove();
  });

  const local = (line: string) =>
    line.replaceAll(' /srv/', ` ${sandbox.root}/srv/`).replace(/(^|[\s(])taskdag(?= )/g, `$1'${process.execPath}' '${UNIT_VISIBLE_BINARY}'`);

  /**
   * Records a started server after checking it lets a client log in with its env file's password,
   * or, once its identities are bound (section 8), only with a credential's secret.
   */
  async function started(which: 'unit' | 'by-hand', server: RunningServer, envFile: string): Promise<void> {
    expect(running.has(which), `the ${which} server is running already`).to.equal(false);
    running.set(which, server);
    const root = path.dirname(envFile);
    const password = await login(server.origin, envFileEntries(envFile).TASKDAG_SERVER_PASSWORD!);
    if (JSON.parse(readFileSync(path.join(root, 'server.json'), 'utf8')).identities !== 'bound') {
      expect(password.status, password.text).to.equal(200);
      return;
    }
    expect(password.status, password.text).to.equal(401);
    const secret = readFileSync(path.join(root, 'credentials', 'alice.secret'), 'utf8').trim();
    const answer = await login(server.origin, secret);
    expect(answer.status, answer.text).to.equal(200);
  }

  async function stopped(which: 'unit' | 'by-hand'): Promise<void> {
    expect(running.has(which), `the ${which} server is not running`).to.equal(true);
    expect(await running.get(which)!.stop()).to.deep.equal({ code: 0, signal: null });
    running.delete(which);
  }

  it('runs the whole procedure: setup, install, start, stop, rotation, recovery, and a server by hand', async () => {
    const commands = docCommands(DOC);
    expect(commands.length).to.be.above(15);
    for (const original of commands) {
      const line = local(original);
      let match: RegExpExecArray | null;
      if (/^sudo chown (-R )?taskdag: /.test(original) || /^id -u taskdag >\/dev\/null 2>&1 \|\| sudo useradd /.test(original)) {
        continue; // the service user is not made here; init's output carries these lines (test/e2e/server-init.spec.ts)
      } else if ((match = /^sudo install -m 0644 (\S+) \/etc\/systemd\/system\/taskdag-server\.service$/.exec(line))) {
        const verified = verifyUnit(match[1]!);
        expect(verified.status, verified.output).to.equal(0);
      } else if (original === 'sudo systemctl daemon-reload') {
        continue;
      } else if ((match = /^sudo systemctl (enable --now|start) (\S+)$/.exec(original))) {
        const server = await startUnit(sandbox, path.join(sandbox.root, 'srv', 'taskdag', match[2]!));
        await started('unit', server, server.envFile);
      } else if (/^sudo systemctl stop /.test(original)) {
        await stopped('unit');
      } else if (/^systemctl status /.test(original)) {
        expect(running.get('unit')?.child.exitCode).to.equal(null);
      } else if (/^(cp|mv) /.test(original)) {
        const result = spawnSync('/bin/sh', ['-c', line], { encoding: 'utf8' });
        expect(result.status, `${original}: ${result.stderr}`).to.equal(0);
      } else if ((match = /^\(set -a && \. (\S+) /.exec(line))) {
        await started('by-hand', await spawnServer('/bin/sh', ['-c', line], { env: sandbox.env() }), match[1]!);
      } else if (/^taskdag /.test(original)) {
        const result = spawnSync('/bin/sh', ['-c', line], { cwd: sandbox.checkout, env: sandbox.env() as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 });
        expect(result.status, `${original}\n${result.stdout}${result.stderr}`).to.equal(0);
        expect(() => JSON.parse(result.stdout), original).not.to.throw();
      } else {
        expect.fail(`docs/operating.md shows a command no test runs: ${original}`);
      }
    }
    for (const which of [...running.keys()]) await stopped(which);
  });
});
