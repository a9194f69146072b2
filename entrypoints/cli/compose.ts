import os from 'node:os';
import path from 'node:path';
import { LocalOperations } from '../../application/local-operations.js';
import { OPERATIONS } from '../../application/operations/index.js';
import type { OperationDispatcher } from '../../application/operation.js';
import { OperationRegistry } from '../../application/registry.js';
import { FsCheckoutLocator } from '../../adapters/fs-checkout-locator.js';
import { stateDirectoryLock } from '../../adapters/flock-project-lock.js';
import { FsProjectStoreFactory } from '../../adapters/fs-project-store.js';
import { KernelRandomIdSource } from '../../adapters/kernel-random-id-source.js';
import { SystemClock } from '../../adapters/system-clock.js';

export interface Environment {
  cwd: string;
  env: Record<string, string | undefined>;
  project: string | undefined;
}

/** `$TASKDAG_HOME`, else `~/.taskdag`. */
export function taskdagHome(env: Record<string, string | undefined>): string {
  return env.TASKDAG_HOME && env.TASKDAG_HOME !== '' ? path.resolve(env.TASKDAG_HOME) : path.join(os.homedir(), '.taskdag');
}

/** The composition root of local mode. */
export function localOperations(environment: Environment): OperationDispatcher {
  return new LocalOperations({
    checkouts: new FsCheckoutLocator(environment.cwd, environment.project),
    stores: new FsProjectStoreFactory(taskdagHome(environment.env), stateDirectoryLock),
    clock: new SystemClock(),
    ids: new KernelRandomIdSource(),
    registry: new OperationRegistry(OPERATIONS),
  });
}
