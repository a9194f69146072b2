import { expect } from 'chai';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { Sandbox, UNIT_VISIBLE_BASE } from '../support/cli.js';
import { fileTree, modeOf } from '../support/file-tree.js';
import { ensureSystemdAnalyze, unitExposure, verifyUnit } from '../support/systemd.js';

const SECRET_LINE = /^TASKDAG_SERVER_PASSWORD=([A-Za-z0-9_-]{43})$/m;

describe('server init (spec 4.6)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let root: string;
  const file = (name: string) => path.join(root, name);
  const secretOf = () => SECRET_LINE.exec(readFileSync(file('server.env'), 'utf8'))?.[1];
  beforeEach(() => {
    sandbox = new Sandbox(UNIT_VISIBLE_BASE);
    root = path.join(sandbox.root, 'srv');
  });
  afterEach(() => sandbox.remove());

  it('--dry-run reports every file and action and writes nothing', async () => {
    const result = await sandbox.ok(['server', 'init', '--root', root, '--dry-run']);
    expect(result.dry_run).to.equal(true);
    expect(result.files).to.deep.equal({ config: file('server.json'), env: file('server.env'), unit: file('taskdag-server.service') });
    expect(result.actions.map((step: any) => [path.relative(root, step.path), step.action])).to.deep.equal([
      ['', 'create'],
      ['server.json', 'create'],
      ['server.env', 'create'],
      ['taskdag-server.service', 'create'],
      ['data', 'create'],
      ['state', 'create'],
    ]);
    expect(existsSync(root)).to.equal(false);
  });

  it('writes private files (0600) and directories (0700), a 32-byte base64url secret, and a unit systemd accepts', async function () {
    this.timeout(600_000);
    const result = await sandbox.ok(['server', 'init', '--root', root, '--host', '0.0.0.0', '--port', '8123']);
    expect(result.files.unit).to.equal(file('taskdag-server.service'));
    expect(result.secret).to.deep.equal({ source: 'generated' });
    for (const name of ['server.json', 'server.env', 'taskdag-server.service']) expect(modeOf(file(name)), name).to.equal('600');
    for (const name of ['', 'data', 'state']) expect(modeOf(file(name)), name).to.equal('700');
    expect(Buffer.from(secretOf()!, 'base64url')).to.have.length(32);
    expect(JSON.parse(readFileSync(file('server.json'), 'utf8'))).to.deep.equal({ ...result.config, version: 1, host: '0.0.0.0', port: 8123 });
    expect(readFileSync(file('server.json'), 'utf8')).not.to.include(secretOf()!);

    const unit = readFileSync(file('taskdag-server.service'), 'utf8');
    expect(unit).to.include('ProtectSystem=strict\n').and.include('ProtectHome=true\n');
    expect(unit).to.include(`ReadWritePaths=${file('data')} ${file('state')}\n`);
    expect(unit).to.include(`EnvironmentFile=${file('server.env')}\n`);
    expect(unit).to.match(new RegExp(`^ExecStart=${process.execPath} \\S+/dist/taskdag\\.js server run ${file('server.json')}$`, 'm'));
    ensureSystemdAnalyze();
    const verified = verifyUnit(file('taskdag-server.service'));
    expect(verified.status, verified.output).to.equal(0);
    expect(verified.output).to.equal('');
  });

  it('without --service-user the unit runs as a dedicated user, whose creation and files init reports but never runs', async () => {
    const result = await sandbox.ok(['server', 'init', '--root', root]);
    expect(result.service_user).to.equal('taskdag');
    expect(readFileSync(file('taskdag-server.service'), 'utf8')).to.match(/^User=taskdag$/m);
    expect(result.ownership).to.deep.equal([
      'id -u taskdag >/dev/null 2>&1 || sudo useradd --system --user-group --no-create-home --shell /usr/sbin/nologin taskdag',
      `sudo chown taskdag: ${root} ${file('server.json')}`,
      `sudo chown -R taskdag: ${file('data')} ${file('state')}`,
    ]);
  });

  for (const port of ['7407', '443']) {
    it(`the unit (port ${port}) rates OK on systemd-analyze security (exposure <= 2.0), passes verify, and leaves V8 its writable-executable memory`, async function () {
      this.timeout(600_000);
      await sandbox.ok(['server', 'init', '--root', root, '--port', port]);
      const unitFile = file('taskdag-server.service');
      const unit = readFileSync(unitFile, 'utf8');
      expect(unit).not.to.match(/^MemoryDenyWriteExecute=/m);
      // Binding a port below 1024 needs its one capability, and nothing more.
      expect(unit).to.include(port === '443' ? 'CapabilityBoundingSet=CAP_NET_BIND_SERVICE\n' : 'CapabilityBoundingSet=\n');
      ensureSystemdAnalyze();
      const { exposure, output } = unitExposure(unitFile);
      expect(exposure, output).to.be.at.most(2.0);
      const verified = verifyUnit(unitFile);
      expect(verified.status, verified.output).to.equal(0);
      expect(verified.output).to.equal('');
    });
  }

  it('a re-run touches nothing (content, mode, mtime) and keeps the password; omitted flags keep server.json', async () => {
    await sandbox.ok(['server', 'init', '--root', root, '--port', '8123']);
    const before = fileTree(root);
    const again = await sandbox.ok(['server', 'init', '--root', root]);
    expect(again.actions.every((step: any) => step.action === 'keep')).to.equal(true);
    expect(again.secret).to.deep.equal({ source: 'adopted' });
    expect(again.config.port).to.equal(8123);
    expect(fileTree(root)).to.deep.equal(before);
  });

  it('adopts a structurally valid hand-written server.env verbatim, comments and extra keys included', async () => {
    mkdirSync(root, { mode: 0o700 });
    const handWritten = '# chosen by the operator\nTASKDAG_SERVER_PASSWORD=correct-horse-battery-staple\n\nTASKDAG_SERVER_MAX_BODY_BYTES=1048576\n';
    writeFileSync(file('server.env'), handWritten, { mode: 0o600 });
    const result = await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none', '--print-secret']);
    expect(result.secret).to.deep.equal({ source: 'adopted', value: 'correct-horse-battery-staple' });
    expect(readFileSync(file('server.env'), 'utf8')).to.equal(handWritten);
  });

  it('makes an adopted server.env (and server.json) private again when others could read it, content untouched; a dry run only says so', async () => {
    await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none']);
    chmodSync(file('server.env'), 0o644);
    chmodSync(file('server.json'), 0o640);
    const envBefore = readFileSync(file('server.env'), 'utf8');
    const looked = await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none', '--dry-run']);
    expect(looked.actions.filter((step: any) => step.action === 'restrict-mode')).to.deep.equal([
      { path: file('server.json'), action: 'restrict-mode', reason: 'mode 0640 let group or others read it: set to 0600' },
      { path: file('server.env'), action: 'restrict-mode', reason: 'mode 0644 let group or others read it: set to 0600' },
    ]);
    expect(modeOf(file('server.env'))).to.equal('644');

    const fixed = await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none']);
    expect(fixed.actions.map((step: any) => step.action)).to.deep.equal(looked.actions.map((step: any) => step.action));
    expect(fixed.secret).to.deep.equal({ source: 'adopted' });
    expect([modeOf(file('server.env')), modeOf(file('server.json'))]).to.deep.equal(['600', '600']);
    expect(readFileSync(file('server.env'), 'utf8')).to.equal(envBefore);
    // The preflight, which refuses a readable env file (ENV_MODE), now passes.
    expect((await sandbox.run(['server', 'doctor', '--config', file('server.json')])).code).to.equal(0);
    expect((await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none'])).actions.every((step: any) => step.action === 'keep')).to.equal(true);
  });

  it('never prints the secret without --print-secret, and prints the one in server.env with it', async () => {
    const quiet = await sandbox.run(['server', 'init', '--root', root, '--unit', 'none']);
    expect(quiet.stdout).not.to.include(secretOf()!);
    expect(quiet.json.secret).to.deep.equal({ source: 'generated' });
    const loud = await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none', '--print-secret']);
    expect(loud.secret).to.deep.equal({ source: 'adopted', value: secretOf() });
  });

  it('--rotate-password rewrites only the secret and its generation: other lines, server.json and the unit stay as they were', async () => {
    await sandbox.ok(['server', 'init', '--root', root]);
    writeFileSync(file('server.env'), `${readFileSync(file('server.env'), 'utf8')}# tuned\nTASKDAG_SERVER_DRAIN_MS=2000\n`);
    const envBefore = readFileSync(file('server.env'), 'utf8');
    const oldSecret = secretOf()!;
    const before = fileTree(root);
    const result = await sandbox.ok(['server', 'init', '--root', root, '--rotate-password']);
    expect(result.secret).to.deep.equal({ source: 'rotated' });
    expect(secretOf()).to.match(/^[A-Za-z0-9_-]{43}$/).and.not.equal(oldSecret);
    expect(readFileSync(file('server.env'), 'utf8')).to.equal(envBefore.replace(oldSecret, secretOf()!).replace('TASKDAG_PASSWORD_GENERATION=1\n', 'TASKDAG_PASSWORD_GENERATION=2\n'));
    expect(modeOf(file('server.env'))).to.equal('600');
    const after = fileTree(root);
    for (const name of ['server.json', 'taskdag-server.service', 'data', 'state']) expect(after[name], name).to.deep.equal(before[name]);
  });

  it('refuses conflicting artifacts without --force and writes nothing; --force recreates only those and keeps the password', async () => {
    await sandbox.ok(['server', 'init', '--root', root, '--port', '8123']);
    const before = fileTree(root);
    const refused = await sandbox.run(['server', 'init', '--root', root, '--port', '8124', '--data-root', path.join(sandbox.root, 'elsewhere')]);
    expect(refused.code).to.equal(1);
    expect(refused.json.error.code).to.equal('SERVER_SETUP_CONFLICT');
    expect(refused.json.error.details.conflicts.map((conflict: any) => path.basename(conflict.path))).to.deep.equal(['server.json', 'taskdag-server.service']);
    expect(refused.json.error.message).to.equal(
      `2 existing artifact(s) conflict with the requested options: rerun with --force to recreate ${file('server.json')}, ${file('taskdag-server.service')} (the existing password is kept)`,
    );
    expect(fileTree(root)).to.deep.equal(before);
    expect(existsSync(path.join(sandbox.root, 'elsewhere'))).to.equal(false);
    // With --rotate-password the rerun would not keep the password, and the message does not say it would.
    const rotating = await sandbox.run(['server', 'init', '--root', root, '--port', '8124', '--rotate-password']);
    expect(rotating.json.error.message).to.match(/\(the password is rotated, as --rotate-password asks\)$/);
    expect(fileTree(root)).to.deep.equal(before);

    const forced = await sandbox.ok(['server', 'init', '--root', root, '--port', '8124', '--force']);
    expect(forced.actions.map((step: any) => [path.basename(step.path), step.action])).to.deep.include.members([
      ['server.json', 'replace'],
      ['server.env', 'keep'],
      ['taskdag-server.service', 'keep'],
    ]);
    expect(forced.secret.source).to.equal('adopted');
    expect(fileTree(root)['server.env']).to.deep.equal(before['server.env']);
    expect(JSON.parse(readFileSync(file('server.json'), 'utf8')).port).to.equal(8124);
  });

  it('mints a new secret only with --force over a structurally invalid server.env', async () => {
    await sandbox.ok(['server', 'init', '--root', root]);
    writeFileSync(file('server.env'), 'TASKDAG_SERVER_PASSWORD="quoted value"\n');
    const before = fileTree(root);
    const refused = await sandbox.run(['server', 'init', '--root', root]);
    expect(refused.json.error.code).to.equal('SERVER_SETUP_CONFLICT');
    expect(refused.json.error.details.conflicts[0].reason).to.match(/structurally invalid/);
    expect(refused.json.error.message).to.equal(
      `1 existing artifact(s) conflict with the requested options: rerun with --force to recreate ${file('server.env')} (${file('server.env')} is structurally invalid, so --force writes a new one with a new password)`,
    );
    expect(fileTree(root)).to.deep.equal(before);
    const forced = await sandbox.ok(['server', 'init', '--root', root, '--force']);
    expect(forced.secret).to.deep.equal({ source: 'regenerated' });
    expect(secretOf()).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(fileTree(root)['server.json']).to.deep.equal(before['server.json']);
  });

  it('regenerates with --force a unit whose start command is not `server run` (a pre-single-binary unit)', async () => {
    await sandbox.ok(['server', 'init', '--root', root]);
    const current = readFileSync(file('taskdag-server.service'), 'utf8');
    writeFileSync(file('taskdag-server.service'), current.replace(/^ExecStart=.*$/m, 'ExecStart=/usr/bin/node /opt/taskdag/server.js'));
    const refused = await sandbox.run(['server', 'init', '--root', root]);
    expect(refused.json.error.code).to.equal('SERVER_SETUP_CONFLICT');
    expect(refused.json.error.details.conflicts).to.deep.equal([
      { path: file('taskdag-server.service'), reason: 'its start command is not `server run` (a unit from before the single-binary runtime): regenerate it' },
    ]);
    await sandbox.ok(['server', 'init', '--root', root, '--force']);
    expect(readFileSync(file('taskdag-server.service'), 'utf8')).to.equal(current);
  });

  it('--unit none writes no unit; --service-user prints ownership commands and runs none; --allow-missing-paths creates no directories', async () => {
    const result = await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none', '--service-user', 'taskdag', '--allow-missing-paths']);
    expect(result.files.unit).to.equal(null);
    expect(existsSync(file('taskdag-server.service'))).to.equal(false);
    expect(result.service_user).to.equal('taskdag');
    expect(result.ownership).to.deep.equal([
      'id -u taskdag >/dev/null 2>&1 || sudo useradd --system --user-group --no-create-home --shell /usr/sbin/nologin taskdag',
      `sudo chown taskdag: ${root} ${file('server.json')} ${file('server.env')}`,
      `sudo chown -R taskdag: ${file('data')} ${file('state')}`,
    ]);
    expect(result.actions.filter((step: any) => step.action === 'defer').map((step: any) => step.path)).to.deep.equal([file('data'), file('state')]);
    expect(existsSync(file('data')) || existsSync(file('state'))).to.equal(false);
  });

  it('puts User= in the unit for --service-user, which systemd still accepts', async function () {
    this.timeout(600_000);
    const result = await sandbox.ok(['server', 'init', '--root', root, '--service-user', 'nobody']);
    expect(result.ownership).to.deep.equal([
      'id -u nobody >/dev/null 2>&1 || sudo useradd --system --user-group --no-create-home --shell /usr/sbin/nologin nobody',
      `sudo chown nobody: ${root} ${file('server.json')}`,
      `sudo chown -R nobody: ${file('data')} ${file('state')}`,
    ]);
    expect(readFileSync(file('taskdag-server.service'), 'utf8')).to.include('\nUser=nobody\n');
    // A re-run without the flag keeps the unit's user, like every other option left out.
    const before = fileTree(root);
    expect((await sandbox.ok(['server', 'init', '--root', root])).actions.every((step: any) => step.action === 'keep')).to.equal(true);
    expect(fileTree(root)).to.deep.equal(before);
    ensureSystemdAnalyze();
    const verified = verifyUnit(file('taskdag-server.service'));
    expect(verified.status, verified.output).to.equal(0);
  });

  it('refuses bad options with a clear error and creates nothing', async () => {
    const inTmp = path.join(os.tmpdir(), `taskdag-srv-${process.pid}`);
    const cases: [string[], string, Record<string, unknown>][] = [
      [['--root', '/home/taskdag-srv'], 'INVALID_ARGUMENT', { field: 'root', hidden_by: 'ProtectHome=true' }],
      [['--root', root, '--data-root', '/root/taskdag-data'], 'INVALID_ARGUMENT', { field: 'dataRoot' }],
      [['--root', inTmp], 'INVALID_ARGUMENT', { field: 'root', path: inTmp, hidden_by: 'PrivateTmp=true' }],
      [['--root', root, '--state-home', '/var/tmp/taskdag-state'], 'INVALID_ARGUMENT', { field: 'stateHome', hidden_by: 'PrivateTmp=true' }],
      [['--root', root, '--ui-root', '/tmp/taskdag-ui'], 'INVALID_ARGUMENT', { field: 'uiRoot', hidden_by: 'PrivateTmp=true' }],
      [['--root', root, '--port', '70000'], 'INVALID_ARGUMENT', { flag: '--port' }],
      [['--root', root, '--port', 'http'], 'INVALID_ARGUMENT', { flag: '--port' }],
      [['--root', root, '--host', ''], 'INVALID_ARGUMENT', { flag: '--host' }],
      [['--root', root, '--unit', 'upstart'], 'INVALID_ARGUMENT', {}],
      [['--root', root, '--service-user', 'bad user'], 'INVALID_ARGUMENT', { flag: '--service-user' }],
      [['--root', root, '--state-home', path.join(root, 'data')], 'INVALID_ARGUMENT', { flag: '--state-home' }],
    ];
    for (const [args, code, details] of cases) {
      const result = await sandbox.run(['server', 'init', ...args]);
      expect(result.code, args.join(' ')).to.equal(1);
      expect(result.json.error.code, args.join(' ')).to.equal(code);
      expect(result.json.error.details, args.join(' ')).to.deep.include(details);
    }
    expect([root, '/home/taskdag-srv', '/root/taskdag-data', inTmp, '/var/tmp/taskdag-state'].filter((dir) => existsSync(dir))).to.deep.equal([]);
    // Without a unit nothing hides /tmp.
    expect((await sandbox.ok(['server', 'init', '--root', inTmp, '--unit', 'none', '--dry-run'])).service_user).to.equal(null);
  });

  it('refuses, even with --force, a data root that exists and is not a directory, and says --force will not help', async () => {
    mkdirSync(root, { mode: 0o700 });
    writeFileSync(file('data'), 'not a directory');
    const byHand = `1 existing artifact(s) conflict with the requested options: move ${file('data')} aside by hand: it should be a directory, and --force never replaces it`;
    for (const flags of [['--force'], []]) {
      const result = await sandbox.run(['server', 'init', '--root', root, ...flags]);
      expect(result.json.error.code).to.equal('SERVER_SETUP_CONFLICT');
      expect(result.json.error.details.conflicts).to.deep.equal([{ path: file('data'), reason: 'exists and is not a directory' }]);
      expect(result.json.error.message, flags.join(' ')).to.equal(byHand);
      expect(Object.keys(fileTree(root))).to.deep.equal(['data']);
    }
  });
});
