import type { Client, Pool } from 'pg';
import { AUTH_CHANNEL, type AuthChangeSink } from './pg-auth-cache.js';
import { databaseError, openClient } from './pg-pool.js';
import { REVISION_CHANNEL, type RevisionEvent } from './pg-project-store.js';

export type ProjectRevision = RevisionEvent;

const RECONNECT_MS = 1_000;

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
 * notifications may be missed.
 */
export async function listenForRevisions(
  connectionString: string,
  pool: Pool,
  announce: (event: ProjectRevision) => void,
  log: (line: string) => void,
  auth?: AuthChangeSink,
): Promise<{ close(): Promise<void> }> {
  let current: Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;

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
      await client.query(`LISTEN ${REVISION_CHANNEL}`);
      if (auth) await client.query(`LISTEN ${AUTH_CHANNEL}`);
    } catch (error) {
      client.end().catch(() => undefined);
      throw databaseError(error);
    }
    current = client;
    if (closed) await client.end().catch(() => undefined);
    else auth?.listening(true);
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
    const rows = await pool.query<ProjectRevision>(LATEST_REVISIONS).catch(() => ({ rows: [] }));
    for (const row of rows.rows) announce(row);
  };

  await connect();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const client = current;
      current = null;
      auth?.listening(false);
      await client?.end().catch(() => undefined);
    },
  };
}
