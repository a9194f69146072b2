import { realpathSync } from 'node:fs';
import type { HostPortsFor } from '../compose.js';
import { clientPortsOnFirstUse } from '../host/client-ports.js';
import { machinePorts } from '../host/machine-ports.js';

/**
 * The command line's host ports: the machine (a unit it writes starts the executable that is
 * running, dist/taskdag.js, symlinks resolved) and the checkout's remote commands.
 */
export const cliHostPorts: HostPortsFor = (home, checkouts, { cwd, env }) => ({
  cwd,
  system: () => machinePorts(home, realpathSync(process.argv[1]!)),
  client: clientPortsOnFirstUse(home, checkouts, env),
});
