import { expect } from 'chai';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Sandbox, UNIT_VISIBLE_BASE } from '../support/cli.js';
import { fileTree } from '../support/file-tree.js';

describe('server doctor and server setup (spec 4.6)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let root: string;
  const file = (name: string) => path.join(root, name);
  const doctor = (...flags: string[]) => sandbox.run(['server', 'doctor', '--config', file('server.json'), ...flags]);
  const codes = (findings: any[]) => findings.map((finding) => `${finding.code}:${finding.severity}`);
  const uiRoot = () => path.join(sandbox.root, 'ui');
  beforeEach(async () => {
    sandbox = new Sandbox();
    root = path.join(sandbox.root, 'srv');
    await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none', '--port', '0', '--ui-root', uiRoot()]);
  });
  afterEach(() => sandbox.remove());

  it('passes a fresh setup, warning only about a missing UI build; every finding has a code and a fix', async () => {
    const result = await doctor();
    expect(result.code).to.equal(0);
    expect(codes(result.json.findings)).to.deep.equal(['UI_ROOT_MISSING:warning']);
    expect(result.json.findings[0].fix).to.be.a('string').that.is.not.empty;
    mkdirSync(uiRoot());
    writeFileSync(path.join(uiRoot(), 'index.html'), '<!doctype html>');
    expect((await doctor('--strict')).json.findings).to.deep.equal([]);
  });

  it('--strict turns the missing UI into a failure', async () => {
    const result = await doctor('--strict');
    expect(result.code).to.equal(1);
    expect(result.json.error.code).to.equal('SERVER_PREFLIGHT_FAILED');
    expect(codes(result.json.error.details.findings)).to.deep.equal(['UI_ROOT_MISSING:error']);
  });

  it('--probe-bind warns about a port another process holds (a failure with --strict)', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (holder.address() as net.AddressInfo).port;
      await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none', '--port', String(port), '--force']);
      const warned = await doctor('--probe-bind');
      expect(codes(warned.json.findings)).to.deep.equal(['UI_ROOT_MISSING:warning', 'BIND_UNAVAILABLE:warning']);
      expect(warned.json.findings[1].message).to.include('EADDRINUSE');
      const strict = await doctor('--probe-bind', '--strict');
      expect(codes(strict.json.error.details.findings)).to.deep.equal(['UI_ROOT_MISSING:error', 'BIND_UNAVAILABLE:error']);
    } finally {
      holder.close();
    }
  });

  it('finds loose modes, a bad secret, an out-of-range body cap and missing paths, each with its fix, and changes nothing', async () => {
    chmodSync(file('server.json'), 0o644);
    const env = readFileSync(file('server.env'), 'utf8');
    writeFileSync(file('server.env'), env.replace(/TASKDAG_SERVER_MAX_BODY_BYTES=\d+/, 'TASKDAG_SERVER_MAX_BODY_BYTES=99999999999'));
    rmSync(file('state'), { recursive: true });
    const before = fileTree(root);
    const result = await doctor('--probe-bind');
    expect(result.code).to.equal(1);
    expect(result.json.error.code).to.equal('SERVER_PREFLIGHT_FAILED');
    const findings = result.json.error.details.findings;
    expect(codes(findings)).to.deep.equal(['CONFIG_MODE:error', 'SETTING_OUT_OF_RANGE:error', 'STATE_HOME_MISSING:error', 'UI_ROOT_MISSING:warning']);
    expect(findings[0].fix).to.equal(`chmod 600 ${file('server.json')}`);
    expect(findings[1].message).to.include('TASKDAG_SERVER_MAX_BODY_BYTES');
    // No directory created, no lock taken.
    expect(fileTree(root)).to.deep.equal(before);
    expect(existsSync(file('state'))).to.equal(false);
  });

  it("checks the operator's plugins: a listed module that is missing, or that others may change, fails the preflight", async () => {
    const module = path.join(sandbox.root, 'wip-limit.js');
    writeFileSync(module, "module.exports = { name: 'wip-limit', apiVersion: 1, decide: () => ({ allow: true }) };\n", { mode: 0o644 });
    const config = JSON.parse(readFileSync(file('server.json'), 'utf8'));
    writeFileSync(file('server.json'), JSON.stringify({ ...config, plugins: { 'wip-limit': module, gone: path.join(sandbox.root, 'gone.js') } }), { mode: 0o600 });
    const missing = await doctor();
    expect(missing.json.error.code).to.equal('SERVER_PREFLIGHT_FAILED');
    expect(codes(missing.json.error.details.findings)).to.deep.equal(['PLUGIN_MODULE_MISSING:error', 'UI_ROOT_MISSING:warning']);
    writeFileSync(file('server.json'), JSON.stringify({ ...config, plugins: { 'wip-limit': module } }), { mode: 0o600 });
    expect(codes((await doctor()).json.findings)).to.deep.equal(['UI_ROOT_MISSING:warning']);
    chmodSync(module, 0o666);
    const writable = await doctor();
    expect(codes(writable.json.error.details.findings)).to.deep.equal(['PLUGIN_MODULE_WRITABLE:error', 'UI_ROOT_MISSING:warning']);
    expect(writable.json.error.details.findings[0].fix).to.equal(`chmod go-w ${module}`);
  });

  it('reports a missing or invalid env file and a weak secret', async () => {
    // Node 20 itself exits 9 when a path given to any --env-file flag is missing (docs/operating.md),
    // so a missing env file is shown with the default path.
    const moved = path.join(sandbox.root, 'moved.env');
    writeFileSync(moved, readFileSync(file('server.env')), { mode: 0o600 });
    rmSync(file('server.env'));
    expect(codes((await doctor()).json.error.details.findings)).to.include('ENV_MISSING:error');
    expect(codes((await doctor('--env-file', moved)).json.findings)).to.deep.equal(['UI_ROOT_MISSING:warning']);
    writeFileSync(file('server.env'), readFileSync(moved), { mode: 0o600 });
    writeFileSync(file('server.env'), 'export TASKDAG_SERVER_PASSWORD=x\n');
    expect(codes((await doctor()).json.error.details.findings)).to.include('ENV_INVALID:error');
    writeFileSync(file('server.env'), 'TASKDAG_SERVER_PASSWORD=short\n');
    const weak = await doctor();
    expect(weak.code).to.equal(0);
    expect(codes(weak.json.findings)).to.include('SECRET_WEAK:warning');
    writeFileSync(file('server.env'), 'TASKDAG_SERVER_PASSWORD=correct-horse-battery\nTASKDAG_PASSWORD_GENERATION=two\n');
    expect(codes((await doctor()).json.error.details.findings)).to.include('PASSWORD_GENERATION_INVALID:error');
  });

  it('reports a missing configuration without creating anything', async () => {
    const elsewhere = path.join(sandbox.root, 'empty');
    const result = await sandbox.run(['server', 'doctor', '--config', path.join(elsewhere, 'server.json')]);
    expect(codes(result.json.error.details.findings)).to.deep.equal(['CONFIG_MISSING:error', 'ENV_MISSING:error']);
    expect(existsSync(elsewhere)).to.equal(false);
  });

  it('server setup: init and the preflight in one step, ending with the exact commands left to run', async () => {
    // A unit's root lies outside /tmp, which its PrivateTmp=true hides.
    const unitSandbox = new Sandbox(UNIT_VISIBLE_BASE);
    try {
      const fresh = path.join(unitSandbox.root, 'fresh');
      const result = await unitSandbox.ok(['server', 'setup', '--root', fresh, '--port', '7411', '--service-user', 'taskdag']);
      const unit = path.join(fresh, 'taskdag-server.service');
      expect(result.init.files.unit).to.equal(unit);
      expect(result.init.secret).to.deep.equal({ source: 'generated' });
      expect(result.doctor.probed_bind).to.equal(true);
      expect(result.next_steps).to.deep.equal([
        'id -u taskdag >/dev/null 2>&1 || sudo useradd --system --user-group --no-create-home --shell /usr/sbin/nologin taskdag',
        `sudo chown taskdag: ${fresh} ${path.join(fresh, 'server.json')}`,
        `sudo chown -R taskdag: ${path.join(fresh, 'data')} ${path.join(fresh, 'state')}`,
        `sudo install -m 0644 ${unit} /etc/systemd/system/taskdag-server.service`,
        'sudo systemctl daemon-reload',
        'sudo systemctl enable --now taskdag-server.service',
        'systemctl status taskdag-server.service',
        'taskdag link http://127.0.0.1:7411',
        'taskdag login',
      ]);
      expect(readdirSync(fresh).sort()).to.deep.equal(['data', 'server.env', 'server.json', 'state', 'taskdag-server.service']);
      expect(result).not.to.have.property('placeholders');

      // A wildcard host and port 0: the link step holds placeholders, each said how to fill.
      const wild = await unitSandbox.ok(['server', 'setup', '--root', path.join(unitSandbox.root, 'wild'), '--host', '0.0.0.0', '--port', '0']);
      expect(wild.next_steps.slice(-2)).to.deep.equal(['taskdag link http://<this-host>:<port>', 'taskdag login']);
      expect(Object.keys(wild.placeholders)).to.deep.equal(['<port>', '<this-host>']);
      expect(wild.placeholders['<port>']).to.include('journalctl -u taskdag-server.service -o cat');
    } finally {
      unitSandbox.remove();
    }
  });

  it('server setup fails with SERVER_PREFLIGHT_FAILED when the preflight finds an error, saying what init did', async () => {
    const fresh = path.join(sandbox.root, 'fresh');
    const result = await sandbox.run(['server', 'setup', '--root', fresh, '--unit', 'none', '--allow-missing-paths']);
    expect(result.code).to.equal(1);
    expect(result.json.error.code).to.equal('SERVER_PREFLIGHT_FAILED');
    expect(codes(result.json.error.details.findings)).to.include.members(['DATA_ROOT_MISSING:error', 'STATE_HOME_MISSING:error']);
    expect(result.json.error.details.init.files.config).to.equal(path.join(fresh, 'server.json'));
  });
});
