import { randomBytes, randomUUID } from 'node:crypto';
import type { Client, Pool, PoolClient } from 'pg';
import { OwnedElsewhere, type ProjectOwners } from '../../application/ports/project-owners.js';
import { databaseError, openClient, withTransaction } from './pg-pool.js';

/** What a project store asks of the leases before each commit (pg-project-store.ts). */
export interface CommitFence {
  /** The address of the project's owner when this process knows another one owns it. */
  elsewhere(project: string): string | undefined;
  /** The fencing token this process commits the project with, taking the project when it is free; OwnedElsewhere otherwise. */
  fenceFor(project: string): Promise<number>;
  /** A commit with `fence` was refused: another process took the project over. */
  fenced(project: string, fence: number): void;
}

/**
 * Whether the process of row alias `p` is alive: this one, or one whose lease has not expired and
 * whose liveness lock is still held by its session. The lock is tried in the caller's
 * transaction, so a process found dead stays locked out only until that transaction ends.
 */
const alive = (p: string, me: string) => `(${p}.id = ${me} OR (${p}.expires_at > now() AND NOT pg_try_advisory_xact_lock(${p}.lock_key)))`;

/** $1 project: the project's owner row, locked until the end of the transaction (commits in flight hold it shared). */
const CURRENT_OWNER = 'SELECT process, fence::text FROM taskdag_owners WHERE project = $1 FOR UPDATE';

/**
 * $1 a process, $2 this process: whether it is alive, and its address. Asked once the owner row
 * is locked, so it is about the owner that row names now (a takeover that committed meanwhile).
 */
const PROCESS = `SELECT p.address, ${alive('p', '$2')} AS alive FROM taskdag_processes p WHERE p.id = $1`;

/**
 * $1 project, $2 this process: the live process owning fewest projects (ties by a hash of both
 * ids), how many it owns, and how many this process owns.
 */
const LEAST_LOADED = `
  WITH owning AS (
    SELECT p.id, p.address, (SELECT count(*) FROM taskdag_owners o WHERE o.process = p.id)::int AS owns
    FROM taskdag_processes p WHERE ${alive('p', '$2')}
  )
  SELECT id, address, owns, (SELECT count(*) FROM taskdag_owners WHERE process = $2)::int AS mine
  FROM owning ORDER BY owns, md5(id || '/' || $1) LIMIT 1`;

/** How many projects more than the least-loaded live process a process may own and still take a free project its requests reach. */
const SLACK = 1;

/**
 * Whether some live process hears the commits of `project` (`me` this process): what its owner
 * row's `notify` says (schema 11). A process hears the projects of its rows in taskdag_hearings;
 * a hearing process with none there is of a release before schema 11 and hears them all.
 */
const someProcessHears = (project: string, me: string) => `EXISTS (
  SELECT 1 FROM taskdag_processes h WHERE h.hearing AND ${alive('h', me)} AND (
    EXISTS (SELECT 1 FROM taskdag_hearings w WHERE w.process = h.id AND w.project = ${project})
    OR NOT EXISTS (SELECT 1 FROM taskdag_hearings w WHERE w.process = h.id)))`;

/**
 * A fixed key: a process changing whether it hears takes it exclusively, a process claiming a free
 * project shares it, so a new owner row is written with the `notify` of the hearing processes as
 * they stand, never of a registration still under way (the one that then recomputes every row).
 */
const HEARING_LOCK = '8386943190706581095';

/** $1 this process: every owner row says whether a live process hears its project (schemas 9 and 11); only rows that say otherwise are written. */
const RECOMPUTE_NOTIFY = `UPDATE taskdag_owners SET notify = NOT notify WHERE notify <> ${someProcessHears('taskdag_owners.project', '$1')}`;

/** $1 this process, $2 the projects it hears: its rows of taskdag_hearings, and its row's `hearing`, say so. */
const DECLARE_HEARING = `
  WITH row AS (UPDATE taskdag_processes SET hearing = cardinality($2::text[]) > 0 WHERE id = $1),
  gone AS (DELETE FROM taskdag_hearings WHERE process = $1 AND NOT project = ANY ($2::text[]))
  INSERT INTO taskdag_hearings (process, project) SELECT $1, project FROM unnest($2::text[]) project ON CONFLICT DO NOTHING`;

/**
 * $1 this process, $2 how many projects it hears: whether the database still says what a hearing
 * process told it, its own row hearing, its rows of taskdag_hearings all there and the owner rows
 * of their projects notifying. Rows written while the process was taken for gone (its lease ran
 * out, its liveness session was lost, its row removed) say otherwise.
 */
