import type * as Runtime from '../server/run-server.js';

/**
 * The server's runtime, loaded only by `server run` (and by `server doctor` for a PostgreSQL
 * server, which probes the database with the server's own code). In the bundle this require stays a require
 * of dist/taskdag-server.js (scripts/build.mjs), so koa never weighs on the CLI's start-up and
 * the server never runs the CLI's synchronous I/O helpers.
 */
export function loadServerRuntime(): typeof Runtime {
  return require('../server/run-server.js') as typeof Runtime;
}
