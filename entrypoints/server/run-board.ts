import { boardFiles } from '../../adapters/server/board-files.js';
import { boardRoutes } from '../../adapters/server/board-routes.js';
import { buildHttpApp } from '../../adapters/server/http-app.js';
import { listen } from '../../adapters/server/http-listener.js';
import { KnownProjects } from '../../adapters/server/known-projects.js';
import { loopbackOnly } from '../../adapters/server/loopback-only.js';
import { PathRedactor } from '../../adapters/server/path-redactor.js';
import { RevisionWatcher } from '../../adapters/server/revision-watcher.js';
import { ShutdownHooks } from '../../adapters/server/shutdown-hooks.js';
import { SseHub } from '../../adapters/server/sse-hub.js';
import type { BoardServeOptions, ServedBoard } from '../../application/ports/board-host.js';
import { DEFAULT_SETTINGS } from '../../application/server/server-settings.js';
import { composeServices, fileStores, projectsOnly } from '../compose.js';
import { FsCheckoutRecord } from '../../adapters/fs-checkout-record.js';

/** How often the local board looks for commits other processes made (a CLI mutation shows within a second). */
const WATCH_MS = 100;
const LOOPBACK = '127.0.0.1';

/**
 * `taskdag ui` (spec 4.4, 4.7): the built board and the board's /v1 reads for every project of
 * the local storage root, on 127.0.0.1 only, with no login and no bearer. Resolves once listening;
 * the process then serves until SIGINT or SIGTERM, which end the live streams and close the
 * listener (docs/board.md).
 */
export async function serveBoard(options: BoardServeOptions & { home: string }): Promise<ServedBoard> {
  const { stores, clock } = composeServices(fileStores(options.home, { hot: true }), projectsOnly(options.home, 'the local board'));
  const checkouts = new FsCheckoutRecord(options.home);
  const shutdown = new ShutdownHooks();
  const hub = new SseHub();
  const watcher = new RevisionWatcher(stores, hub, WATCH_MS);
  shutdown.add(() => {
    watcher.stop();
    hub.close();
  });
  let port = options.port;
  const app = buildHttpApp({
    auth: null,
    maxBodyBytes: DEFAULT_SETTINGS.maxBodyBytes,
    shutdown,
    // The user's own machine and paths: nothing to hide from them.
    redactor: new PathRedactor({}),
    log: (line) => process.stderr.write(`${line}\n`),
    admit: loopbackOnly(() => port),
    // Local commands (init, ui) note their checkouts in the taskdag home: read on every catalog.
    authenticated: () => [boardRoutes({ stores, clock, hub, shutdown, projects: new KnownProjects(stores), checkouts: () => checkouts.load() })],
    board: boardFiles(options.uiRoot),
  });
  const server = await listen(app, { host: LOOPBACK, port: options.port }, DEFAULT_SETTINGS, shutdown);
  port = server.port;
  const stop = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    void server.stop(1_000);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return { host: server.host, port: server.port };
}
