import os from 'node:os';
import path from 'node:path';
import type { DispatcherServices } from '../application/dispatcher.js';
import type { ClientPorts } from '../application/remote/client-ports.js';
import type { ProjectStoreFactory } from '../application/ports/project-store.js';
import { DomainError } from '../domain/errors.js';
import { OPERATIONS } from '../application/operations/index.js';
import { OperationRegistry } from '../application/registry.js';
import { nodeFileSystem } from '../adapters/file-system.js';
import { stateDirectoryLock } from '../adapters/flock-project-lock.js';
import { FsProjectStoreFactory, type StoreWarning, type StoreWarningSink } from '../adapters/fs-project-store.js';
import { KernelRandomIdSource } from '../adapters/kernel-random-id-source.js';
import { NodePluginRuntime } from '../adapters/node-plugin-runtime.js';
import type { PluginRuntime } from '../application/ports/plugin-runtime.js';
import { SystemClock } from '../adapters/system-clock.js';
import { serverHostPorts } from './cli/server-host.js';

/** `$TASKDAG_HOME`, else `~/.taskdag`. */
export function taskdagHome(env: Record<string, string | undefined>): string {
  return env.TASKDAG_HOME && env.TASKDAG_HOME !== '' ? path.resolve(env.TASKDAG_HOME) : path.join(os.homedir(), '.taskdag');
}

export interface FileServicesOptions {
  /** Keep each project's state in memory between calls (the server, which owns its data root). */
  hot?: boolean;
  /** The checkout's remote ports (session profile, password prompt, server connector): the command line's. */
  client?: () => ClientPorts;
  /** Where store warnings go (docs/storage.md); by default one JSON line each on stderr, stdout keeping its one value. */
  warn?: StoreWarningSink;
}

/** What runs operations on the files under `home`: the stores, the clock, ids and every operation. */
export function fileServices(home: string, cwd = process.cwd(), options: FileServicesOptions = {}): DispatcherServices {
  return servicesOver(new FsProjectStoreFactory(home, stateDirectoryLock, nodeFileSystem, options.hot ?? false, options.warn ?? warnOnStderr), home, cwd, options);
}

/**
 * What runs operations on the projects of `stores` (the files, or a database for the server);
 * `home` is the storage root a local board (`ui`) serves.
 */
export function servicesOver(stores: ProjectStoreFactory, home: string, cwd: string, options: Pick<FileServicesOptions, 'client'> = {}): DispatcherServices {
  return {
    stores,
    clock: new SystemClock(),
    ids: new KernelRandomIdSource(),
    registry: new OperationRegistry(OPERATIONS),
    host: { cwd, system: () => serverHostPorts(home), client: options.client ?? noClient },
    plugins: pluginRuntimeOnFirstUse(),
  };
}

/** The plugin runtime, made when a project with plugins first needs it. */
function pluginRuntimeOnFirstUse(): () => PluginRuntime {
  let runtime: PluginRuntime | null = null;
  return () => (runtime ??= new NodePluginRuntime());
}

/** Store warnings go to stderr, one JSON line each, so stdout keeps its one value. */
function warnOnStderr(warning: StoreWarning): void {
  process.stderr.write(`${JSON.stringify({ warning })}\n`);
}

/** The library and the server run no checkout's remote commands. */
function noClient(): never {
  throw new DomainError('REMOTE_UNSUPPORTED_OPERATION', 'The remote commands of a checkout (link, login, logout, push, pull) run from the command line', {});
}
