import { ANY_AGENT, type AgentBinding } from '../../domain/agent-binding.js';
import { DomainError } from '../../domain/errors.js';
import type { AuthStore, OwnAuthStore } from '../ports/auth-store.js';
import type { Clock } from '../ports/clock.js';
import type { BearerTokens, PasswordHasher } from '../ports/credentials.js';
import { corruptAuthRecord, type AuthRecord, type Session } from './auth-record.js';
import { claimedCredential, type Credential } from './credential-record.js';
import { LoginThrottle, type LoginOutcome } from './login-throttle.js';
import type { IdentityMode } from './server-config.js';
import { MAX_SECRET_LENGTH, PASSWORD_GENERATION_KEY } from './server-env.js';

/** Decided in docs/operating.md: a bearer lives 30 days from login, then the client logs in again. */
export const BEARER_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** Sessions kept at most; past it the oldest are dropped (their clients log in again). */
export const MAX_SESSIONS = 10_000;

export interface AuthDependencies {
  store: AuthStore;
  hasher: PasswordHasher;
  tokens: BearerTokens;
  clock: Clock;
  throttle?: LoginThrottle;
  /** shared (the spec's, the default): the password logs in as anyone; bound: only credentials log in, each as its agents. */
  identities?: IdentityMode;
}

/** A checked bearer: its session and who it may act as. */
export type Principal = Session & { binding: AgentBinding };

export interface Login {
  bearer: string;
  expires_at: string;
}

/** How startup found the auth file: new, as it was, or rotated to a new password (spec 5.5). */
export type AuthStartup = 'created' | 'kept' | 'rotated';

/**
 * Password login and bearer checks (spec 5). The record in memory always equals the one on disk:
 * every change is written durably first, one at a time, and only then adopted and answered.
 */
export class AuthService {
  private writes: Promise<unknown> = Promise.resolve();
  private readonly byHash: Map<string, Session>;

  private constructor(
    private readonly deps: AuthDependencies,
    private record: AuthRecord,
    private readonly throttle: LoginThrottle,
  ) {
    this.byHash = new Map(record.sessions.map((session) => [session.bearer_hash, session]));
  }

  /**
   * Loads the auth record, creating it for a new state home. When the password no longer matches
   * the verifier (a rotation), the new verifier and an empty session list are written before
   * this resolves, so no old bearer survives. A corrupt record stops here with the recovery of
   * 5.6. `generation` is this root's password generation (server-env.ts): where the record is
   * shared by several processes, a password that differs from the stored one replaces it only
   * with a newer generation, so a host with an old `server.env` cannot roll a rotation back. (A
   * record only this process writes holds no other root's password: any change is this root's.)
   */
  static async open(deps: AuthDependencies, password: string, generation: number): Promise<{ service: AuthService; startup: AuthStartup }> {
    const service = (record: AuthRecord) => new AuthService(deps, record, deps.throttle ?? new LoginThrottle());
    for (;;) {
      const stored = await deps.store.load();
      if (stored.kind === 'corrupt') throw corruptAuthRecord(deps.store.location, stored.problem);
      const current = stored.kind === 'valid' ? stored.record : null;
      if (current && (await deps.hasher.matches(password, current.verifier))) return { service: service(current), startup: 'kept' };
      if (current && deps.store.shared && generation <= (current.generation ?? 0)) throw stalePassword(generation, current.generation ?? 0);
      const record: AuthRecord = { version: 1, generation, verifier: await deps.hasher.derive(password), sessions: [] };
      // Lost only to another process that installed a record first: decide again on that one.
      if (await deps.store.install(record, current)) return { service: service(record), startup: current ? 'rotated' : 'created' };
    }
  }

