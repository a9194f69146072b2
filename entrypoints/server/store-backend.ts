import type { AuthStore } from '../../application/ports/auth-store.js';
import type { ProjectStoreFactory } from '../../application/ports/project-store.js';
import { storeOf, type ServerConfig } from '../../application/server/server-config.js';
import { DATABASE_URL_KEY, databaseUrlProblem } from '../../application/server/server-env.js';
import { DomainError } from '../../domain/errors.js';
import { ownedStateDirectoryLock } from '../../adapters/flock-project-lock.js';
import { nodeFileSystem } from '../../adapters/file-system.js';
import { FsProjectStoreFactory } from '../../adapters/fs-project-store.js';
import { FsAuthStore } from '../../adapters/server/fs-auth-store.js';
import { PgAuthStore } from '../../adapters/postgres/pg-auth-store.js';
import { openPool } from '../../adapters/postgres/pg-pool.js';
import { PgProjectOwners } from '../../adapters/postgres/pg-project-owners.js';
import { PgProjectStoreFactory } from '../../adapters/postgres/pg-project-store.js';
import type { ProjectOwners } from '../../application/ports/project-owners.js';
import type { ServerSettings } from '../../application/server/server-settings.js';
import { listenForRevisions, type ProjectRevision, type RevisionListener } from '../../adapters/postgres/pg-revision-listener.js';
import { migrate } from '../../adapters/postgres/pg-schema.js';

/** Connections each server process keeps to its database at most. */
const POOL_SIZE = 16;

/** Where a server keeps projects and sessions, and how it learns of commits by other processes. */
export interface StoreBackend {
  stores: ProjectStoreFactory;
  auth: AuthStore;
  /**
   * Delivers the commits made through this database, by any process, until `close`: with
   * PostgreSQL, those of other processes only while `hear(project, true)` asks for that
   * project's (a live stream of it is open), so that commits no stream here needs do not wake
   * this process, nor notify at all when no process needs them.
   */
  follow(announce: (event: ProjectRevision) => void): Promise<void>;
  hear(project: string, wanted: boolean): void;
  /**
   * Which process owns each project's writes (PostgreSQL, docs/scaling.md): null when this
   * process is the only writer (files). `register` makes this process one that may own projects,
   * reached by the others at `address`, once it listens.
   */
  owners: (ProjectOwners & { register(address: string): Promise<void> }) | null;
  close(): Promise<void>;
}

/**
 * The store `server.json` selects: the files of the data root, kept hot in this process (the
 * default), or PostgreSQL, whose connection string is taken from the environment (server.env)
 * and removed from it at once, like the password. With PostgreSQL the schema is migrated here,
 * before the server listens (docs/scaling.md).
 */
export async function openStoreBackend(config: ServerConfig, env: Record<string, string | undefined>, settings: ServerSettings, log: (line: string) => void): Promise<StoreBackend> {
  const url = env[DATABASE_URL_KEY];
  delete env[DATABASE_URL_KEY];
  if (storeOf(config) === 'files') {
    return {
      stores: new FsProjectStoreFactory(config.dataRoot, ownedStateDirectoryLock, nodeFileSystem, true),
      auth: new FsAuthStore(config.stateHome),
      follow: async () => undefined,
      hear: () => undefined,
      owners: null,
      close: async () => undefined,
    };
  }
  const problem = databaseUrlProblem(url);
  if (problem) throw new DomainError('MISSING_FIELD', `${problem}: add it to server.env (docs/scaling.md), then run \`taskdag server doctor\``, { field: DATABASE_URL_KEY, source: 'environment' });
  const pool = openPool(url!, POOL_SIZE);
  let listener: RevisionListener | null = null;
  /** The projects asked for before following began (no stream can open before the server listens, but the order is not this module's to assume). */
  const asked = new Set<string>();
  try {
    const applied = await migrate(pool);
    if (applied.length > 0) log(`taskdag server: applied database migrations ${applied.join(', ')}`);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  const owners = new PgProjectOwners(pool, url!, settings.ownerLeaseMs, log);
  const stores = new PgProjectStoreFactory(pool, owners);
  const auth = new PgAuthStore(pool);
  return {
    stores,
    auth,
    async follow(announce) {
      // Each project's store hears of commits too: it catches up before its next commit, not after a refused one.
      // The bearer checks trust what they found only while the same client listens for changes to sessions.
      // A project's commits notify only while some process hears them: this one says which it hears as that changes.
      listener = await listenForRevisions(url!, pool, (event) => (stores.noticed(event), announce(event)), log, auth.changes, {
        hearing: false,
        declareHearing: (projects, unheard) => owners.hearing(projects, unheard),
      });
      for (const project of asked) listener.hear(project, true);
    },
    hear(project, wanted) {
      if (wanted) asked.add(project);
      else asked.delete(project);
      listener?.hear(project, wanted);
    },
    owners: {
      takeIfFree: (project) => owners.takeIfFree(project),
      ownerAfter: (project, unreachable) => owners.ownerAfter(project, unreachable),
      knownOwner: (project) => owners.knownOwner(project),
      elsewhere: (project) => owners.elsewhere(project),
      unreachable: (project, address) => owners.unreachable(project, address),
      register: (address) => owners.start(address),
    },
    async close() {
      // Its projects are released first, so the other processes take them over at once.
      await owners.close();
      await listener?.close();
      await pool.end().catch(() => undefined);
    },
  };
}
