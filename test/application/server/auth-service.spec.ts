import { expect } from 'chai';
import type { AuthRecord, PasswordVerifier } from '../../../application/server/auth-record.js';
import { AuthService, BEARER_LIFETIME_MS } from '../../../application/server/auth-service.js';
import { LoginThrottle } from '../../../application/server/login-throttle.js';
import type { OwnAuthStore, SharedAuthStore, SharedSessions, StoredAuth } from '../../../application/ports/auth-store.js';
import { DomainError } from '../../../domain/errors.js';
import { rejectionOf } from '../../support/failures.js';
import { InMemoryCredentialStore } from '../../support/in-memory-credentials.js';

/** An auth file in memory; `failNextSave` makes the next write fail as a full disk would. */
class InMemoryAuthStore implements OwnAuthStore {
  readonly location = '/srv/taskdag/state/remote-auth.json';
  readonly credentials = new InMemoryCredentialStore();
  saved: AuthRecord[] = [];
  failNextSave = false;
  constructor(public stored: StoredAuth = { kind: 'absent' }) {}
  async load(): Promise<StoredAuth> {
    return structuredClone(this.stored);
  }
  /** Compare-and-set on the generation, as a shared store does it. */
  async install(record: AuthRecord, replacing: AuthRecord | null): Promise<boolean> {
    const current = this.stored.kind === 'valid' ? this.stored.record : null;
    if (current?.generation !== replacing?.generation) return false;
    await this.save(record);
    return true;
  }
  async save(record: AuthRecord): Promise<void> {
    if (this.failNextSave) {
      this.failNextSave = false;
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    }
    this.saved.push(structuredClone(record));
    this.stored = { kind: 'valid', record: structuredClone(record) };
  }
}

/** The same record played as the store several processes share, its sessions answered by `sessions`. */
function sharedOver(own: InMemoryAuthStore, sessions: SharedSessions): SharedAuthStore {
  return { location: 'postgresql:taskdag_auth', load: () => own.load(), install: (record, replacing) => own.install(record, replacing), shared: sessions, credentials: own.credentials };
}

/** A transparent "KDF" that counts how often it runs. */
class CountingHasher {
  derivations = 0;
  comparisons = 0;
  async derive(password: string): Promise<PasswordVerifier> {
    this.derivations += 1;
    return { kdf: 'scrypt', n: 2, r: 1, p: 1, salt: 's', hash: `h(${password})` };
  }
  async matches(password: string, verifier: PasswordVerifier): Promise<boolean> {
    this.comparisons += 1;
    return verifier.hash === `h(${password})`;
  }
}

class SequentialTokens {
  minted = 0;
  mint() {
    this.minted += 1;
    return { bearer: `bearer-${this.minted}`, hash: `hash-${this.minted}` };
  }
  hashOf(bearer: string) {
    return bearer.startsWith('bearer-') ? `hash-${bearer.slice(7)}` : null;
  }
}

