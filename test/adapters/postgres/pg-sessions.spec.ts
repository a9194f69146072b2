import { expect } from 'chai';
import type { Pool } from 'pg';
import { AUTH_CHANNEL, AUTH_TRUST_MS, PgAuthCache } from '../../../adapters/postgres/pg-auth-cache.js';
import { PgAuthStore } from '../../../adapters/postgres/pg-auth-store.js';
import { openClient, openPool } from '../../../adapters/postgres/pg-pool.js';
import { PgProjectStoreFactory } from '../../../adapters/postgres/pg-project-store.js';
import { listenForRevisions, type ProjectRevision } from '../../../adapters/postgres/pg-revision-listener.js';
import { migrate, SCHEMA_VERSION } from '../../../adapters/postgres/pg-schema.js';
import { ScryptPasswordHasher } from '../../../adapters/server/scrypt-password-hasher.js';
import { TweetnaclBearerTokens } from '../../../adapters/server/tweetnacl-bearer-tokens.js';
import { SystemClock } from '../../../adapters/system-clock.js';
import { AuthService } from '../../../application/server/auth-service.js';
import { GraphDraft } from '../../../domain/draft.js';
import { GroupCommitDispatcher } from '../../../application/group-commit.js';
import { composeServices, projectsOnly } from '../../../entrypoints/compose.js';
import { rejectionOf } from '../../support/failures.js';
import { NOW, addTask } from '../../support/graphs.js';
import { freshDatabase, statementsOf } from '../../support/postgres.js';
import { sampleState } from '../../support/states.js';

