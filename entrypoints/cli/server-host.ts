import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { ServerDoctorPorts } from '../../application/server/server-doctor.js';
import type { ServerInitPorts } from '../../application/server/server-init.js';
import { NodeHostFiles } from '../../adapters/server/node-host-files.js';
import { TcpBindProbe } from '../../adapters/server/tcp-bind-probe.js';
import { TweetnaclSecretSource } from '../../adapters/server/tweetnacl-secret-source.js';

/** The setup root when `--root` is absent: outside /home, as the unit requires. */
export const DEFAULT_SERVER_ROOT = '/srv/taskdag';

/** The composition root of the server's host operations (init, doctor, setup). */
export function serverHostPorts(): ServerInitPorts & ServerDoctorPorts {
  // The running executable (dist/taskdag.js), symlinks resolved, is what the unit starts.
  const toolPath = realpathSync(process.argv[1]!);
  return {
    files: new NodeHostFiles(),
    secrets: new TweetnaclSecretSource(),
    bind: new TcpBindProbe(),
    installation: { nodePath: process.execPath, toolPath },
    defaultUiRoot: path.resolve(path.dirname(toolPath), '..', 'ui', 'dist'),
  };
}
