import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { fileTree } from '../support/file-tree.js';

/** `link` (spec 4.5), the retired protocol marker (spec 7, 9.3) and link's warning (spec 4.1). */
describe('link and the retired protocol marker', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  const checkoutFile = () => path.join(sandbox.checkout, '.taskdag.json');
  const checkoutJson = () => JSON.parse(readFileSync(checkoutFile(), 'utf8'));
  const writeCheckout = (value: unknown) => {
    mkdirSync(sandbox.checkout, { recursive: true });
    writeFileSync(checkoutFile(), JSON.stringify(value));
  };
  const taskdagHome = () => path.join(sandbox.home, '.taskdag');
  beforeEach(() => {
    sandbox = new Sandbox();
  });
  afterEach(() => sandbox.remove());

  it('creates .taskdag.json with a project id and only a type and the complete URL, talking to no server', async () => {
    const result = await sandbox.ok(['link', 'HTTPS://Taskdag.Example.test:443/team/']);
    expect(result).to.deep.include({ backend: { type: 'http', url: 'https://taskdag.example.test/team' }, previous_url: null, created: true });
    expect(result).not.to.have.property('warnings');
    expect(checkoutJson()).to.deep.equal({ project_id: result.project_id, backend: { type: 'http', url: 'https://taskdag.example.test/team' } });
    expect(existsSync(taskdagHome()), 'link copies and stores nothing under TASKDAG_HOME').to.equal(false);
  });

  it('keeps an existing project id and copies no local data', async () => {
    const { project_id } = await sandbox.init();
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    const before = fileTree(taskdagHome());
    const linked = await sandbox.ok(['link', 'http://127.0.0.1:9']);
    expect(linked).to.include({ project_id, created: false, previous_url: null });
    expect(checkoutJson()).to.deep.equal({ project_id, backend: { type: 'http', url: 'http://127.0.0.1:9' } });
    expect(fileTree(taskdagHome())).to.deep.equal(before);
  });

  it('another origin needs --replace=true; the refusal leaves the file as it was', async () => {
    const { project_id } = await sandbox.ok(['link', 'http://127.0.0.1:9']);
    const before = readFileSync(checkoutFile(), 'utf8');
    const refused = await sandbox.run(['link', 'https://other.example.test']);
    expect(refused.code).to.equal(1);
    expect(refused.json.error.code).to.equal('INVALID_ARGUMENT');
    expect(refused.json.error.details).to.deep.include({ field: 'replace', current: 'http://127.0.0.1:9', requested: 'https://other.example.test' });
    expect(readFileSync(checkoutFile(), 'utf8')).to.equal(before);
    // The same origin spelled another way is no change.
    await sandbox.ok(['link', 'http://127.0.0.1:9/']);
    const replaced = await sandbox.ok(['link', 'https://other.example.test', '--replace=true']);
    expect(replaced).to.include({ project_id, previous_url: 'http://127.0.0.1:9' });
    expect(checkoutJson()).to.deep.equal({ project_id, backend: { type: 'http', url: 'https://other.example.test' } });
  });

  it('refuses what is not an http(s) origin, and never echoes credentials put in the URL', async () => {
    for (const origin of ['ftp://example.test', 'not a url', 'https://alice:hunter2@example.test']) {
      const result = await sandbox.run(['link', origin]);
      expect(result.code, origin).to.equal(1);
      expect(result.json.error.code).to.equal('INVALID_ARGUMENT');
      expect(result.stdout).not.to.include('hunter2');
    }
    expect(existsSync(checkoutFile())).to.equal(false);
  });

  it('warns about plain HTTP beyond loopback (spec 4.1); --no-warnings before or after the command removes it', async () => {
    const warned = await sandbox.ok(['link', 'http://taskdag.example.test:8080']);
    expect(warned.warnings).to.have.length(1);
    expect(warned.warnings[0]).to.include({ kind: 'insecure-remote-http', severity: 'warning' });
    expect(warned.warnings[0].message).to.include('link').and.include('http://taskdag.example.test:8080');
    expect(await sandbox.ok(['--no-warnings', 'link', 'http://taskdag.example.test:8080'])).not.to.have.property('warnings');
    expect(await sandbox.ok(['link', 'http://taskdag.example.test:8080', '--no-warnings'])).not.to.have.property('warnings');
    const loopback = ['http://localhost:8080', 'http://127.0.0.1:8080', 'http://[::1]:8080', 'http://localhost.:8080', 'http://[::ffff:127.0.0.1]:8080', 'http://127.0.0.2:8080', 'http://[0:0:0:0:0:0:0:1]:8080'];
    for (const origin of ['https://taskdag.example.test', ...loopback]) {
      expect(await sandbox.ok(['link', origin, '--replace=true']), origin).not.to.have.property('warnings');
    }
  });

  describe('a checkout carrying a retired protocol marker', () => {
    const retired = [
      { name: 'in backend', file: { project_id: 'old-1', backend: { type: 'http', url: 'http://127.0.0.1:9', protocol_version: 0 } }, field: 'backend.protocol_version' },
      { name: 'at the top level', file: { project_id: 'old-1', protocol_version: '0', backend: { type: 'http', url: 'http://127.0.0.1:9' } }, field: 'protocol_version' },
    ];
    for (const { name, file, field } of retired) {
      it(`(${name}) fails every command but link with REMOTE_CONFIG_OUTDATED before any auth or local state I/O`, async () => {
        writeCheckout(file);
        const before = fileTree(sandbox.root);
        for (const args of [['status'], ['init'], ['add-initiative', 'core', '--as', 'alice'], ['login'], ['logout'], ['push', '--as', 'alice'], ['pull', '--as', 'alice'], ['snapshots'], ['migrate', '--dry-run']]) {
          const result = await sandbox.run(args);
          expect(result.code, args.join(' ')).to.equal(1);
          expect(result.json.error.code, args.join(' ')).to.equal('REMOTE_CONFIG_OUTDATED');
          expect(result.json.error.details).to.deep.include({ field, origin: 'http://127.0.0.1:9' });
          expect(result.json.error.message).to.include('taskdag link http://127.0.0.1:9');
        }
        expect(fileTree(sandbox.root)).to.deep.equal(before);
      });
    }

    it('link <configured-origin> cleans it, keeping the project id; another origin still needs --replace=true', async () => {
      writeCheckout(retired[0]!.file);
      expect((await sandbox.run(['link', 'http://127.0.0.1:10'])).json.error.code).to.equal('INVALID_ARGUMENT');
      await sandbox.ok(['link', 'http://127.0.0.1:9']);
      expect(checkoutJson()).to.deep.equal({ project_id: 'old-1', backend: { type: 'http', url: 'http://127.0.0.1:9' } });
      // No longer outdated: a command now tries the server (and, not logged in, stops at auth).
      expect((await sandbox.run(['status'])).json.error.code).to.equal('AUTH_INVALID');

      writeCheckout(retired[1]!.file);
      await sandbox.ok(['link', 'https://new.example.test', '--replace=true']);
      expect(checkoutJson()).to.deep.equal({ project_id: 'old-1', backend: { type: 'http', url: 'https://new.example.test' } });
    });
  });
});
