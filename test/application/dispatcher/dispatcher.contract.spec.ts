import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalDispatcher } from '../../../application/dispatcher.js';
import { GroupCommitDispatcher } from '../../../application/group-commit.js';
import { fileServices } from '../../../entrypoints/local-services.js';
import { dispatcherContract } from '../../support/dispatcher-contract.js';
import { inMemoryServices } from '../../support/services.js';

dispatcherContract('local, in-memory store', async () => ({
  dispatcher: new LocalDispatcher(inMemoryServices()),
  project: 'memory',
  cleanup: () => undefined,
}));

dispatcherContract('local, file store', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'taskdag-contract-'));
  return { dispatcher: new LocalDispatcher(fileServices(home)), project: 'contract-1', cleanup: () => rmSync(home, { recursive: true, force: true }) };
});

dispatcherContract('group commit (the server), file store', async () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'taskdag-contract-'));
  return { dispatcher: new GroupCommitDispatcher(fileServices(home)), project: 'contract-1', cleanup: () => rmSync(home, { recursive: true, force: true }) };
});
