import { expect } from 'chai';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BINARY, Sandbox } from '../support/cli.js';
import { fileTree } from '../support/file-tree.js';
import { envFileEntries, initServerRoot, login, request, session, startServer, type RunningServer } from '../support/server-process.js';

/**
 * A login written on a raw socket with the given extra headers and body, resolved with the
 * answer's status and JSON: the server must answer without waiting for the rest of the body.
 */
function rawLogin(port: number, headers: string[], body: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer in 10 s: ${answer}`)));
    socket.on('data', (chunk) => {
      answer += chunk;
      const split = answer.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(answer)?.[1];
      if (split < 0 || length === undefined || answer.length < split + 4 + Number(length)) return;
      socket.destroy();
      resolve({ status: Number(answer.slice(9, 12)), json: JSON.parse(answer.slice(split + 4, split + 4 + Number(length))) });
    });
    socket.on('error', reject);
    socket.write(['POST /v1/auth/login HTTP/1.1', 'Host: 127.0.0.1', 'X-Taskdag-Protocol-Version: 1', 'Content-Type: application/json', ...headers, '', body].join('\r\n'));
  });
}

describe('server authentication (spec 5)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let root: string;
  let config: string;
  let env: Record<string, string>;
  const servers: RunningServer[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    const server = await startServer(sandbox, config, { ...env, ...extra });
    servers.push(server);
    return server;
  };
  const authFile = () => path.join(root, 'state', 'remote-auth.json');
  beforeEach(async () => {
    sandbox = new Sandbox();
    ({ root, config, env } = await initServerRoot(sandbox));
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
    sandbox.remove();
  });

  it('exchanges the password for a 32-byte bearer that opens the authenticated routes; only its hash is stored', async () => {
    const server = await start();
    const answer = await login(server.origin, env.TASKDAG_SERVER_PASSWORD!);
    expect(answer.status).to.equal(200);
    expect(answer.headers['cache-control']).to.equal('no-store');
    const { bearer, expires_at } = answer.json;
    expect(Buffer.from(bearer, 'base64url')).to.have.length(32);
    expect(bearer).to.match(/^[A-Za-z0-9_-]{43}$/);
    const lifetime = Date.parse(expires_at) - Date.now();
    expect(lifetime).to.be.above(29 * 86_400_000).and.at.most(30 * 86_400_000);
    const me = await session(server.origin, bearer);
    expect(me.status).to.equal(200);
    expect(me.json).to.deep.include({ authenticated: true, expires_at });
    const stored = readFileSync(authFile(), 'utf8');
    expect(stored).not.to.include(bearer).and.not.to.include(env.TASKDAG_SERVER_PASSWORD!);
    expect(JSON.parse(stored).sessions).to.have.length(1);
    const { stdout, stderr } = server.output();
    expect(`${stdout}${stderr}`).not.to.include(bearer);
  });

  it('X-Taskdag-Protocol-Version: a missing or other version gets 400 INVALID_ARGUMENT naming the supported one, on every /v1 route', async () => {
    const server = await start();
    const missing = await request(server.origin, 'POST', '/v1/auth/login', { body: { password: env.TASKDAG_SERVER_PASSWORD }, protocol: false });
    expect(missing.status).to.equal(400);
    expect(missing.json).to.deep.equal({
      ok: false,
      error: { code: 'INVALID_ARGUMENT', message: missing.json.error.message, details: { header: 'X-Taskdag-Protocol-Version', received: null, supported: ['1'] } },
    });
    const other = await request(server.origin, 'GET', '/v1/auth/session', { headers: { 'X-Taskdag-Protocol-Version': '2' } });
    expect(other.status).to.equal(400);
    expect(other.json.error.details).to.deep.include({ received: '2', supported: ['1'] });
    expect(JSON.parse(readFileSync(authFile(), 'utf8')).sessions).to.deep.equal([]);
  });

  it('AUTH_INVALID (401, WWW-Authenticate: Bearer) for a wrong password, and for missing, malformed, forged and unknown bearers', async () => {
    const server = await start();
    const before = readFileSync(authFile(), 'utf8');
    const wrong = await login(server.origin, 'not-the-password');
    expect(wrong.status).to.equal(401);
    expect(wrong.headers['www-authenticate']).to.equal('Bearer');
    expect(wrong.json.error).to.deep.include({ code: 'AUTH_INVALID', details: { reason: 'password' } });
    const forged = Buffer.alloc(32, 7).toString('base64url');
    for (const [header, reason] of [
      [undefined, 'missing'],
      ['Basic dXNlcjpwYXNz', 'missing'],
      ['Bearer', 'missing'],
      ['Bearer not-a-bearer', 'unknown'],
      [`Bearer ${forged}`, 'unknown'],
    ] as const) {
      const answer = await request(server.origin, 'GET', '/v1/auth/session', { headers: header ? { Authorization: header } : {} });
      expect(answer.status, String(header)).to.equal(401);
      expect(answer.json.error, String(header)).to.deep.include({ code: 'AUTH_INVALID', details: { reason } });
    }
    expect(readFileSync(authFile(), 'utf8')).to.equal(before);
  });

  it('rate-limits failed logins per client (10 a minute): then even the right password is refused, with Retry-After', async () => {
    const server = await start();
    const guesses = await Promise.all(Array.from({ length: 14 }, (_, index) => login(server.origin, `guess-${index}`)));
    expect(guesses.every((guess) => guess.status === 401)).to.equal(true);
    const reasons = guesses.map((guess) => guess.json.error.details.reason);
    expect(reasons.filter((reason) => reason === 'password')).to.have.length(10);
    expect(reasons.filter((reason) => reason === 'rate-limited')).to.have.length(4);
    const blocked = await login(server.origin, env.TASKDAG_SERVER_PASSWORD!);
    expect(blocked.status).to.equal(401);
    expect(blocked.json.error.details.reason).to.equal('rate-limited');
    expect(Number(blocked.headers['retry-after'])).to.be.within(1, 60);
  });

  it('the login route reads at most 4 KiB, whatever the body cap: a larger declared or chunked body is 413 unread, and counts as no guess', async () => {
    const server = await start();
    const declared = await rawLogin(server.port, ['Content-Length: 16000000'], '');
    expect(declared.status).to.equal(413);
    expect(declared.json.error).to.deep.include({ code: 'REQUEST_TOO_LARGE', details: { limit_bytes: 4096 } });
    const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
    const chunked = await rawLogin(server.port, ['Transfer-Encoding: chunked'], chunk('{"password":"') + chunk('y'.repeat(5000)));
    expect(chunked.status).to.equal(413);
    expect(chunked.json.error.details).to.deep.equal({ limit_bytes: 4096 });
    for (let attempt = 0; attempt < 11; attempt++) expect((await login(server.origin, 'z'.repeat(5000))).status).to.equal(413);
    expect((await login(server.origin, env.TASKDAG_SERVER_PASSWORD!)).status).to.equal(200);
  });

  it('a password longer than 1,024 characters is AUTH_INVALID without hashing, so it is no guess the rate limit counts', async () => {
    const server = await start();
    for (let attempt = 0; attempt < 11; attempt++) {
      const refused = await login(server.origin, 'p'.repeat(1025));
      expect([refused.status, refused.json.error.code, refused.json.error.details]).to.deep.equal([401, 'AUTH_INVALID', { reason: 'password' }]);
    }
    expect((await login(server.origin, env.TASKDAG_SERVER_PASSWORD!)).status).to.equal(200);
  });

  it('a bearer survives a restart and a SIGKILL: the session was durable before it was answered', async () => {
    const server = await start();
    const { bearer } = (await login(server.origin, env.TASKDAG_SERVER_PASSWORD!)).json;
    await server.stop('SIGKILL');
    const restarted = await start();
    expect((await session(restarted.origin, bearer)).status).to.equal(200);
  });

  it('rotation (spec 5.5): stop, init --rotate-password, doctor, start: every old bearer and the old password fail closed', async () => {
    const server = await start();
    const oldPassword = env.TASKDAG_SERVER_PASSWORD!;
    const bearers = await Promise.all([1, 2, 3].map(async () => (await login(server.origin, oldPassword)).json.bearer as string));
    expect(await server.stop()).to.deep.equal({ code: 0, signal: null });

    await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none', '--rotate-password']);
    await sandbox.ok(['server', 'doctor', '--config', config]);
    env = envFileEntries(path.join(root, 'server.env'));
    expect(env.TASKDAG_SERVER_PASSWORD).not.to.equal(oldPassword);
    const rotated = await start();
    // Durable before listening: the file already holds the new verifier and no session.
    expect(JSON.parse(readFileSync(authFile(), 'utf8')).sessions).to.deep.equal([]);
    expect(rotated.output().stderr).to.include('every earlier bearer is revoked');
    for (const bearer of bearers) expect((await session(rotated.origin, bearer)).json.error.code).to.equal('AUTH_INVALID');
    expect((await login(rotated.origin, oldPassword)).status).to.equal(401);
    const fresh = (await login(rotated.origin, env.TASKDAG_SERVER_PASSWORD!)).json.bearer;
    expect((await session(rotated.origin, fresh)).status).to.equal(200);
  });

  it('a rotation that cannot be persisted is never reported: no ready line, and the auth file is unchanged', async () => {
    const server = await start();
    await login(server.origin, env.TASKDAG_SERVER_PASSWORD!);
    await server.stop();
    const before = readFileSync(authFile(), 'utf8');
    await sandbox.ok(['server', 'init', '--root', root, '--unit', 'none', '--rotate-password']);
    env = envFileEntries(path.join(root, 'server.env'));
    // A file-size limit of zero makes the write of the new verifier fail (the kernel stops the process).
    const child = spawn('/bin/sh', ['-c', `ulimit -f 0 && exec "${process.execPath}" "${BINARY}" server run "${config}"`], {
      env: sandbox.env(env) as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    expect(exit.code).not.to.equal(0);
    expect(stdout).not.to.include('"ok":true');
    expect(readFileSync(authFile(), 'utf8')).to.equal(before);
    // Without the limit, the rotation goes through, and the crashed write's temp file is gone.
    const rotated = await start();
    expect(JSON.parse(readFileSync(authFile(), 'utf8')).sessions).to.deep.equal([]);
    expect(readdirSync(path.dirname(authFile())).sort()).to.deep.equal(['.server.lock', 'remote-auth.json']);
    expect((await login(rotated.origin, env.TASKDAG_SERVER_PASSWORD!)).status).to.equal(200);
  });

  it('a corrupt remote-auth.json stops the server naming the file and the recovery; moved aside, a restart creates fresh auth and leaves projects untouched', async () => {
    const server = await start();
    const { bearer } = (await login(server.origin, env.TASKDAG_SERVER_PASSWORD!)).json;
    await server.stop();
    const project = path.join(root, 'data', 'projects', 'p-1');
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, 'tasks.json'), '{"version":1}');
    writeFileSync(path.join(project, 'ledger.log'), 'entries');
    const data = fileTree(path.join(root, 'data'));
    writeFileSync(authFile(), '{"version":1,"verifier":');

    const refused = await sandbox.run(['server', 'run', config], { env });
    expect(refused.code).to.equal(1);
    expect(refused.json.error.code).to.equal('STORAGE_ERROR');
    expect(refused.json.error.details).to.deep.include({ file: 'remote-auth.json', path: authFile(), cause: 'EINVALID' });
    expect(refused.json.error.message).to.include('remote-auth.json').and.include('move only that file aside');

    renameSync(authFile(), `${authFile()}.corrupt`);
    const recovered = await start();
    expect((await session(recovered.origin, bearer)).json.error.code).to.equal('AUTH_INVALID');
    expect((await login(recovered.origin, env.TASKDAG_SERVER_PASSWORD!)).status).to.equal(200);
    expect(fileTree(path.join(root, 'data'))).to.deep.equal(data);
  });

  it('a remote-auth.json with out-of-range scrypt parameters or a cut hash takes the same recovery path, and the preflight reports it', async () => {
    const server = await start();
    await server.stop();
    const valid = JSON.parse(readFileSync(authFile(), 'utf8'));
    const variants: Record<string, (record: any) => void> = {
      'N not a power of two': (record) => (record.verifier.n = 3),
      'N past any memory bound': (record) => (record.verifier.n = 2 ** 40),
      'p that would hash for hours': (record) => (record.verifier.p = 1_000_000),
      'a hash cut short': (record) => (record.verifier.hash = record.verifier.hash.slice(0, 20)),
      'a salt that is not base64url': (record) => (record.verifier.salt = 'not base64url!'),
    };
    for (const [name, damage] of Object.entries(variants)) {
      const record = structuredClone(valid);
      damage(record);
      const text = JSON.stringify(record);
      writeFileSync(authFile(), text);
      const refused = await sandbox.run(['server', 'run', config], { env });
      expect([refused.code, refused.json?.error?.code], `${name}: ${refused.stdout}`).to.deep.equal([1, 'STORAGE_ERROR']);
      expect(refused.json.error.details, name).to.deep.include({ file: 'remote-auth.json', path: authFile(), cause: 'EINVALID' });
      expect(refused.json.error.message, name).to.include('move only that file aside');
      expect(readFileSync(authFile(), 'utf8'), `${name}: the file is left for the operator`).to.equal(text);
      const doctor = await sandbox.run(['server', 'doctor', '--config', config]);
      expect([doctor.code, doctor.json.error?.code], name).to.deep.equal([1, 'SERVER_PREFLIGHT_FAILED']);
      const finding = doctor.json.error.details.findings.find((found: { code: string }) => found.code === 'AUTH_FILE_CORRUPT');
      expect(finding, `${name}: ${doctor.stdout}`).to.deep.include({ severity: 'error' });
      expect(finding.fix).to.include('move only that file aside');
    }
  });
});
