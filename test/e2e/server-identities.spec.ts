import { expect } from 'chai';
import { appendFileSync, chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox, UNIT_VISIBLE_BASE } from '../support/cli.js';
import { loginAt } from '../support/linked-server.js';
import { callFails, callOk, startMcp } from '../support/mcp.js';
import { freshDatabase } from '../support/postgres.js';
import { initServerRoot, login, request, session, startServer, type HttpAnswer, type RunningServer } from '../support/server-process.js';

const task = (id: string) => ({ id, initiative: 'core', title: id, body: '', acceptance: 'ok', blocked_by: [] });

interface Setup {
  sandbox: Sandbox;
  config: string;
  env: Record<string, string>;
}

/** A real `server init` root in the given identity mode, on the files store or on a fresh PostgreSQL database. */
async function serverRoot(sandbox: Sandbox, store: 'files' | 'postgresql', identities: 'shared' | 'bound'): Promise<Setup> {
  const extra = ['--identities', identities, ...(store === 'postgresql' ? ['--store', 'postgresql'] : [])];
  const { root, config, env } = await initServerRoot(sandbox, `srv-${store}-${identities}`, extra);
  if (store === 'postgresql') {
    const url = freshDatabase();
    appendFileSync(path.join(root, 'server.env'), `TASKDAG_DATABASE_URL=${url}\n`);
    env.TASKDAG_DATABASE_URL = url;
  }
  return { sandbox, config, env };
}

/** `server credential add`, run as an operator would; the secret is read back from the file it names. */
async function issue(setup: Setup, name: string, agents: string): Promise<{ secret: string; result: any }> {
  const result = await setup.sandbox.ok(['server', 'credential', 'add', name, '--agents', agents, '--config', setup.config]);
  expect(result.secret_file).to.equal(path.join(path.dirname(setup.config), 'credentials', `${name}.secret`));
  expect(statSync(result.secret_file).mode & 0o777).to.equal(0o600);
  return { secret: readFileSync(result.secret_file, 'utf8').trim(), result };
}

/** The codes of `server doctor`'s findings on a setup that passes the preflight. */
async function doctorFindings(setup: Setup): Promise<string[]> {
  return (await setup.sandbox.ok(['server', 'doctor', '--config', setup.config])).findings.map((finding: { code: string }) => finding.code);
}

const op = (server: RunningServer, bearer: string, project: string, operation: string, args: Record<string, unknown>, agent: string | null): Promise<HttpAnswer> =>
  request(server.origin, 'POST', `/v1/projects/${project}/ops/${operation}`, { headers: { Authorization: `Bearer ${bearer}` }, body: { args, agent } });

async function revisionOf(server: RunningServer, bearer: string, project: string): Promise<number> {
  const answer = await op(server, bearer, project, 'state', {}, null);
  expect(answer.status, answer.text).to.equal(200);
  return answer.json.revision;
}

function expectNotAllowed(answer: HttpAnswer, agent: string, allowed: string[], credential: string): void {
  expect(answer.status, answer.text).to.equal(403);
  expect(answer.json.error).to.deep.include({ code: 'AGENT_NOT_ALLOWED' });
  expect(answer.json.error.details).to.deep.equal({ agent, allowed, credential });
}