  /**
   * Exchanges the password for a new bearer, answered only once its session is durable. A password
   * longer than any server password can be is wrong without hashing it, and is not counted as a
   * guess: hashing is the costly part a client could otherwise make the server do at will.
   */
  async login(password: unknown, client: string): Promise<Login> {
    if (typeof password !== 'string' || password === '') {
      throw new DomainError('MISSING_FIELD', 'The login body needs a non-empty "password" string', { field: 'password' });
    }
    if (password.length > MAX_SECRET_LENGTH) {
      throw new DomainError('AUTH_INVALID', `Wrong password: no server password is longer than ${MAX_SECRET_LENGTH} characters`, { reason: 'password' });
    }
    const retryAfter = this.throttle.begin(client, this.now());
    if (retryAfter !== null) {
      throw new DomainError('AUTH_INVALID', 'Too many failed logins from this client: wait before trying again', { reason: 'rate-limited', retry_after_ms: retryAfter });
    }
    const shared = this.deps.store.shared;
    let outcome: LoginOutcome = 'undecided';
    let credential: Credential | null = null;
    try {
      if (this.bound()) {
        credential = await this.credentialOf(password);
        outcome = credential !== null ? 'succeeded' : 'failed';
      } else {
        const verifier = (shared && (await shared.verifier())) || this.record.verifier;
        outcome = (await this.deps.hasher.matches(password, verifier)) ? 'succeeded' : 'failed';
      }
    } finally {
      // A verifier that could not be read (a database outage) says nothing about the guess.
      this.throttle.end(client, outcome, this.now());
    }
    if (outcome === 'failed') throw this.wrongPassword();
    const { bearer, hash } = this.deps.tokens.mint();
    const now = this.now();
    const session: Session = {
      bearer_hash: hash,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + BEARER_LIFETIME_MS).toISOString(),
      ...(credential ? { credential: credential.id } : {}),
    };
    const store = this.deps.store;
    if (store.shared) await store.shared.add(session, new Date(now).toISOString(), MAX_SESSIONS);
    else await this.change(store, (sessions) => [...sessions, session]);
    return { bearer, expires_at: session.expires_at };
  }

  /**
   * The session of an `Authorization: Bearer <token>` header. Sessions are found by the hash of
   * the bearer: 256 random bits hashed with SHA-512, so the time a lookup takes tells an attacker
   * nothing they can steer towards a real bearer. A shared store is asked every time, so a
   * rotation by any process ends every session at once.
   */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const match = /^Bearer ([^\s]+)$/i.exec(authorization?.trim() ?? '');
    if (!match) throw new DomainError('AUTH_INVALID', 'This route needs an Authorization: Bearer header: log in first', { reason: 'missing' });
    const hash = this.deps.tokens.hashOf(match[1]!);
    const shared = this.deps.store.shared;
    const session = hash === null ? undefined : shared ? ((await shared.find(hash)) ?? undefined) : this.byHash.get(hash);
    if (!session) throw new DomainError('AUTH_INVALID', 'Unknown or revoked bearer: log in again', { reason: 'unknown' });
    if (Date.parse(session.expires_at) <= this.now()) throw new DomainError('AUTH_INVALID', 'The bearer has expired: log in again', { reason: 'expired' });
    return { ...session, binding: await this.bindingOf(session) };
  }

  /**
   * Who a session may act as. A credential's session follows its credential as it is now, in
   * either mode: removed, its bearers fail at once. A session of the shared password acts as
   * anyone, and only while the server is in shared mode.
   */
  private async bindingOf(session: Session): Promise<AgentBinding> {
    if (session.credential === undefined) {
      if (!this.bound()) return ANY_AGENT;
      throw new DomainError('AUTH_INVALID', 'This server binds identities: log in again with the secret of a credential the operator issued', { reason: 'unknown' });
    }
    const credential = await this.deps.store.credentials.findById(session.credential);
    if (!credential) throw new DomainError('AUTH_INVALID', 'The credential of this bearer was removed: log in with a current one', { reason: 'unknown' });
    return { kind: 'credential', credential: credential.name, agents: credential.agents };
  }

  /**
   * The credential a typed secret opens, or null. The secret names its credential, so one slow
   * hash decides; an unknown name is hashed against the password's verifier all the same, so the
   * answer's timing does not tell which names exist.
   */
  private async credentialOf(secret: string): Promise<Credential | null> {
    const name = claimedCredential(secret);
    const credential = name === null ? null : await this.deps.store.credentials.find(name);
    const matches = await this.deps.hasher.matches(secret, credential?.verifier ?? this.record.verifier);
    return credential && matches ? credential : null;
  }

  private bound(): boolean {
    return this.deps.identities === 'bound';
  }

  private wrongPassword(): DomainError {
    return this.bound()
      ? new DomainError('AUTH_INVALID', 'Wrong credential secret: this server binds identities, so log in with the secret of a credential the operator issued (server credential add)', {
          reason: 'password',
        })
      : new DomainError('AUTH_INVALID', 'Wrong password', { reason: 'password' });
  }

  /** One write at a time; expired sessions are dropped, and the oldest past MAX_SESSIONS. */
  private change(store: OwnAuthStore, edit: (sessions: Session[]) => Session[]): Promise<void> {
    const write = this.writes.then(async () => {
      const now = this.now();
      const live = edit(this.record.sessions).filter((session) => Date.parse(session.expires_at) > now);
      const next: AuthRecord = { ...this.record, sessions: live.slice(-MAX_SESSIONS) };
      await store.save(next);
      this.record = next;
      this.byHash.clear();
      for (const session of next.sessions) this.byHash.set(session.bearer_hash, session);
    });
    this.writes = write.catch(() => undefined);
    return write;
  }

  private now(): number {
    return Date.parse(this.deps.clock.now());
  }
}

/** This root's password is not the one a newer (or the same) generation stored: starting would roll it back. */
function stalePassword(generation: number, stored: number): DomainError {
  return new DomainError(
    'SERVER_PASSWORD_STALE',
    `The password of this server (${PASSWORD_GENERATION_KEY}=${generation}) differs from the one the database holds (generation ${stored}), ` +
      'set by a rotation on another host: starting with it would roll that rotation back and end every session. ' +
      'Stop here, copy server.env from the host that rotated (or its TASKDAG_SERVER_PASSWORD and TASKDAG_PASSWORD_GENERATION lines) to this host, and start again (docs/scaling.md)',
    { generation, database_generation: stored },
  );
}