const STILL_HEARD = `
  SELECT coalesce((SELECT hearing FROM taskdag_processes WHERE id = $1), false)
    AND (SELECT count(*) FROM taskdag_hearings WHERE process = $1) = $2
    AND NOT EXISTS (SELECT 1 FROM taskdag_hearings w JOIN taskdag_owners o ON o.project = w.project WHERE w.process = $1 AND NOT o.notify) AS heard`;

/** $1 project, $2 this process. */
const CLAIM_FREE = `INSERT INTO taskdag_owners (project, process, fence, notify) VALUES ($1, $2, 1, ${someProcessHears('$1', '$2')}) ON CONFLICT (project) DO NOTHING RETURNING fence::text`;
/** $3 the fence of the owner found gone: a new fence, so that owner's late commits are refused. */
const TAKE_OVER = 'UPDATE taskdag_owners SET process = $2, fence = fence + 1 WHERE project = $1 AND fence = $3 RETURNING fence::text';

/**
 * Extends this process's lease ($1 its id) and answers the projects it owns, with their fences,
 * in one round trip: every process sends it every third of a lease, busy or idle, so it is a
 * cost that grows with the number of processes (docs/scaling.md).
 */
const RENEW = `
  WITH renewed AS (
    INSERT INTO taskdag_processes (id, address, lock_key, expires_at) VALUES ($1, $2, $3, now() + $4::int * interval '1 millisecond')
    ON CONFLICT (id) DO UPDATE SET address = EXCLUDED.address, expires_at = EXCLUDED.expires_at
  )
  SELECT project, fence::text FROM taskdag_owners WHERE process = $1`;

/** Rows of processes gone for a day: their projects were taken over long ago, or are taken as free. */
const FORGET_LONG_GONE = "DELETE FROM taskdag_processes WHERE expires_at < now() - interval '1 day'";

const RECONNECT_MS = 1_000;

/** What deciding a project's owner found: this process owns it with `fence`, or the process at `address` does (or should). */
type Decided = { fence: number } | { address: string };

/**
 * Project ownership in PostgreSQL (docs/scaling.md, "Failover"). Each server process has a row in
 * taskdag_processes: the address other processes forward to, a lease it renews every third of
 * the lease duration, and the key of an advisory lock its own session holds for as long as it
 * lives. A project's row in taskdag_owners names its owning process and a fencing token; every
 * commit of the owner checks the token in its INSERT, so once another process has taken the
 * project over (with a new token) a former owner, paused or cut off, can never commit again.
 *
 * An owner is gone when its lease expired or its liveness lock is free: a killed process's
 * session ends with it, so its projects are taken over at once; one that is cut off or paused
 * keeps its session, and its projects are taken over when its lease expires. A free project is
 * taken by the process its first mutation reaches, so a balancer that sends each project's
 * requests to one process has them served with no forwarding, unless that process already owns
 * more than SLACK projects above the least-loaded live process, which takes it instead: projects
 * spread over the processes whatever the balancer does.
 */
export class PgProjectOwners implements ProjectOwners, CommitFence {
  /** This process's id in taskdag_processes. */
  readonly id = randomUUID();
  private readonly lockKey = randomBytes(8).readBigInt64BE().toString();
  private readonly owned = new Map<string, number>();
  private readonly others = new Map<string, string>();
  private readonly deciding = new Map<string, Promise<Decided>>();
  private address: string | null = null;
  private liveness: Client | null = null;
  private renewal: NodeJS.Timeout | null = null;
  private reconnecting: NodeJS.Timeout | null = null;
  private started = false;
  /** Resolves once this process is registered: a request that arrives between listening and that waits for it. */
  private readonly registered: Promise<void>;
  private markRegistered!: () => void;
  private renewing = false;
  private renewFailed = false;
  private closed = false;
  /** The projects whose commits this process hears, as last asked (`hearing`). */
  private hears: readonly string[] = [];
  /** Told when commits may have notified nobody while this process heard (see keepHeard). */
  private unheard: (() => void) | null = null;
  /** The change of hearing under way: one at a time, each writing what was last asked. */
  private declaring: Promise<void> = Promise.resolve();
  private checkingHeard = false;

  constructor(
    private readonly pool: Pool,
    private readonly connectionString: string,
    readonly leaseMs: number,
    private readonly log: (line: string) => void,
  ) {
    this.registered = new Promise((resolve) => (this.markRegistered = resolve));
  }