/** The matrix of bound identities against a real `server run` on 127.0.0.1, for one store. */
function boundIdentities(store: 'files' | 'postgresql'): void {
  describe(`bound identities on a real server run (${store} store)`, function () {
    this.timeout(120_000);
    const sandbox = new Sandbox();
    let setup: Setup;
    let server: RunningServer;
    let alice: { secret: string; result: any };
    let lead: { secret: string; result: any };
    let aliceBearer: string;
    let leadBearer: string;

    before(async () => {
      setup = await serverRoot(sandbox, store, 'bound');
      expect(await doctorFindings(setup)).to.include('IDENTITIES_NO_CREDENTIALS');
      alice = await issue(setup, 'alice', 'alice');
      expect(await doctorFindings(setup)).not.to.include('IDENTITIES_NO_CREDENTIALS');
      server = await startServer(sandbox, setup.config, setup.env);
      // Issued while the server runs: it reads the credentials afresh.
      lead = await issue(setup, 'lead', 'orchestrator,recovery');
      aliceBearer = (await login(server.origin, alice.secret)).json.bearer;
      leadBearer = (await login(server.origin, lead.secret)).json.bearer;
      expect(aliceBearer).to.be.a('string');
      expect(leadBearer).to.be.a('string');
      expect((await op(server, aliceBearer, 'p', 'init', {}, null)).status).to.equal(200);
      expect((await op(server, aliceBearer, 'p', 'add-initiative', { name: 'core' }, 'alice')).status).to.equal(200);
    });
    after(async () => {
      if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
      sandbox.remove();
    });

    it('server credential add reports the agents, the administrative ones, the mode and the store; list shows no secret', async () => {
      expect(alice.result).to.deep.include({ administrative: [], identities: 'bound', store });
      expect(lead.result.administrative).to.deep.equal(['orchestrator', 'recovery']);
      const listed = await sandbox.ok(['server', 'credential', 'list', '--config', setup.config]);
      expect(listed.identities).to.equal('bound');
      expect(listed.credentials.map((credential: any) => [credential.name, credential.agents])).to.deep.equal([
        ['alice', ['alice']],
        ['lead', ['orchestrator', 'recovery']],
      ]);
      expect(JSON.stringify(listed)).not.to.include(alice.secret.split('.')[1]);
      const again = await sandbox.run(['server', 'credential', 'add', 'alice', '--agents', 'bob', '--config', setup.config]);
      expect(again.code).to.equal(1);
      expect(again.json.error.code).to.equal('SERVER_SETUP_CONFLICT');
    });

    it('the shared password no longer logs in; a wrong credential secret is AUTH_INVALID', async () => {
      const shared = await login(server.origin, setup.env.TASKDAG_SERVER_PASSWORD!);
      expect(shared.status).to.equal(401);
      expect(shared.json.error).to.deep.include({ code: 'AUTH_INVALID', details: { reason: 'password' } });
      const forged = await login(server.origin, `alice.${'A'.repeat(43)}`);
      expect(forged.status).to.equal(401);
    });

    it('a credential for alice acts as alice; the session names its agents', async () => {
      expect((await session(server.origin, aliceBearer)).json.agents).to.deep.equal(['alice']);
      const added = await op(server, aliceBearer, 'p', 'add-task', task('T-1'), 'alice');
      expect(added.status, added.text).to.equal(200);
      expect((await op(server, aliceBearer, 'p', 'take', { id: 'T-1' }, 'alice')).status).to.equal(200);
    });

    it('acting as bob or as orchestrator is refused with AGENT_NOT_ALLOWED (403), nothing written', async () => {
      const before = await revisionOf(server, aliceBearer, 'p');
      expectNotAllowed(await op(server, aliceBearer, 'p', 'add-task', task('T-bob'), 'bob'), 'bob', ['alice'], 'alice');
      expectNotAllowed(await op(server, aliceBearer, 'p', 'release', { id: 'T-1' }, 'orchestrator'), 'orchestrator', ['alice'], 'alice');
      expectNotAllowed(await op(server, aliceBearer, 'p', 'cancel', { id: 'T-1' }, 'recovery'), 'recovery', ['alice'], 'alice');
      // A batch item's `as` is acting too.
      const batch = { operations: [{ op: 'add-task', args: task('T-2') }, { op: 'add-task', args: task('T-3'), as: 'orchestrator' }] };
      expectNotAllowed(await op(server, aliceBearer, 'p', 'batch', batch, 'alice'), 'orchestrator', ['alice'], 'alice');
      // So is a push.
      const pulled = (await request(server.origin, 'GET', '/v1/projects/p/transfer', { headers: { Authorization: `Bearer ${aliceBearer}` } })).json;
      const push = await request(server.origin, 'PUT', '/v1/projects/p/transfer', {
        headers: { Authorization: `Bearer ${aliceBearer}` },
        body: { state: pulled.state, plugins: {}, expected_revision: pulled.state.revision, force: false, agent: 'bob' },
      });
      expectNotAllowed(push, 'bob', ['alice'], 'alice');
      expect(await revisionOf(server, aliceBearer, 'p')).to.equal(before);
      expect((await op(server, aliceBearer, 'p', 'show', { id: 'T-1' }, null)).json.node.claim.by).to.equal('alice');
    });

    it('the administrative credential acts as orchestrator and recovery, and as nobody else', async () => {
      expect((await session(server.origin, leadBearer)).json.agents).to.deep.equal(['orchestrator', 'recovery']);
      const released = await op(server, leadBearer, 'p', 'release', { id: 'T-1' }, 'orchestrator');
      expect(released.status, released.text).to.equal(200);
      expect(released.json.released).to.equal(true);
      expect((await op(server, leadBearer, 'p', 'add-task', task('T-4'), 'recovery')).status).to.equal(200);
      expectNotAllowed(await op(server, leadBearer, 'p', 'take', { id: 'T-4' }, 'alice'), 'alice', ['orchestrator', 'recovery'], 'lead');
    });

    it('the board reads with a bound bearer', async () => {
      const snapshot = await request(server.origin, 'GET', '/v1/projects/p/ui/snapshot', { headers: { Authorization: `Bearer ${aliceBearer}` } });
      expect(snapshot.status).to.equal(200);
    });

    it('a linked checkout logs in with the credential at a terminal; the CLI and MCP act as alice and are refused as bob', async () => {
      const client = new Sandbox();
      try {
        await client.ok(['link', server.origin]);
        await loginAt(client, alice.secret);
        await client.ok(['init']);
        await client.ok(['add-initiative', 'core', '--as', 'alice']);
        await client.ok(['add-task', 'T-cli', '--initiative', 'core', '--title', 'cli', '--body', '', '--acceptance', 'ok', '--blocked-by', '', '--as', 'alice']);
        const refused = await client.run(['add-task', 'T-bob', '--initiative', 'core', '--title', 'bob', '--body', '', '--acceptance', 'ok', '--blocked-by', '', '--as', 'bob']);
        expect(refused.code).to.equal(1);
        expect(refused.json.error).to.deep.include({ code: 'AGENT_NOT_ALLOWED', details: { agent: 'bob', allowed: ['alice'], credential: 'alice' } });
        // pull and push (spec 4.5) as alice; a push as bob is refused before anything moves.
        const pulled = await client.ok(['pull', '--as', 'alice']);
        const forcedAsBob = await client.run(['push', '--force', '--as', 'bob']);
        expect(forcedAsBob.code).to.equal(1);
        expect(forcedAsBob.json.error.code).to.equal('AGENT_NOT_ALLOWED');
        const pushed = await client.ok(['push', '--force', '--as', 'alice']);
        expect(pushed).to.include({ transferred: true, replaced_revision: pulled.source_revision });
        for (const [agent, allowed] of [
          ['alice', true],
          ['bob', false],
        ] as const) {
          const mcp = await startMcp(client, { after: ['--as', agent] });
          try {
            const args = { id: 'T-cli', text: `note by ${agent}` };
            if (allowed) expect((await callOk(mcp, 'add-note', args)).node.id).to.equal('T-cli');
            else expect((await callFails(mcp, 'add-note', args)).code).to.equal('AGENT_NOT_ALLOWED');
          } finally {
            await mcp.close();
          }
        }
      } finally {
        client.remove();
      }
    });

    it('removing a credential ends its bearers at once, on the running server', async () => {
      const removed = await sandbox.ok(['server', 'credential', 'remove', 'lead', '--config', setup.config]);
      expect(removed).to.deep.equal({ name: 'lead', removed: true });
      const after = await op(server, leadBearer, 'p', 'state', {}, null);
      expect(after.status).to.equal(401);
      expect(after.json.error.code).to.equal('AUTH_INVALID');
      expect((await login(server.origin, lead.secret)).status).to.equal(401);
      // A credential of the same name again does not revive the old bearer.
      await issue(setup, 'lead', 'orchestrator');
      expect((await op(server, leadBearer, 'p', 'state', {}, null)).status).to.equal(401);
      expect(await sandbox.ok(['server', 'credential', 'remove', 'nobody', '--config', setup.config])).to.deep.equal({ name: 'nobody', removed: false });
    });
  });
}

