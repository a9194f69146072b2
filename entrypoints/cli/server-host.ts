import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { SystemPorts } from '../../application/server/system-ports.js';
import { NodeHostFiles } from '../../adapters/server/node-host-files.js';
import { TcpBindProbe } from '../../adapters/server/tcp-bind-probe.js';
import { loadServerRuntime } from './server-runtime.js';
import { TweetnaclSecretSource } from '../../adapters/server/tweetnacl-secret-source.js';

/** The composition root of the server's host operations (init, doctor, setup). */
export function serverHostPorts(): SystemPorts {
  // The running executable (dist/taskdag.js), symlinks resolved, is what the unit starts.
  const toolPath = realpathSync(process.argv[1]!);
  return {
    files: new NodeHostFiles(),
    secrets: new TweetnaclSecretSource(),
    bind: new TcpBindProbe(),
    // node-postgres and the store's code live in the server's bundle: only a PostgreSQL doctor loads them.
    database: { probe: (url) => new (loadServerRuntime().PgDatabaseProbe)().probe(url) },
    installation: { nodePath: process.execPath, toolPath },
    defaultUiRoot: path.resolve(path.dirname(toolPath), '..', 'ui', 'dist'),
  };
}