  /** Takes the liveness lock, then registers this process at `address` and renews its lease until `close`. */
  async start(address: string): Promise<void> {
    this.address = address;
    this.started = true;
    await this.holdLivenessLock();
    await this.renew();
    await this.pool.query(FORGET_LONG_GONE).catch(() => undefined);
    // Rows written before schema 9, or by a process that died hearing, notify for nobody: put right.
    await this.recomputeNotify().catch(() => undefined);
    this.renewal = setInterval(() => void this.renew().then(() => this.keepHeard()).catch(() => undefined), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.renewal.unref();
    this.markRegistered();
  }

  /** Releases every project this process owns (other processes take them at once) and its lease. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.renewal) clearInterval(this.renewal);
    if (this.reconnecting) clearTimeout(this.reconnecting);
    if (this.started) {
      if (this.hears.length > 0) await this.hearing([]).catch(() => undefined);
      await this.pool.query('DELETE FROM taskdag_owners WHERE process = $1', [this.id]).catch(() => undefined);
      await this.pool.query('DELETE FROM taskdag_processes WHERE id = $1', [this.id]).catch(() => undefined);
    }
    this.owned.clear();
    await this.liveness?.end().catch(() => undefined);
    this.liveness = null;
  }

  /**
   * Says in the database which projects' commits this process hears (none: it does not), and
   * puts every owner row's `notify` right: a project's commits notify only while some live
   * process hears them (schemas 9 and 11). Call it after LISTEN and before reading where each
   * project stands: it returns once every commit of a project newly heard that did not notify
   * has committed (the update of each owner row waits for the commits holding it, and every
   * commit after it reads the flag it wrote), so that read sees them all. Projects no longer
   * heard are told before UNLISTEN. `unheard` is called when a renewal finds that commits may
   * have notified nobody meanwhile (keepHeard): the caller then reads where each project stands again.
   */
  async hearing(projects: readonly string[], unheard?: () => void): Promise<void> {
    await this.registered;
    this.hears = projects;
    if (unheard) this.unheard = unheard;
    await this.declare();
  }

  /** Writes what was last asked of hearing, after any change under way. */
  private declare(): Promise<void> {
    const step = this.declaring.then(() =>
      withTransaction(this.pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [HEARING_LOCK]);
        await client.query(DECLARE_HEARING, [this.id, this.hears]);
        await client.query(RECOMPUTE_NOTIFY, [this.id]);
      }),
    );
    this.declaring = step.catch(() => undefined);
    return step;
  }

  /**
   * While this process hears, puts right what the database says of it when others changed it
   * without it: while it was taken for gone (its lease ran out in a pause or a slow renewal, its
   * liveness session was lost), a process that started, changed its hearing or claimed a free
   * project found nobody alive hears, and the owner rows it wrote then notify nobody, and would
   * stay so while this process's streams wait. It says it hears again, then has `unheard` read
   * where each project stands: the commits in between notified nobody.
   */
  private async keepHeard(): Promise<void> {
    if (this.hears.length === 0 || this.checkingHeard) return;
    this.checkingHeard = true;
    try {
      const heard = (await this.pool.query<{ heard: boolean }>(STILL_HEARD, [this.id, this.hears.length])).rows[0]?.heard;
      if (heard !== false || this.hears.length === 0) return;
      this.log('taskdag server: commits had stopped notifying this process while it was taken for gone; they notify it again');
      await this.declare();
      this.unheard?.();
    } finally {
      this.checkingHeard = false;
    }
  }

  knownOwner(project: string): string | undefined {
    return this.owned.has(project) ? (this.address ?? undefined) : this.others.get(project);
  }

  elsewhere(project: string): string | undefined {
    return this.owned.has(project) ? undefined : this.others.get(project);
  }

  unreachable(project: string, address: string): void {
    if (this.others.get(project) === address) this.others.delete(project);
  }

  async fenceFor(project: string): Promise<number> {
    const fence = this.owned.get(project);
    if (fence !== undefined) return fence;
    const known = this.others.get(project);
    if (known !== undefined) throw new OwnedElsewhere(project, known);
    const decided = await this.decide(project, true);
    if ('fence' in decided) return decided.fence;
    throw new OwnedElsewhere(project, decided.address);
  }

  fenced(project: string, fence: number): void {
    if (this.owned.get(project) !== fence) return;
    this.owned.delete(project);
    this.log(`taskdag server: project ${project} was taken over by another process; its requests are forwarded there`);
  }

  async takeIfFree(project: string): Promise<void> {
    if (!this.owned.has(project)) await this.decide(project, false);
  }

  async ownerAfter(project: string, unreachable: string | null): Promise<string | null> {
    if (this.owned.has(project)) return null;
    if (unreachable !== null && this.others.get(project) === unreachable) this.others.delete(project);
    const decided = await this.decide(project, true);
    return 'fence' in decided ? null : decided.address;
  }

  /**
   * Who owns `project`, in one transaction: its live owner (this process included), else this
   * process takes it, unless `spread` and this process owns more than SLACK projects above the
   * least-loaded live process (that process takes it when the forwarded request reaches it).
   */
  private decide(project: string, spread: boolean): Promise<Decided> {
    // The requests that find a project's owner gone together share one decision (one takeover, not one each).
    const key = `${spread}/${project}`;
    let deciding = this.deciding.get(key);
    if (!deciding) {
      deciding = this.decideAlone(project, spread);
      this.deciding.set(key, deciding);
      const done = () => this.deciding.delete(key);
      deciding.then(done, done);
    }
    return deciding;
  }

  private async decideAlone(project: string, spread: boolean): Promise<Decided> {
    await this.registered;
    for (;;) {
      const decided = await withTransaction(this.pool, (client) => this.decideIn(client, project, spread));
      if (decided === null) continue; // another process took the free project meanwhile: ask again
      if ('fence' in decided) {
        this.owned.set(project, decided.fence);
        this.others.delete(project);
      } else {
        this.others.set(project, decided.address);
      }
      return decided;
    }
  }

  private async decideIn(client: PoolClient, project: string, spread: boolean): Promise<Decided | null> {
    const current = (await client.query<{ process: string; fence: string }>(CURRENT_OWNER, [project])).rows[0];
    if (current?.process === this.id) return { fence: Number(current.fence) };
    if (current) {
      const owner = (await client.query<{ address: string; alive: boolean }>(PROCESS, [current.process, this.id])).rows[0];
      if (owner?.alive) return { address: owner.address };
    }
    if (spread) {
      // None when this process's own row is gone (removed by hand): it takes the project, and its next renewal writes the row again.
      const least = (await client.query<{ id: string; address: string; owns: number; mine: number }>(LEAST_LOADED, [project, this.id])).rows[0];
      if (least && least.id !== this.id && least.mine > least.owns + SLACK) return { address: least.address };
    }
    // A new owner row takes its `notify` from the hearing processes: after any registration under way (HEARING_LOCK).
    if (!current) await client.query('SELECT pg_advisory_xact_lock_shared($1)', [HEARING_LOCK]);
    const taken = current ? await client.query<{ fence: string }>(TAKE_OVER, [project, this.id, current.fence]) : await client.query<{ fence: string }>(CLAIM_FREE, [project, this.id]);
    const fence = taken.rows[0]?.fence;
    if (fence === undefined) return null;
    if (current) this.log(`taskdag server: took project ${project} over from a process that is gone (fence ${fence})`);
    return { fence: Number(fence) };
  }

  private async recomputeNotify(): Promise<void> {
    await withTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [HEARING_LOCK]);
      await client.query(RECOMPUTE_NOTIFY, [this.id]);
    });
  }

  /**
   * Extends this process's lease, and forgets the projects another process took over meanwhile
   * (their next request is forwarded at once rather than after a refused commit).
   */
  private async renew(): Promise<void> {
    if (this.renewing || this.closed) return;
    this.renewing = true;
    try {
      const rows = (await this.pool.query<{ project: string; fence: string }>(RENEW, [this.id, this.address, this.lockKey, this.leaseMs])).rows;
      const held = new Map(rows.map((row) => [row.project, Number(row.fence)]));
      for (const [project, fence] of this.owned) if (held.get(project) !== fence) this.fenced(project, fence);
      if (this.renewFailed) this.log('taskdag server: the project leases are renewed again');
      this.renewFailed = false;
    } catch (error) {
      if (!this.renewFailed) this.log(`taskdag server: the project leases could not be renewed (${String((databaseError(error) as { details?: { cause?: string } }).details?.cause ?? 'error')}); trying again`);
      this.renewFailed = true;
      throw error;
    } finally {
      this.renewing = false;
    }
  }

  /**
   * Takes this process's liveness lock on a session of its own, held for as long as the process
   * lives; a lost session is opened again (meanwhile other processes may find this one gone and
   * take its projects over, and the fence refuses its commits to them).
   */
  private async holdLivenessLock(): Promise<void> {
    const client = openClient(this.connectionString);
    const lost = () => {
      if (this.liveness !== client) return;
      this.liveness = null;
      client.end().catch(() => undefined);
      this.reconnectLater();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query('SELECT pg_advisory_lock($1)', [this.lockKey]);
    } catch (error) {
      client.end().catch(() => undefined);
      throw databaseError(error);
    }
    this.liveness = client;
    if (this.closed) await client.end().catch(() => undefined);
  }

  private reconnectLater(): void {
    if (this.closed || this.reconnecting) return;
    this.reconnecting = setTimeout(() => {
      this.reconnecting = null;
      if (!this.closed) this.holdLivenessLock().catch(() => this.reconnectLater());
    }, RECONNECT_MS);
    this.reconnecting.unref();
  }
}