boundIdentities('files');
boundIdentities('postgresql');

describe('server credential on the files store, run by another user than the owner of the state home', function () {
  this.timeout(60_000);
  const sandbox = new Sandbox();
  after(() => sandbox.remove());

  it('is refused with STORAGE_ERROR (EPERM) naming the owner, writing nothing the server could not read', async function () {
    // Only root can give the state home to another user; as root this is the case an operator meets.
    if (process.getuid?.() !== 0) this.skip();
    const setup = await serverRoot(sandbox, 'files', 'bound');
    const stateHome = JSON.parse(readFileSync(setup.config, 'utf8')).stateHome as string;
    chownSync(stateHome, 65534, 65534);
    try {
      const refused = await sandbox.run(['server', 'credential', 'add', 'alice', '--agents', 'alice', '--config', setup.config]);
      expect(refused.code).to.equal(1);
      expect(refused.json.error).to.deep.include({ code: 'STORAGE_ERROR' });
      expect(refused.json.error.details).to.deep.include({ cause: 'EPERM', owner_uid: 65534, uid: 0 });
      expect(existsSync(path.join(stateHome, 'remote-credentials.json'))).to.equal(false);
      expect(existsSync(path.join(path.dirname(setup.config), 'credentials'))).to.equal(false);
    } finally {
      chownSync(stateHome, 0, 0);
    }
  });
});