describe('sessions and revision events shared through PostgreSQL', function () {
  this.timeout(60_000);
  let url: string;
  let pools: Pool[];

  beforeEach(async () => {
    url = freshDatabase();
    pools = [openPool(url), openPool(url)];
    await migrate(pools[0]!);
  });
  afterEach(async () => {
    for (const pool of pools) await pool.end();
  });

  const authOn = (pool: Pool, password: string, generation = 1, store = new PgAuthStore(pool)) =>
    AuthService.open({ store, hasher: new ScryptPasswordHasher(), tokens: new TweetnaclBearerTokens(), clock: new SystemClock() }, password, generation);
  /**
   * A process on pools[0] trusting as a listening process does but with no listener (every
   * notification lost), on a clock the test moves, and four bearers another process logged in;
   * its statements are counted from then on.
   */
  const fourBearersOn = async (trustMs?: number) => {
    const clock = { now: 0 };
    const store = new PgAuthStore(pools[0]!, new PgAuthCache(trustMs, () => clock.now));
    const { service } = await authOn(pools[0]!, 'password-1', 1, store);
    const other = await authOn(pools[1]!, 'password-1', 1);
    const bearers: string[] = [];
    for (let client = 0; client < 4; client++) bearers.push((await other.service.login('password-1', `c${client}`)).bearer);
    store.changes.listening(true);
    return { clock, bearers, statements: statementsOf(pools[0]!), outcomes: () => Promise.all(bearers.map((bearer) => reasonOf(service, bearer))) };
  };
  /** 'accepted', or why `service` refuses `bearer`. */
  const reasonOf = (service: AuthService, bearer: string) =>
    service.authenticate(`Bearer ${bearer}`).then(
      () => 'accepted',
      (error: { details?: { reason: string } }) => error.details?.reason ?? String(error),
    );

  it('schema 3 only adds: a session of a schema-2 database keeps working after the migration, bound to no credential', async () => {
    const { service } = await authOn(pools[0]!, 'password-1');
    const { bearer } = await service.login('password-1', 'c');
    // Back to schema 2 (every later migration undone), with the session in it.
    await pools[0]!.query(
      'DROP FUNCTION taskdag_auth_changed CASCADE; ' +
        'ALTER TABLE taskdag_sessions DROP COLUMN credential; DROP TABLE taskdag_credentials; ALTER TABLE taskdag_auth DROP COLUMN generation; ' +
        'DROP TABLE taskdag_checkpoint_piece_refs; DROP TABLE taskdag_checkpoint_manifests; DROP TABLE taskdag_checkpoint_pieces; DROP TABLE taskdag_owners; DROP TABLE taskdag_hearings; DROP TABLE taskdag_processes; DROP TABLE taskdag_checkpoints; DROP TABLE taskdag_change_sets; ALTER TABLE taskdag_projects DROP CONSTRAINT taskdag_projects_incarnation; ' +
        'DELETE FROM taskdag_schema WHERE version >= 3',
    );
    expect(await migrate(pools[1]!)).to.deep.equal(Array.from({ length: SCHEMA_VERSION - 2 }, (_, index) => index + 3));
    const upgraded = await authOn(pools[1]!, 'password-1');
    expect(upgraded.startup).to.equal('kept');
    expect((await upgraded.service.authenticate(`Bearer ${bearer}`)).binding).to.deep.equal({ kind: 'any' });
  });

  it('a bearer from one process works on another; a rotation by either ends them all and retires the old password everywhere', async () => {
    const first = await authOn(pools[0]!, 'old-password-1');
    const second = await authOn(pools[1]!, 'old-password-1');
    expect([first.startup, second.startup]).to.deep.equal(['created', 'kept']);
    const login = await first.service.login('old-password-1', 'c');
    expect((await second.service.authenticate(`Bearer ${login.bearer}`)).expires_at).to.equal(login.expires_at);
    const rotated = await authOn(pools[0]!, 'new-password-2', 2);
    expect(rotated.startup).to.equal('rotated');
    for (const service of [first.service, second.service, rotated.service]) {
      expect((await rejectionOf(() => service.authenticate(`Bearer ${login.bearer}`))).details).to.deep.equal({ reason: 'unknown' });
    }
    // The process still running with the old password in memory checks logins against the stored verifier.
    expect((await rejectionOf(() => second.service.login('old-password-1', 'c'))).code).to.equal('AUTH_INVALID');
    const fresh = await second.service.login('new-password-2', 'c');
    expect(await first.service.authenticate(`Bearer ${fresh.bearer}`)).to.be.an('object');
    const stored = await pools[0]!.query('SELECT * FROM taskdag_sessions');
    expect(JSON.stringify(stored.rows)).not.to.include(fresh.bearer);
  });

  it('a listening process checks a bearer it found before without a round trip, and a session or credential removed by any writer fails its next check once heard', async () => {
    // Trusted for a minute: only the notification can end what the process found.
    const store = new PgAuthStore(pools[0]!, new PgAuthCache(60_000));
    const { service } = await authOn(pools[0]!, 'password-1', 1, store);
    const { bearer } = await service.login('password-1', 'c');
    const statements = statementsOf(pools[0]!);
    await service.authenticate(`Bearer ${bearer}`);
    await service.authenticate(`Bearer ${bearer}`);
    // Not listening, notifications could be missed: every check asks the database.
    expect(statements()).to.equal(2);
    const listener = await listenForRevisions(url, pools[0]!, () => undefined, () => undefined, store.changes);
    try {
      const listening = statements();
      for (let check = 0; check < 3; check++) await service.authenticate(`Bearer ${bearer}`);
      expect(statements() - listening).to.equal(1);
      // Another process (an operator's DELETE here) ends the session: the trigger of schema 6 tells every listener.
      await pools[1]!.query('DELETE FROM taskdag_sessions');
      await untilAsync(async () => (await reasonOf(service, bearer)) === 'unknown');
      const credential = { id: 'C-1', name: 'ci', agents: ['ci'], verifier: { kdf: 'scrypt' }, created_at: NOW };
      await pools[1]!.query('INSERT INTO taskdag_credentials (id, name, agents, verifier, created_at) VALUES ($1, $2, $3, $4, $5)', [
        credential.id,
        credential.name,
        JSON.stringify(credential.agents),
        JSON.stringify(credential.verifier),
        credential.created_at,
      ]);
      expect((await store.credentials.findById('C-1'))?.agents).to.deep.equal(['ci']);
      const found = statements();
      expect((await store.credentials.findById('C-1'))?.agents).to.deep.equal(['ci']);
      expect(statements()).to.equal(found);
      await pools[1]!.query('DELETE FROM taskdag_credentials');
      await untilAsync(async () => (await store.credentials.findById('C-1')) === null);
    } finally {
      await listener.close();
    }
  });

  it('a process serving many bearers checks them all again in one statement a trusted time; a session ended by another process, its notification lost, is refused within that time (issue 25 item 4)', async () => {
    const { clock, bearers, statements, outcomes } = await fourBearersOn(1_000);
    expect(await outcomes()).to.deep.equal(['accepted', 'accepted', 'accepted', 'accepted']);
    expect(statements()).to.equal(4);
    // The other process ends one of them.
    await pools[1]!.query('DELETE FROM taskdag_sessions WHERE bearer_hash = $1', [new TweetnaclBearerTokens().hashOf(bearers[1]!)]);
    clock.now = 999;
    expect(await outcomes()).to.deep.equal(['accepted', 'accepted', 'accepted', 'accepted']);
    expect(statements()).to.equal(4);
    // The trusted second is over: one statement looks every bearer up again, and the ended session is refused.
    clock.now = 1_000;
    expect(await outcomes()).to.deep.equal(['accepted', 'unknown', 'accepted', 'accepted']);
    expect(statements()).to.equal(5);
    clock.now = 1_999;
    expect(await outcomes()).to.deep.equal(['accepted', 'unknown', 'accepted', 'accepted']);
    // The ended session is looked up at each check, as any bearer not found (nothing found missing is kept).
    expect(statements()).to.equal(5 + 1);
  });

  it('by default a listening process checks the bearers it serves with no statement until AUTH_TRUST_MS is over, not one a second; then one for them all (issue 25 item 4)', async () => {
    const { clock, statements, outcomes } = await fourBearersOn();
    expect(await outcomes()).to.deep.equal(['accepted', 'accepted', 'accepted', 'accepted']);
    expect(statements()).to.equal(4);
    // Checked every second for half a minute, nothing changing: no statement.
    for (clock.now = 1_000; clock.now < 30_000; clock.now += 1_000) await outcomes();
    expect(statements(), 'statements while nothing changed').to.equal(4);
    clock.now = AUTH_TRUST_MS;
    expect(await outcomes()).to.deep.equal(['accepted', 'accepted', 'accepted', 'accepted']);
    expect(statements()).to.equal(5);
  });

  it('a rotation through another process ends a bearer this one keeps as soon as it hears, long before its trusted time is over (issue 25 item 4)', async () => {
    const store = new PgAuthStore(pools[0]!);
    const { service } = await authOn(pools[0]!, 'password-1', 1, store);
    const { bearer } = await service.login('password-1', 'c');
    const listener = await listenForRevisions(url, pools[0]!, () => undefined, () => undefined, store.changes);
    try {
      expect(await reasonOf(service, bearer)).to.equal('accepted');
      const statements = statementsOf(pools[0]!);
      expect(await reasonOf(service, bearer)).to.equal('accepted');
      expect(statements(), 'kept').to.equal(0);
      expect((await authOn(pools[1]!, 'password-2', 2)).startup).to.equal('rotated');
      // Half the trusted time: only the notification can end it within that.
      await untilAsync(async () => (await reasonOf(service, bearer)) === 'unknown', AUTH_TRUST_MS / 2);
    } finally {
      await listener.close();
    }
  });

  it('schema 10: a statement that ends no session or credential (a login with none expired) notifies nobody; one that ends any notifies once, and a rotation still ends every bearer on every process (issue 25 item 4)', async () => {
    const heard: string[] = [];
    const listening = openClient(url);
    await listening.connect();
    listening.on('notification', (message) => heard.push(`${message.channel} ${message.payload}`));
    await listening.query(`LISTEN ${AUTH_CHANNEL}`);
    const stores = [new PgAuthStore(pools[0]!), new PgAuthStore(pools[1]!)];
    const processes = [await authOn(pools[0]!, 'password-1', 1, stores[0]), await authOn(pools[1]!, 'password-1', 1, stores[1])];
    const listeners = await Promise.all(stores.map((store, at) => listenForRevisions(url, pools[at]!, () => undefined, () => undefined, store.changes)));
    try {
      const bearers: string[] = [];
      for (let client = 0; client < 3; client++) bearers.push((await processes[client % 2]!.service.login('password-1', `c${client}`)).bearer);
      for (const { service } of processes) for (const bearer of bearers) expect(await reasonOf(service, bearer)).to.equal('accepted');
      // A round trip on the listening client after the logins: any notification they made has arrived.
      await listening.query('SELECT 1');
      expect(heard, 'three logins, each deleting no expired session').to.deep.equal([]);
      await pools[1]!.query("UPDATE taskdag_credentials SET name = name WHERE id = 'none'");
      await pools[1]!.query('DELETE FROM taskdag_sessions WHERE bearer_hash = $1', [new TweetnaclBearerTokens().hashOf(bearers[0]!)]);
      await listening.query('SELECT 1');
      expect(heard).to.deep.equal([`${AUTH_CHANNEL} taskdag_sessions`]);
      for (const { service } of processes) await untilAsync(async () => (await reasonOf(service, bearers[0]!)) === 'unknown', AUTH_TRUST_MS / 2);
      expect((await authOn(pools[0]!, 'password-2', 2)).startup).to.equal('rotated');
      for (const { service } of processes) for (const bearer of bearers) await untilAsync(async () => (await reasonOf(service, bearer)) === 'unknown', AUTH_TRUST_MS / 2);
      await pools[1]!.query('TRUNCATE taskdag_sessions');
      await listening.query('SELECT 1');
      expect(heard.slice(-1)).to.deep.equal([`${AUTH_CHANNEL} taskdag_sessions`]);
    } finally {
      await Promise.all(listeners.map((listener) => listener.close()));
      await listening.end();
    }
  });

  it('schema 10 replaces the triggers of a schema-9 database: a DELETE of nothing no longer notifies, a DELETE of a session still does', async () => {
    const schema9 = freshDatabase();
    const pool = openPool(schema9);
    const listening = openClient(schema9);
    try {
      expect(await migrate(pool, 9)).to.have.length(9);
      await listening.connect();
      const heard: string[] = [];
      listening.on('notification', (message) => heard.push(message.channel));
      await listening.query(`LISTEN ${AUTH_CHANNEL}`);
      const deleteNothing = async () => {
        await pool.query('DELETE FROM taskdag_sessions WHERE expires_at < now()');
        await listening.query('SELECT 1');
      };
      await deleteNothing();
      expect(heard, 'schema 9').to.deep.equal([AUTH_CHANNEL]);
      expect((await migrate(pool))[0]).to.equal(10);
      await deleteNothing();
      expect(heard, 'schema 10').to.deep.equal([AUTH_CHANNEL]);
      await pool.query("INSERT INTO taskdag_sessions (bearer_hash, created_at, expires_at) VALUES ('h', now(), now())");
      await deleteNothing();
      expect(heard).to.deep.equal([AUTH_CHANNEL, AUTH_CHANNEL]);
    } finally {
      await listening.end();
      await pool.end();
    }
  });

  it('while its listening connection is down (pg_terminate_backend) a process trusts nothing it found, so a rotation in the gap ends its bearers at once; back, it trusts only what it finds again (issue 25 item 4)', async () => {
    // The listener connects as a role of its own, refused while the test holds the gap open.
    const role = `listener_${(await pools[0]!.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db}`;
    await pools[0]!.query(`CREATE ROLE ${role} LOGIN`);
    const store = new PgAuthStore(pools[0]!);
    const { service } = await authOn(pools[0]!, 'password-1', 1, store);
    const { bearer } = await service.login('password-1', 'c');
    const lines: string[] = [];
    // Where each project stands is read on the other pool, so that only bearer checks are counted on this one.
    const listener = await listenForRevisions(url.replace('//taskdag:', `//${role}:`), pools[1]!, () => undefined, (line) => lines.push(line), store.changes);
    try {
      expect(await reasonOf(service, bearer)).to.equal('accepted');
      await pools[1]!.query(`ALTER ROLE ${role} NOLOGIN`);
      await pools[1]!.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
      await until(() => lines.some((line) => line.includes('lost')));
      const statements = statementsOf(pools[0]!);
      expect(await reasonOf(service, bearer)).to.equal('accepted');
      expect(await reasonOf(service, bearer)).to.equal('accepted');
      expect(statements(), 'every check asks while notifications may be missed').to.equal(2);
      // A rotation by another process in the gap: its notification reaches nobody here.
      const rotating = new PgAuthStore(pools[1]!);
      const stored = await rotating.load();
      if (stored.kind !== 'valid') throw new Error(`no auth record: ${stored.kind}`);
      expect(await rotating.install({ ...stored.record, generation: 2, sessions: [] }, stored.record)).to.equal(true);
      expect(await reasonOf(service, bearer)).to.equal('unknown');
      // Logged in on the other process before the listener is back, so that its login's notification is not heard after.
      const fresh = (await (await authOn(pools[1]!, 'password-1', 2)).service.login('password-1', 'c')).bearer;
      await pools[1]!.query(`ALTER ROLE ${role} LOGIN`);
      await until(() => lines.some((line) => line.includes('is back')), 10_000);
      const back = statements();
      for (let check = 0; check < 3; check++) expect(await reasonOf(service, fresh)).to.equal('accepted');
      expect(statements() - back, 'found once, then kept').to.equal(1);
    } finally {
      await listener.close();
    }
  });

  it('a host with an older password generation is refused and changes nothing; two rotations racing: one wins, the other is refused (issue 23)', async () => {
    const first = await authOn(pools[0]!, 'password-1', 1);
    const login = await first.service.login('password-1', 'c');
    const stale = await rejectionOf(() => authOn(pools[1]!, 'password-0', 1));
    expect([stale.code, stale.details]).to.deep.equal(['SERVER_PASSWORD_STALE', { generation: 1, database_generation: 1 }]);
    expect(await first.service.authenticate(`Bearer ${login.bearer}`)).to.be.an('object');
    const racing = await Promise.allSettled([authOn(pools[0]!, 'password-2a', 2), authOn(pools[1]!, 'password-2b', 2)]);
    const won = racing.filter((outcome) => outcome.status === 'fulfilled');
    const lost = racing.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(won.map((outcome) => outcome.value.startup)).to.deep.equal(['rotated']);
    expect(lost.map((outcome) => outcome.reason.code)).to.deep.equal(['SERVER_PASSWORD_STALE']);
    const winner = racing[0]!.status === 'fulfilled' ? 'password-2a' : 'password-2b';
    expect((await pools[0]!.query('SELECT generation::int FROM taskdag_auth')).rows).to.deep.equal([{ generation: 2 }]);
    expect((await authOn(pools[1]!, winner, 2)).startup).to.equal('kept');
  });

  it('a verifier row damaged in the database (an out-of-range scrypt cost) is STORAGE_ERROR with the database recovery, at login and at start', async () => {
    const { service } = await authOn(pools[0]!, 'password-1');
    await pools[0]!.query("UPDATE taskdag_auth SET verifier = json_build_object('kdf', 'scrypt', 'n', 3, 'r', 8, 'p', 1, 'salt', verifier->>'salt', 'hash', verifier->>'hash')");
    for (const error of [await rejectionOf(() => service.login('password-1', 'c')), await rejectionOf(() => authOn(pools[1]!, 'password-1'))]) {
      expect(error.code).to.equal('STORAGE_ERROR');
      expect(error.details).to.deep.include({ cause: 'EINVALID', path: 'postgresql:taskdag_auth' });
      expect(error.details.recovery).to.include('DELETE FROM taskdag_auth');
    }
    await pools[0]!.query('DELETE FROM taskdag_sessions; DELETE FROM taskdag_auth');
    expect((await authOn(pools[1]!, 'password-1')).startup).to.equal('created');
  });

  it('LISTEN delivers every commit of any process, and after losing its connection reconnects and announces where each project stands', async () => {
    const heard: ProjectRevision[] = [];
    const lines: string[] = [];
    const listener = await listenForRevisions(url, pools[1]!, (event) => heard.push(event), (line) => lines.push(line));
    try {
      const store = new PgProjectStoreFactory(pools[0]!).open('p');
      await store.replace(sampleState());
      const commit = (id: string) =>
        store.transact((graph) => {
          const draft = new GraphDraft(graph, NOW, 'alice');
          addTask(draft, id);
          return { result: graph.revision, changes: draft.changes() };
        });
      const revision = await commit('T-2');
      await until(() => heard.some((event) => event.revision === revision));
      expect(heard.at(-1)).to.deep.equal({ project: 'p', revision, fence_generation: sampleState().fence_generation });
      await pools[0]!.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'taskdag-listen'");
      await until(() => lines.some((line) => line.includes('lost')));
      const missed = await commit('T-3');
      await until(() => heard.some((event) => event.revision === missed), 10_000);
      expect(lines.some((line) => line.includes('is back'))).to.equal(true);
      const after = await commit('T-4');
      await until(() => heard.some((event) => event.revision === after));
    } finally {
      await listener.close();
    }
  });

  it('heard on demand: no commit reaches a listener not asked to hear them; asked, it announces where each project stands, then every commit; let go, it stops', async () => {
    const heard: ProjectRevision[] = [];
    const listener = await listenForRevisions(url, pools[1]!, (event) => heard.push(event), () => undefined, undefined, { hearing: false, unlistenAfterMs: 100 });
    try {
      const store = new PgProjectStoreFactory(pools[0]!).open('q');
      await store.replace(sampleState());
      const commit = (id: string) =>
        store.transact((graph) => {
          const draft = new GraphDraft(graph, NOW, 'alice');
          addTask(draft, id);
          return { result: graph.revision, changes: draft.changes() };
        });
      const unheard = await commit('T-2');
      // A notification would arrive within milliseconds; the announcement on hear(true) is the only way to learn of it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard.filter((event) => event.project === 'q')).to.deep.equal([]);
      listener.hear('q', true);
      await until(() => heard.some((event) => event.project === 'q' && event.revision === unheard));
      const next = await commit('T-3');
      await until(() => heard.some((event) => event.project === 'q' && event.revision === next));
      listener.hear('q', false);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const count = heard.length;
      await commit('T-4');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard.length).to.equal(count);
    } finally {
      await listener.close();
    }
  });
});

