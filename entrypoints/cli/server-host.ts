import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { BoardHost } from '../../application/ports/board-host.js';
import type { SystemPorts } from '../../application/server/system-ports.js';
import { NodeHostFiles } from '../../adapters/server/node-host-files.js';
import { openInBrowser } from '../../adapters/system-browser.js';
import { TcpBindProbe } from '../../adapters/server/tcp-bind-probe.js';
import { TweetnaclSecretSource } from '../../adapters/server/tweetnacl-secret-source.js';
import { loadServerRuntime } from './server-runtime.js';

/** The composition root of the host operations that reach the machine (server init, doctor, setup; ui), for the storage root `home`. */
export function serverHostPorts(home: string): SystemPorts {
  // The running executable (dist/taskdag.js), symlinks resolved, is what the unit starts.
  const toolPath = realpathSync(process.argv[1]!);
  return {
    files: new NodeHostFiles(),
    secrets: new TweetnaclSecretSource(),
    bind: new TcpBindProbe(),
    // node-postgres and the store's code live in the server's bundle: only a PostgreSQL doctor loads them.
    database: { probe: (url) => new (loadServerRuntime().PgDatabaseProbe)().probe(url) },
    // The credential stores (and node-postgres) live in the server's bundle too.
    credentials: { open: (config, url) => loadServerRuntime().openCredentials(config, url) },
    installation: { nodePath: process.execPath, toolPath },
    defaultUiRoot: path.resolve(path.dirname(toolPath), '..', 'ui', 'dist'),
    board: localBoard(home),
  };
}

/** The local board runs in the server's runtime bundle (koa stays out of every other command). */
function localBoard(home: string): BoardHost {
  return {
    serve: (options) => loadServerRuntime().serveBoard({ ...options, home }),
    open: (url) => openInBrowser(url, process.env),
  };
}