describe('AuthService (application, in-memory store)', () => {
  const setup = (stored?: StoredAuth) => {
    let now = Date.parse('2026-01-01T00:00:00.000Z');
    const clock = { now: () => new Date(now).toISOString() };
    const deps = { store: new InMemoryAuthStore(stored), hasher: new CountingHasher(), tokens: new SequentialTokens(), clock, throttle: new LoginThrottle(3, 60_000) };
    return { deps, advance: (ms: number) => (now += ms) };
  };

  it('creates the auth file on first start, durably, with an empty session list', async () => {
    const { deps } = setup();
    const { startup } = await AuthService.open(deps, 'pw', 1);
    expect(startup).to.equal('created');
    expect(deps.store.saved).to.deep.equal([{ version: 1, generation: 1, verifier: { kdf: 'scrypt', n: 2, r: 1, p: 1, salt: 's', hash: 'h(pw)' }, sessions: [] }]);
  });

  it('answers a login only once its session is durable, storing the hash, never the bearer', async () => {
    const { deps } = setup();
    const { service } = await AuthService.open(deps, 'pw', 1);
    const login = await service.login('pw', '10.0.0.1');
    expect(login).to.deep.equal({ bearer: 'bearer-1', expires_at: '2026-01-31T00:00:00.000Z' });
    expect(deps.store.saved.at(-1)!.sessions).to.deep.equal([{ bearer_hash: 'hash-1', created_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-31T00:00:00.000Z' }]);
    expect(JSON.stringify(deps.store.saved)).not.to.include('bearer-1');
    expect((await service.authenticate('Bearer bearer-1')).bearer_hash).to.equal('hash-1');
  });

  it('a login whose session cannot be written fails and grants nothing', async () => {
    const { deps } = setup();
    const { service } = await AuthService.open(deps, 'pw', 1);
    deps.store.failNextSave = true;
    const error = await rejectionOf(() => service.login('pw', 'c'));
    expect((error as unknown as Error).message).to.include('ENOSPC');
    expect((await rejectionOf(() => Promise.resolve().then(() => service.authenticate('Bearer bearer-1')))).code).to.equal('AUTH_INVALID');
    expect((await service.login('pw', 'c')).bearer).to.equal('bearer-2');
  });

  it('refuses missing, malformed, unknown and expired bearers with AUTH_INVALID', async () => {
    const { deps, advance } = setup();
    const { service } = await AuthService.open(deps, 'pw', 1);
    await service.login('pw', 'c');
    const reasonOf = (header: string | undefined) => rejectionOf(() => Promise.resolve().then(() => service.authenticate(header)));
    expect((await reasonOf(undefined)).details).to.deep.equal({ reason: 'missing' });
    expect((await reasonOf('Basic abc')).details).to.deep.equal({ reason: 'missing' });
    expect((await reasonOf('Bearer forged')).details).to.deep.equal({ reason: 'unknown' });
    expect((await reasonOf('Bearer bearer-9')).details).to.deep.equal({ reason: 'unknown' });
    advance(BEARER_LIFETIME_MS);
    const expired = await reasonOf('Bearer bearer-1');
    expect(expired.code).to.equal('AUTH_INVALID');
    expect(expired.details).to.deep.equal({ reason: 'expired' });
  });

  it('drops expired sessions at the next write', async () => {
    const { deps, advance } = setup();
    const { service } = await AuthService.open(deps, 'pw', 1);
    await service.login('pw', 'c');
    advance(BEARER_LIFETIME_MS + 1);
    await service.login('pw', 'c');
    expect(deps.store.saved.at(-1)!.sessions.map((session) => session.bearer_hash)).to.deep.equal(['hash-2']);
  });

  it('rate-limits failed logins per client before hashing: a blocked attempt never reaches the KDF', async () => {
    const { deps, advance } = setup();
    const { service } = await AuthService.open(deps, 'pw', 1);
    for (let attempt = 0; attempt < 3; attempt++) expect((await rejectionOf(() => service.login('wrong', 'attacker'))).details).to.deep.equal({ reason: 'password' });
    const comparisons = deps.hasher.comparisons;
    const blocked = await rejectionOf(() => service.login('pw', 'attacker'));
    expect(blocked.code).to.equal('AUTH_INVALID');
    expect(blocked.details).to.deep.include({ reason: 'rate-limited', retry_after_ms: 60_000 });
    expect(deps.hasher.comparisons).to.equal(comparisons);
    // Another client is not blocked; the window passes for the first.
    expect((await service.login('pw', 'someone-else')).bearer).to.be.a('string');
    advance(60_000);
    expect((await service.login('pw', 'attacker')).bearer).to.be.a('string');
  });

  it('refuses a password longer than any server password without hashing it or counting it as a guess', async () => {
    const { deps } = setup();
    const { service } = await AuthService.open(deps, 'pw', 1);
    const comparisons = deps.hasher.comparisons;
    for (let attempt = 0; attempt < 5; attempt++) {
      const refused = await rejectionOf(() => service.login('x'.repeat(1025), 'client'));
      expect([refused.code, refused.details]).to.deep.equal(['AUTH_INVALID', { reason: 'password' }]);
    }
    expect(deps.hasher.comparisons).to.equal(comparisons);
    expect((await service.login('pw', 'client')).bearer).to.be.a('string');
  });

  it('a login whose verifier cannot be read (the database is down) fails with that STORAGE_ERROR and is not counted against the client', async () => {
    const { deps } = setup();
    const outage = new DomainError('STORAGE_ERROR', 'The database cannot be reached (ECONNREFUSED)', { cause: 'ECONNREFUSED' });
    let down = true;
    const verifier = async () => (down ? Promise.reject(outage) : deps.store.stored.kind === 'valid' ? deps.store.stored.record.verifier : null);
    const { service } = await AuthService.open({ ...deps, store: sharedOver(deps.store, { verifier, add: async () => undefined, find: async () => null }) }, 'pw', 1);
    // More attempts than the limit (3 here): none of them could be compared.
    for (let attempt = 0; attempt < 5; attempt++) expect(await rejectionOf(() => service.login('wrong', 'client'))).to.equal(outage);
    down = false;
    expect((await service.login('pw', 'client')).bearer).to.be.a('string');
  });

  it('counts attempts in flight, so a burst of parallel guesses cannot outrun the limit', async () => {
    const { deps } = setup();
    const { service } = await AuthService.open(deps, 'pw', 1);
    const before = deps.hasher.comparisons;
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => service.login('wrong', 'burst')));
    expect(results.every((result) => result.status === 'rejected')).to.equal(true);
    expect(deps.hasher.comparisons - before).to.equal(3);
  });

  it('serializes concurrent logins: every session is kept', async () => {
    const { deps } = setup();
    const { service } = await AuthService.open(deps, 'pw', 1);
    const logins = await Promise.all(Array.from({ length: 10 }, (_, index) => service.login('pw', `client-${index}`)));
    expect(deps.store.saved.at(-1)!.sessions).to.have.length(10);
    for (const login of logins) expect(await service.authenticate(`Bearer ${login.bearer}`)).to.be.an('object');
  });

  it('rotation (spec 5.5): a new password writes a new verifier and no sessions before the service exists', async () => {
    const { deps } = setup();
    const first = await AuthService.open(deps, 'old', 1);
    await first.service.login('old', 'c');
    const { service, startup } = await AuthService.open(deps, 'new', 1);
    expect(startup).to.equal('rotated');
    expect(deps.store.saved.at(-1)).to.deep.include({ sessions: [] });
    expect(deps.store.saved.at(-1)!.verifier.hash).to.equal('h(new)');
    expect((await rejectionOf(() => Promise.resolve().then(() => service.authenticate('Bearer bearer-1')))).code).to.equal('AUTH_INVALID');
  });

  describe('rotations where several processes share the record (issue 23)', () => {
    const sessions: SharedSessions = { verifier: async () => null, add: async () => undefined, find: async () => null };
    const rotatedTo = (password: string, generation: number): StoredAuth => ({
      kind: 'valid',
      record: { version: 1, generation, verifier: { kdf: 'scrypt', n: 2, r: 1, p: 1, salt: 's', hash: `h(${password})` }, sessions: [] },
    });

    it('a password that differs from the stored one is refused unless its generation is newer, writing nothing', async () => {
      const { deps } = setup(rotatedTo('new', 2));
      const shared = { ...deps, store: sharedOver(deps.store, sessions) };
      for (const [password, generation] of [['old', 1], ['other', 2]] as const) {
        const refused = await rejectionOf(() => AuthService.open(shared, password, generation));
        expect([refused.code, refused.details], password).to.deep.equal(['SERVER_PASSWORD_STALE', { generation, database_generation: 2 }]);
        expect(refused.message).to.include('copy server.env from the host that rotated');
      }
      expect(deps.store.saved).to.deep.equal([]);
      // The stored password is kept whatever generation a host says; a newer generation rotates.
      expect((await AuthService.open(shared, 'new', 1)).startup).to.equal('kept');
      expect((await AuthService.open(shared, 'newer', 3)).startup).to.equal('rotated');
      expect(deps.store.saved.map((record) => [record.generation, record.verifier.hash])).to.deep.equal([[3, 'h(newer)']]);
    });

    it('a record from before generations (0) is still guarded: a host whose server.env has no generation line cannot replace it', async () => {
      const { deps } = setup(rotatedTo('current', 0));
      delete (deps.store.stored as { record: AuthRecord }).record.generation;
      const shared = { ...deps, store: sharedOver(deps.store, sessions) };
      expect((await rejectionOf(() => AuthService.open(shared, 'stale', 0))).code).to.equal('SERVER_PASSWORD_STALE');
      expect((await AuthService.open(shared, 'rotated', 1)).startup).to.equal('rotated');
    });

    it('two processes rotating at once: the one that installs second decides again on the winner, never overwriting it', async () => {
      const { deps } = setup(rotatedTo('old', 1));
      const own = deps.store;
      const racing: SharedAuthStore = {
        ...sharedOver(own, sessions),
        // Another process installs its rotation between this process's load and its install.
        install: async (record, replacing) => {
          own.stored = rotatedTo('theirs', 2);
          return own.install(record, replacing);
        },
      };
      const refused = await rejectionOf(() => AuthService.open({ ...deps, store: racing }, 'mine', 2));
      expect([refused.code, refused.details]).to.deep.equal(['SERVER_PASSWORD_STALE', { generation: 2, database_generation: 2 }]);
      expect(own.stored).to.deep.equal(rotatedTo('theirs', 2));
    });

    it('a record only this process writes takes any password of its own root: there is no other root to roll back', async () => {
      const { deps } = setup(rotatedTo('new', 2));
      expect((await AuthService.open(deps, 'hand-chosen', 0)).startup).to.equal('rotated');
    });
  });

  it('a rotation that cannot be written fails startup, and the old file stays as it was', async () => {
    const { deps } = setup();
    await (await AuthService.open(deps, 'old', 1)).service.login('old', 'c');
    const before = structuredClone(deps.store.stored);
    deps.store.failNextSave = true;
    const error = await rejectionOf(() => AuthService.open(deps, 'new', 1));
    expect((error as unknown as Error).message).to.include('ENOSPC');
    expect(deps.store.stored).to.deep.equal(before);
  });

  it('a corrupt auth file stops startup with the recovery of spec 5.6, naming the file', async () => {
    const { deps } = setup({ kind: 'corrupt', problem: 'not JSON' });
    const error = await rejectionOf(() => AuthService.open(deps, 'pw', 1));
    expect(error.code).to.equal('STORAGE_ERROR');
    expect(error.details).to.deep.include({ cause: 'EINVALID', file: 'remote-auth.json', path: deps.store.location, problem: 'not JSON' });
    expect(error.details.recovery).to.match(/move only that file aside/);
    expect(deps.store.saved).to.deep.equal([]);
  });
});

describe('AuthService with bound identities (application, in-memory store)', () => {
  const verifierOf = (secret: string): PasswordVerifier => ({ kdf: 'scrypt', n: 2, r: 1, p: 1, salt: 's', hash: `h(${secret})` });
  const credential = (name: string, agents: string[], id = `id-${name}`) => ({ id, name, agents, verifier: verifierOf(`${name}.secret`), created_at: '2026-01-01T00:00:00.000Z' });
  const open = async (identities: 'shared' | 'bound', store = new InMemoryAuthStore()) => {
    const clock = { now: () => '2026-01-01T00:00:00.000Z' };
    const deps = { store, hasher: new CountingHasher(), tokens: new SequentialTokens(), clock, throttle: new LoginThrottle(100, 60_000), identities };
    await store.credentials.add(credential('alice', ['alice']));
    return { deps, service: (await AuthService.open(deps, 'pw', 1)).service };
  };
  const failure = (work: () => Promise<unknown>) => rejectionOf(() => Promise.resolve().then(work));

  it('logs a credential in bound to its agents, recording its id in the session, with one hash', async () => {
    const { deps, service } = await open('bound');
    const before = deps.hasher.comparisons;
    const { bearer } = await service.login('alice.secret', 'c');
    expect(deps.hasher.comparisons - before).to.equal(1);
    expect(deps.store.saved.at(-1)!.sessions.at(-1)).to.include({ credential: 'id-alice' });
    expect((await service.authenticate(`Bearer ${bearer}`)).binding).to.deep.equal({ kind: 'credential', credential: 'alice', agents: ['alice'] });
  });

  it('refuses the shared password, a wrong secret and an unknown name alike, each after one hash', async () => {
    const { deps, service } = await open('bound');
    for (const secret of ['pw', 'alice.wrong', 'nobody.secret']) {
      const before = deps.hasher.comparisons;
      const error = await failure(() => service.login(secret, 'c'));
      expect(error.code, secret).to.equal('AUTH_INVALID');
      expect(error.details).to.deep.equal({ reason: 'password' });
      expect(deps.hasher.comparisons - before, secret).to.equal(1);
    }
  });

  it('a removed credential ends its bearers; one added again under the same name does not revive them', async () => {
    const { deps, service } = await open('bound');
    const { bearer } = await service.login('alice.secret', 'c');
    await deps.store.credentials.remove('alice');
    expect((await failure(() => service.authenticate(`Bearer ${bearer}`))).details).to.deep.equal({ reason: 'unknown' });
    await deps.store.credentials.add(credential('alice', ['alice'], 'id-alice-2'));
    expect((await failure(() => service.authenticate(`Bearer ${bearer}`))).code).to.equal('AUTH_INVALID');
  });

  it('a bearer of the shared password stops working once the server binds identities', async () => {
    const store = new InMemoryAuthStore();
    const shared = await open('shared', store);
    const { bearer } = await shared.service.login('pw', 'c');
    expect((await shared.service.authenticate(`Bearer ${bearer}`)).binding).to.deep.equal({ kind: 'any' });
    expect((await failure(() => shared.service.login('alice.secret', 'c'))).code).to.equal('AUTH_INVALID');
    const bound = await AuthService.open({ ...shared.deps, identities: 'bound' }, 'pw', 1);
    expect((await failure(() => bound.service.authenticate(`Bearer ${bearer}`))).code).to.equal('AUTH_INVALID');
  });
});
