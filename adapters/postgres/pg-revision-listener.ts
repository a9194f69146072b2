import type { Client, Pool } from 'pg';
import { AUTH_CHANNEL, type AuthChangeSink } from './pg-auth-cache.js';
import { databaseError, openClient } from './pg-pool.js';
import { REVISION_CHANNEL, type RevisionEvent } from './pg-project-store.js';

export type ProjectRevision = RevisionEvent;

const RECONNECT_MS = 1_000;
/** How long the revision channel stays heard once nothing needs it, by default: a board that reconnects at once costs no UNLISTEN and LISTEN. */
const UNLISTEN_AFTER_MS = 30_000;

export interface HearingOptions {
  /** Whether the revision channel is listened to from the start, for every project, or only once `hear` asks for a project (default true). */
  hearing?: boolean;
  /** How long after `hear(project, false)` the project stops being heard (default UNLISTEN_AFTER_MS). */
  unlistenAfterMs?: number;
  /**
   * Tells the database which projects this process hears (none: it does not), so that a
   * project's commits notify only while some process hears it (PgProjectOwners.hearing): called
   * after LISTEN and before every project's revision is announced, and before UNLISTEN. It calls
   * `unheard` when commits may have notified nobody while this process heard: every project's
   * revision is announced.
   */
  declareHearing?: (projects: readonly string[], unheard: () => void) => Promise<void>;
}

/** What listenForRevisions returns. */
export interface RevisionListener {
  /**
   * Whether the commits of `project` by every process are to be heard: while no project's are,
   * the revision channel is not listened to, so no commit on the database wakes this process
   * (the commits that need no live stream here cost it nothing). Turned on, it listens, then
   * announces every project's current revision (a commit made just before it listened is not
   * missed); turned off, the project stops being heard `unlistenAfterMs` later, unless turned
   * on again meanwhile.
   */
  hear(project: string, wanted: boolean): void;
  close(): Promise<void>;
}

/** Each project's newest change set. */
const LATEST_REVISIONS = `
  SELECT p.id AS project, p.fence_generation::int,
    (SELECT c.revision FROM taskdag_change_sets c WHERE c.project = p.id ORDER BY c.revision DESC LIMIT 1)::int AS revision
  FROM taskdag_projects p`;

/**
 * LISTEN on the revision channel, on a client of its own (STYLE.md), so a commit by any process
 * on the database reaches this process's live streams. Resolves once listening. When the
 * connection drops it reconnects, then announces every project's current revision, so a
 * subscriber that missed events meanwhile still sees the revision move. `close` stops it.
 * With `auth`, the same client also listens for changes to sessions and credentials, and tells
 * `auth` whether it is listening: from the moment the connection is lost until it is back,
 * notifications may be missed. The auth channel is listened to throughout; the revision channel
 * as `hearing` and `hear` say.
 */
export async function listenForRevisions(
  connectionString: string,
  pool: Pool,
  announce: (event: ProjectRevision) => void,
  log: (line: string) => void,
  auth?: AuthChangeSink,
  { hearing = true, unlistenAfterMs = UNLISTEN_AFTER_MS, declareHearing }: HearingOptions = {},
): Promise<RevisionListener> {
  let current: Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  /** The projects to be heard, and whether the client in hand listens to the revision channel. */
  const wanted = new Set<string>();
  let listening = false;
  /** The projects the database was told this process hears (declareHearing), sorted. */
  let declared: readonly string[] = [];
  const stopping = new Map<string, NodeJS.Timeout>();
  const wantsChannel = () => hearing || wanted.size > 0;
  /** One change of hearing at a time. */
  let applying: Promise<void> = Promise.resolve();
  let retrying: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const client = openClient(connectionString);
    client.on('notification', (message) => {
      if (message.channel === REVISION_CHANNEL && message.payload) announce(JSON.parse(message.payload) as ProjectRevision);
      if (message.channel === AUTH_CHANNEL) auth?.changed();
    });
    const lost = () => {
      if (current !== client) return;
      current = null;
      auth?.listening(false);
      client.end().catch(() => undefined);
      reconnectLater();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      const listen = wantsChannel();
      if (listen) await client.query(`LISTEN ${REVISION_CHANNEL}`);
      listening = listen;
      if (auth) await client.query(`LISTEN ${AUTH_CHANNEL}`);
    } catch (error) {
      client.end().catch(() => undefined);
      throw databaseError(error);
    }
    current = client;
    if (closed) await client.end().catch(() => undefined);
    else {
      auth?.listening(true);
      // Asked for or given up while it connected.
      void apply();
    }
  };

  const reconnectLater = () => {
    if (closed || timer) return;
    log(`taskdag server: the revision channel to the database was lost; reconnecting every ${RECONNECT_MS} ms`);
    const attempt = () => {
      timer = setTimeout(() => {
        timer = null;
        if (closed) return;
        connect().then(catchUp, attempt);
      }, RECONNECT_MS);
      timer.unref();
    };
    attempt();
  };

  const catchUp = async () => {
    log('taskdag server: the revision channel is back');
    await announceLatest();
  };

  const announceLatest = async () => {
    const rows = await pool.query<ProjectRevision>(LATEST_REVISIONS).catch(() => ({ rows: [] }));
    for (const row of rows.rows) announce(row);
  };

  /** Brings the client in hand, and what the database was told, to what is wanted, one change at a time. */
  const apply = (): Promise<void> => (applying = applying.then(bringToWanted));

  /**
   * A project newly heard: LISTEN, then the database told (from then on each of its commits
   * notifies, and every one that did not has committed), then every project's revision
   * announced. No project heard: the database told first, then UNLISTEN. A step that fails is
   * tried again a second later; a lost client is brought to what is wanted by its reconnection,
   * which announces every project.
   */
  const bringToWanted = async (): Promise<void> => {
    const client = current;
    const want = wantsChannel();
    const projects = [...wanted].sort();
    if (!client || closed) return;
    const heard = listening && (!declareHearing || projects.every((project) => declared.includes(project)));
    try {
      if (want && !listening) {
        await client.query(`LISTEN ${REVISION_CHANNEL}`);
        listening = true;
      }
      if (declareHearing && projects.join('\n') !== declared.join('\n')) {
        await declareHearing(projects, () => void announceLatest());
        declared = projects;
      }
      if (!want && listening) {
        await client.query(`UNLISTEN ${REVISION_CHANNEL}`);
        listening = false;
      }
      if (want && !heard) await announceLatest();
    } catch {
      if (closed || retrying) return;
      retrying = setTimeout(() => {
        retrying = null;
        void apply();
      }, RECONNECT_MS);
      retrying.unref();
    }
  };

  await connect();
  return {
    hear(project: string, want: boolean) {
      clearTimeout(stopping.get(project));
      stopping.delete(project);
      if (want) {
        wanted.add(project);
        void apply();
        return;
      }
      const stop = setTimeout(() => {
        stopping.delete(project);
        wanted.delete(project);
        void apply();
      }, unlistenAfterMs);
      stop.unref();
      stopping.set(project, stop);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const stop of stopping.values()) clearTimeout(stop);
      if (retrying) clearTimeout(retrying);
      const client = current;
      current = null;
      auth?.listening(false);
      await client?.end().catch(() => undefined);
    },
  };
}
