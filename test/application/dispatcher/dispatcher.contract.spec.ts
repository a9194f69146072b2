import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalDispatcher } from '../../../application/dispatcher.js';
import { GroupCommitDispatcher } from '../../../application/group-commit.js';
import { composeServices, fileStores, projectsOnly } from '../../../entrypoints/compose.js';
import { PgProjectStoreFactory } from '../../../adapters/postgres/pg-project-store.js';
import { freshPool } from '../../support/postgres.js';
import { dispatcherContract } from '../../support/dispatcher-contract.js';
import { inMemoryServices } from '../../support/services.js';

dispatcherContract('local, in-memory store', async () => ({
  dispatcher: new LocalDispatcher(inMemoryServices()),
  project: 'memory',
  cleanup: () => undefined,
}));

dispatcherContract('local, file store', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'taskdag-contract-'));
  return { dispatcher: new LocalDispatcher(composeServices(fileStores(home), projectsOnly(home, 'the contract suite'))), project: 'contract-1', cleanup: () => rmSync(home, { recursive: true, force: true }) };
});

dispatcherContract('group commit (the server), file store', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'taskdag-contract-'));
  return { dispatcher: new GroupCommitDispatcher(composeServices(fileStores(home), projectsOnly(home, 'the contract suite'))), project: 'contract-1', cleanup: () => rmSync(home, { recursive: true, force: true }) };
});

/** The server's two ways over PostgreSQL: a fresh migrated database each test. */
for (const [name, make] of [
  ['local, PostgreSQL store', (services: ReturnType<typeof composeServices>) => new LocalDispatcher(services)],
  ['group commit (the server), PostgreSQL store', (services: ReturnType<typeof composeServices>) => new GroupCommitDispatcher(services)],
] as const) {
  dispatcherContract(name, async () => {
    const database = await freshPool();
    const services = composeServices(new PgProjectStoreFactory(database.pool), projectsOnly(os.tmpdir(), 'the contract suite'));
    return { dispatcher: make(services), project: 'contract-1', cleanup: () => database.close() };
  });
}
