import path from 'node:path';
import type { BoardHost } from '../../application/ports/board-host.js';
import type { SystemPorts } from '../../application/server/system-ports.js';
import { NodeHostFiles } from '../../adapters/server/node-host-files.js';
import { openInBrowser } from '../../adapters/system-browser.js';
import { TcpBindProbe } from '../../adapters/server/tcp-bind-probe.js';
import { TweetnaclSecretSource } from '../../adapters/server/tweetnacl-secret-source.js';
import { loadServerRuntime } from './server-runtime.js';

/**
 * What the host operations that reach the machine (server init, doctor, setup; ui) use, for the
 * storage root `home`. `toolPath` is the executable a generated unit starts (dist/taskdag.js,
 * symlinks resolved): each entrypoint knows where its own is.
 */
export function machinePorts(home: string, toolPath: string): SystemPorts {
  return {
    files: new NodeHostFiles(),
    secrets: new TweetnaclSecretSource(),
    bind: new TcpBindProbe(),
    // node-postgres and the store's code live in the server's bundle: only a PostgreSQL doctor loads them.
    database: { probe: (url) => new (loadServerRuntime().PgDatabaseProbe)().probe(url) },
    hasher: { matches: (password, verifier) => new (loadServerRuntime().ScryptPasswordHasher)().matches(password, verifier) },
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
