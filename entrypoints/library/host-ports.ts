import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { HostPortsFor } from '../compose.js';
import { clientPortsOnFirstUse } from '../host/client-ports.js';
import { machinePorts } from '../host/machine-ports.js';

/**
 * The library's host ports: the machine and the checkout's remote commands, as on the command
 * line, except that the program a generated unit starts is the package's own executable, beside
 * the library's bundle (dist/taskdag.js next to dist/library.js), not the script that embeds it.
 */
export const libraryHostPorts: HostPortsFor = (home, checkouts, { cwd, env }) => ({
  cwd,
  system: () => machinePorts(home, path.join(realpathSync(__dirname), 'taskdag.js')),
  client: clientPortsOnFirstUse(home, checkouts, env),
});
