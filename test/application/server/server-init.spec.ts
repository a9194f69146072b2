import { expect } from 'chai';
import { serverInit, type ServerInitInput, type ServerInitPorts } from '../../../application/server/server-init.js';
import { rejectionOf } from '../../support/failures.js';
import { InMemoryHostFiles } from '../../support/in-memory-host-files.js';

const input = (extra: Partial<ServerInitInput> = {}): ServerInitInput => ({
  root: '/srv/taskdag',
  unit: 'systemd',
  dryRun: false,
  allowMissingPaths: false,
  force: false,
  rotatePassword: false,
  printSecret: false,
  ...extra,
});

describe('server init (application, in-memory files)', () => {
  const setup = (installation = { nodePath: '/usr/bin/node', toolPath: '/opt/taskdag/dist/taskdag.js' }) => {
    const files = new InMemoryHostFiles();
    let minted = 0;
    const ports: ServerInitPorts = { files, secrets: { secret: () => `secret-${++minted}`.padEnd(43, 'x') }, installation, defaultUiRoot: '/opt/taskdag/ui/dist' };
    return { files, ports };
  };

  it('defaults: 127.0.0.1:7407, data and state under the root, the package UI, private modes', async () => {
    const { files, ports } = setup();
    const result = await serverInit(ports, input());
    expect(result.config).to.deep.equal({ version: 1, host: '127.0.0.1', port: 7407, dataRoot: '/srv/taskdag/data', stateHome: '/srv/taskdag/state', uiRoot: '/opt/taskdag/ui/dist' });
    expect([...files.files.values()].map((file) => file.mode)).to.deep.equal([0o600, 0o600, 0o600]);
    expect(files.directories.get('/srv/taskdag/data')).to.equal(0o700);
    expect(files.files.get('/srv/taskdag/taskdag-server.service')!.text).to.include('ExecStart=/usr/bin/node /opt/taskdag/dist/taskdag.js server run /srv/taskdag/server.json\n');
  });

  for (const [what, installation, field] of [
    ['the tool', { nodePath: '/usr/bin/node', toolPath: '/home/alice/taskdag/dist/taskdag.js' }, 'tool'],
    ['Node.js', { nodePath: '/root/.nvm/versions/node/v20/bin/node', toolPath: '/opt/taskdag/dist/taskdag.js' }, 'node'],
  ] as const) {
    it(`refuses a unit when ${what} is installed under /home or /root, and writes nothing`, async () => {
      const { files, ports } = setup(installation);
      const error = await rejectionOf(() => serverInit(ports, input()));
      expect(error.code).to.equal('INVALID_ARGUMENT');
      expect(error.details).to.include({ field });
      expect(files.writes).to.equal(0);
      // Without a unit nothing hides the installation.
      await serverInit(ports, input({ unit: 'none' }));
      expect(files.files.has('/srv/taskdag/server.json')).to.equal(true);
    });
  }

  it('a dry run mints no secret and writes nothing', async () => {
    const { files, ports } = setup();
    const result = await serverInit(ports, input({ dryRun: true, printSecret: true }));
    expect(result.secret).to.deep.equal({ source: 'generated' });
    expect(files.writes).to.equal(0);
  });

  it('--store postgresql: server.json says so, server.env gets a commented template for the connection string and no value', async () => {
    const { files, ports } = setup();
    const result = await serverInit(ports, input({ unit: 'none', store: 'postgresql' }));
    expect(result.config.store).to.equal('postgresql');
    expect(JSON.parse(files.files.get('/srv/taskdag/server.json')!.text).store).to.equal('postgresql');
    const env = files.files.get('/srv/taskdag/server.env')!.text;
    expect(env).to.match(/^# TASKDAG_DATABASE_URL=postgresql:\/\//m);
    expect(env).not.to.match(/^TASKDAG_DATABASE_URL=/m);
    // A re-run keeps the store without the flag; another store conflicts unless forced.
    expect((await serverInit(ports, input({ unit: 'none' }))).actions.every((action) => action.action === 'keep')).to.equal(true);
    const writes = files.writes;
    const conflict = await rejectionOf(() => serverInit(ports, input({ unit: 'none', store: 'files' })));
    expect(conflict.code).to.equal('SERVER_SETUP_CONFLICT');
    expect(files.writes).to.equal(writes);
  });

  it("keeps the operator's plugin allow-list on a re-run: it has no flag, so nothing conflicts and nothing is rewritten", async () => {
    const { files, ports } = setup();
    await serverInit(ports, input({ unit: 'none' }));
    const config = JSON.parse(files.files.get('/srv/taskdag/server.json')!.text);
    const plugins = { 'wip-limit': '/opt/taskdag/plugins/wip-limit.js' };
    files.files.get('/srv/taskdag/server.json')!.text = JSON.stringify({ ...config, plugins });
    const writes = files.writes;
    const again = await serverInit(ports, input({ unit: 'none' }));
    expect(again.config.plugins).to.deep.equal(plugins);
    expect(again.actions.every((action) => action.action === 'keep')).to.equal(true);
    expect(files.writes).to.equal(writes);
  });

  it("keeps the operator's review rule on a re-run: nothing conflicts and nothing is rewritten", async () => {
    const { files, ports } = setup();
    await serverInit(ports, input({ unit: 'none' }));
    const config = JSON.parse(files.files.get('/srv/taskdag/server.json')!.text);
    files.files.get('/srv/taskdag/server.json')!.text = JSON.stringify({ ...config, review: 'independent' });
    const writes = files.writes;
    const again = await serverInit(ports, input({ unit: 'none' }));
    expect(again.config.review).to.equal('independent');
    expect(again.actions.every((action) => action.action === 'keep')).to.equal(true);
    expect(files.writes).to.equal(writes);
  });

  const handEdits: [string, unknown][] = [
    ['advertiseUrl', 'http://10.0.0.5:7407'],
    ['leaseSweepMs', 30_000],
  ];
  for (const [key, value] of handEdits) {
    it(`keeps the operator's ${key} on a re-run (a password rotation): nothing conflicts and nothing is rewritten`, async () => {
      const { files, ports } = setup();
      await serverInit(ports, input({ unit: 'none', store: 'postgresql' }));
      const config = JSON.parse(files.files.get('/srv/taskdag/server.json')!.text);
      files.files.get('/srv/taskdag/server.json')!.text = JSON.stringify({ ...config, [key]: value });
      const writes = files.writes;
      const again = await serverInit(ports, input({ unit: 'none' }));
      expect((again.config as unknown as Record<string, unknown>)[key]).to.deep.equal(value);
      expect(again.actions.every((action) => action.action === 'keep')).to.equal(true);
      expect(files.writes).to.equal(writes);
    });
  }

  it('the default files store is not written into server.json, as before the option existed', async () => {
    const { files, ports } = setup();
    await serverInit(ports, input({ unit: 'none', store: 'files' }));
    expect(files.files.get('/srv/taskdag/server.json')!.text).not.to.include('store');
    expect(files.files.get('/srv/taskdag/server.env')!.text).not.to.include('TASKDAG_DATABASE_URL');
  });
});