describe('a listener tells the database when it hears (issue 25 item 4)', function () {
  this.timeout(60_000);
  it('tells it after LISTEN and before announcing where each project stands, tries again a second after a failure, and tells it it stopped before UNLISTEN', async () => {
    const url = freshDatabase();
    const pool = openPool(url);
    await migrate(pool);
    await new PgProjectStoreFactory(pool).open('p').replace(sampleState());
    const steps: string[] = [];
    let failures = 1;
    const listenerIsListening = async () =>
      (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'taskdag-listen' AND query LIKE 'LISTEN taskdag_revisions%'")).rows[0]!.n === 1;
    const listener = await listenForRevisions(url, pool, (event) => steps.push(`announced ${event.project}`), () => undefined, undefined, {
      hearing: false,
      unlistenAfterMs: 50,
      declareHearing: async (projects) => {
        steps.push(`${projects.length > 0 ? `hearing ${projects.join(' ')}` : 'not hearing'}, listening ${String(await listenerIsListening())}`);
        if (projects.length > 0 && failures-- > 0) throw new Error('the database is down');
      },
    });
    try {
      const started = Date.now();
      listener.hear('p', true);
      await until(() => steps.includes('announced p'));
      expect(Date.now() - started, 'tried again a second later').to.be.at.least(900);
      expect(steps).to.deep.equal(['hearing p, listening true', 'hearing p, listening true', 'announced p']);
      listener.hear('p', false);
      await until(() => steps.length === 4);
      expect(steps[3]).to.equal('not hearing, listening true');
    } finally {
      await listener.close();
      await pool.end();
    }
  });
});

describe('group commit over PostgreSQL', function () {
  this.timeout(60_000);

  it('mutations that arrive together commit as one transaction: one revision event for the group, every caller answered', async () => {
    const url = freshDatabase();
    const pool = openPool(url);
    const heard: ProjectRevision[] = [];
    await migrate(pool);
    const listener = await listenForRevisions(url, pool, (event) => heard.push(event), () => undefined);
    try {
      const sut = new GroupCommitDispatcher(composeServices(new PgProjectStoreFactory(pool), projectsOnly('/', 'a test')));
      const run = (operation: string, args: Record<string, unknown>, agent: string | null = 'alice') => sut.dispatch({ project: 'p', operation, args, agent });
      await run('init', {}, null);
      await run('add-initiative', { name: 'core' });
      await until(() => heard.length >= 2);
      heard.length = 0;
      const tasks = Array.from({ length: 32 }, (_, index) => `T-${index + 1}`);
      const answers = await Promise.all(tasks.map((id) => run('add-task', { id, initiative: 'core', title: id, body: '', acceptance: 'ok', blocked_by: [] })));
      expect(answers).to.have.length(32);
      const state = (await run('state', {}, null)) as { revision: number; nodes: Record<string, unknown> };
      expect(Object.keys(state.nodes)).to.have.members(tasks);
      await until(() => heard.at(-1)?.revision === state.revision);
      // The 32 requests arrive in one turn of the event loop: one group, one transaction, one event.
      expect(heard.map((event) => event.revision)).to.deep.equal([state.revision]);
      const log = await pool.query("SELECT sum(json_array_length(change->'log'))::int AS n FROM taskdag_change_sets WHERE project = $1", ['p']);
      expect(log.rows[0].n).to.equal(state.revision);
    } finally {
      await listener.close();
      await pool.end();
    }
  });
});

async function untilAsync(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