describe('server setup with bound identities', function () {
  this.timeout(60_000);

  it('names issuing the first credential among the steps left, before link and login, as the service user on the files store', async () => {
    // A unit's root lies outside /tmp, which its PrivateTmp=true hides.
    const sandbox = new Sandbox(UNIT_VISIBLE_BASE);
    try {
      const root = path.join(sandbox.root, 'srv');
      const result = await sandbox.ok(['server', 'setup', '--root', root, '--port', '7412', '--service-user', 'taskdag', '--identities', 'bound']);
      expect(result.next_steps.slice(-3)).to.deep.equal([
        `sudo -u taskdag taskdag server credential add <name> --agents <agents> --config ${path.join(root, 'server.json')}`,
        'taskdag link http://127.0.0.1:7412',
        'taskdag login',
      ]);
      expect(Object.keys(result.placeholders)).to.deep.equal(['<name>', '<agents>']);
      expect(result.doctor.findings.map((finding: { code: string }) => finding.code)).to.include('IDENTITIES_NO_CREDENTIALS');
      const shared = await sandbox.ok(['server', 'setup', '--root', path.join(sandbox.root, 'shared'), '--port', '7413', '--unit', 'none']);
      expect(shared.next_steps.join('\n')).not.to.include('credential');
    } finally {
      sandbox.remove();
    }
  });
});

describe('a corrupt credentials file of a bound server (files store)', function () {
  this.timeout(60_000);
  const sandbox = new Sandbox();
  let server: RunningServer | null = null;
  after(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    sandbox.remove();
  });

  it('fails the preflight with CREDENTIALS_INVALID, and the server trusts no credential (STORAGE_ERROR), granting nothing', async () => {
    const setup = await serverRoot(sandbox, 'files', 'bound');
    const { secret } = await issue(setup, 'alice', 'alice');
    const file = path.join(JSON.parse(readFileSync(setup.config, 'utf8')).stateHome, 'remote-credentials.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 100));
    const doctor = await sandbox.run(['server', 'doctor', '--config', setup.config]);
    expect(doctor.code).to.equal(1);
    expect(doctor.json.error.code).to.equal('SERVER_PREFLIGHT_FAILED');
    expect(doctor.json.error.details.findings.map((finding: { code: string }) => finding.code)).to.include('CREDENTIALS_INVALID');
    server = await startServer(sandbox, setup.config, setup.env);
    const refused = await login(server.origin, secret);
    expect(refused.status).to.equal(500);
    expect(refused.json.error).to.deep.include({ code: 'STORAGE_ERROR' });
    expect(refused.json.error.details).to.deep.include({ cause: 'EINVALID' });
    expect(refused.text).not.to.include(file);
  });
});

describe('shared identities, the default (spec 5), unchanged beside bound credentials', function () {
  this.timeout(60_000);
  const sandbox = new Sandbox();
  let server: RunningServer;
  let setup: Setup;

  before(async () => {
    setup = await serverRoot(sandbox, 'files', 'shared');
    server = await startServer(sandbox, setup.config, setup.env);
  });
  after(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    sandbox.remove();
  });

  it('server init writes no identities field; the password bearer acts as anyone, orchestrator included; credentials do not log in', async () => {
    expect(JSON.parse(readFileSync(setup.config, 'utf8'))).not.to.have.property('identities');
    const { secret, result } = await issue(setup, 'alice', 'alice');
    expect(result.identities).to.equal('shared');
    expect((await login(server.origin, secret)).status).to.equal(401);
    const bearer = (await login(server.origin, setup.env.TASKDAG_SERVER_PASSWORD!)).json.bearer;
    expect((await session(server.origin, bearer)).json.agents).to.equal(null);
    expect((await op(server, bearer, 'p', 'init', {}, null)).status).to.equal(200);
    expect((await op(server, bearer, 'p', 'add-initiative', { name: 'core' }, 'bob')).status).to.equal(200);
    expect((await op(server, bearer, 'p', 'add-task', task('T-1'), 'alice')).status).to.equal(200);
    expect((await op(server, bearer, 'p', 'take', { id: 'T-1' }, 'bob')).status).to.equal(200);
    expect((await op(server, bearer, 'p', 'release', { id: 'T-1' }, 'orchestrator')).json.released).to.equal(true);
  });
});
