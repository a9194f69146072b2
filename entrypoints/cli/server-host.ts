import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { SystemPorts } from '../../application/server/system-ports.js';
import { NodeHostFiles } from '../../adapters/server/node-host-files.js';
import { TcpBindProbe } from '../../adapters/server/tcp-bind-probe.js';
import { PgDatabaseProbe } from '../../adapters/postgres/pg-database-probe.js';
import { TweetnaclSecretSource } from '../../adapters/server/tweetnacl-secret-source.js';

/** The composition root of the server's host operations (init, doctor, setup). */
export function serverHostPorts(): SystemPorts {
  // The running executable (dist/taskdag.js), symlinks resolved, is what the unit starts.
  const toolPath = realpathSync(process.argv[1]!);
  return {
    files: new NodeHostFiles(),
    secrets: new TweetnaclSecretSource(),
    bind: new TcpBindProbe(),
    database: new PgDatabaseProbe(),
    installation: { nodePath: process.execPath, toolPath },
    defaultUiRoot: path.resolve(path.dirname(toolPath), '..', 'ui', 'dist'),
  };
}
