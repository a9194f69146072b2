import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BINARY, Sandbox } from '../support/cli.js';
import { modeOf } from '../support/file-tree.js';
import { startLinkedServer, type LinkedServer } from '../support/linked-server.js';
import { session } from '../support/server-process.js';
import { runInTerminal } from '../support/terminal.js';

/** `login` at a real terminal, the session profile and `logout` (spec 2.6, 4.5, 5.4). */
describe('login, the session profile and logout', function () {
  this.timeout(120_000);
  let linked: LinkedServer;
  let client: Sandbox;
  const profileDir = () => path.join(client.home, '.taskdag');
  const profileFile = () => path.join(profileDir(), 'remote-sessions.json');
  const profile = () => JSON.parse(readFileSync(profileFile(), 'utf8'));
  before(async () => {
    linked = await startLinkedServer();
  });
  after(async () => linked?.close());
  beforeEach(async () => {
    client = new Sandbox();
    await client.ok(['link', linked.origin]);
  });
  afterEach(() => client.remove());

  it('reads the password at the terminal with echo off and stores only a working bearer, 0600 in a 0700 directory', async () => {
    const result = await runInTerminal(client, ['login'], linked.password);
    expect(result.code).to.equal(0);
    expect(result.json).to.deep.equal({ origin: linked.origin, expires_at: result.json.expires_at, profile: profileFile() });
    expect(result.terminal).to.include(`password for ${linked.origin}`);
    expect(result.terminal + result.stdout + result.stderr).not.to.include(linked.password);
    const stored = profile();
    expect(stored.version).to.equal(1);
    const bearer = stored.sessions[linked.origin].bearer;
    expect(result.stdout).not.to.include(bearer);
    expect(readFileSync(profileFile(), 'utf8')).not.to.include(linked.password);
    expect(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8')).not.to.include(bearer);
    expect((await session(linked.origin, bearer)).status).to.equal(200);
    expect(modeOf(profileFile())).to.equal('600');
    expect(modeOf(profileDir())).to.equal('700');
  });

  it('keeps the other origins, and tightens modes that were loosened', async () => {
    mkdirSync(profileDir(), { recursive: true, mode: 0o755 });
    const other = { bearer: 'other-bearer', expires_at: null, stored_at: '2026-01-01T00:00:00.000Z' };
    writeFileSync(profileFile(), JSON.stringify({ version: 1, sessions: { 'https://other.example.test': other } }), { mode: 0o644 });
    expect((await runInTerminal(client, ['login', '--server', linked.origin], linked.password)).code).to.equal(0);
    expect(profile().sessions['https://other.example.test']).to.deep.equal(other);
    expect(profile().sessions[linked.origin].bearer).to.be.a('string');
    expect(modeOf(profileFile())).to.equal('600');
    expect(modeOf(profileDir())).to.equal('700');
    const out = await client.ok(['logout']);
    expect(out).to.deep.equal({ origin: linked.origin, removed: true, profile: profileFile() });
    expect(profile().sessions).to.deep.equal({ 'https://other.example.test': other });
    expect(await client.ok(['logout'])).to.include({ removed: false });
  });

  it('logins to two origins at once both keep their entries (one writer at a time on the profile)', async () => {
    const other = linked.origin.replace('127.0.0.1', 'localhost');
    const results = await Promise.all([
      runInTerminal(client, ['login', '--server', linked.origin], linked.password),
      runInTerminal(client, ['login', '--server', other], linked.password),
    ]);
    expect(results.map((result) => result.code)).to.deep.equal([0, 0]);
    expect(Object.keys(profile().sessions).sort()).to.deep.equal([linked.origin, other].sort());
  });

  it('a wrong password is AUTH_INVALID and the profile is left as it was', async () => {
    const result = await runInTerminal(client, ['login'], 'not-the-password');
    expect(result.code).to.equal(1);
    expect(result.json.error.code).to.equal('AUTH_INVALID');
    expect(() => statSync(profileFile())).to.throw();
  });

  it('without a controlling terminal it fails with MISSING_FIELD, and never reads stdin', async () => {
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      // setsid: a new session with no controlling terminal, as a job or a CI step has.
      const child = spawn(process.execPath, [BINARY, 'login'], { cwd: client.checkout, env: client.env() as NodeJS.ProcessEnv, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.on('close', (code) => resolve({ code, stdout }));
      child.stdin.end(`${linked.password}\n`);
    });
    expect(result.code).to.equal(1);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.error.code).to.equal('MISSING_FIELD');
    expect(envelope.error.details).to.deep.equal({ field: 'password', source: 'terminal' });
    expect(() => statSync(profileFile())).to.throw();
  });

  it('TASKDAG_HOME moves the profile; without it, it is ~/.taskdag/remote-sessions.json', async () => {
    const moved = path.join(client.root, 'elsewhere');
    const there = await runInTerminal(client, ['login'], linked.password, { env: { TASKDAG_HOME: moved } });
    expect(there.json.profile).to.equal(path.join(moved, 'remote-sessions.json'));
    expect(modeOf(there.json.profile)).to.equal('600');
    const home = await runInTerminal(client, ['login'], linked.password, { env: { TASKDAG_HOME: undefined } });
    expect(home.json.profile).to.equal(path.join(client.home, '.taskdag', 'remote-sessions.json'));
  });

  it('login needs an origin: --server or a linked checkout', async () => {
    const bare = new Sandbox();
    try {
      const result = await runInTerminal(bare, ['login'], linked.password);
      expect(result.json.error.code).to.equal('MISSING_FIELD');
      expect(result.terminal).not.to.include('password for');
    } finally {
      bare.remove();
    }
  });
});
