import type Router from '@koa/router';
import { apiRouter } from './api-router.js';
import type { Context } from 'koa';
import { activity } from '../../application/board/activity.js';
import { catalog, type CatalogMemo } from '../../application/board/catalog.js';
import { nodeDetail } from '../../application/board/node-detail.js';
import { boardSnapshot, snapshotEtag } from '../../application/board/snapshot.js';
import { SnapshotCache } from '../../application/board/snapshot-cache.js';
import type { Clock } from '../../application/ports/clock.js';
import type { SeenCheckouts } from '../../application/ports/checkout-record.js';
import type { ProjectStoreFactory } from '../../application/ports/project-store.js';
import { DomainError } from '../../domain/errors.js';
import { ifNoneMatch } from './if-none-match.js';
import { type KnownProjects, projectIdOf } from './known-projects.js';
import type { ShutdownHooks } from './shutdown-hooks.js';
import type { RevisionEvent, SseHub } from './sse-hub.js';

export interface BoardRoutesOptions {
  stores: ProjectStoreFactory;
  clock: Clock;
  hub: SseHub;
  shutdown: ShutdownHooks;
  projects: KnownProjects;
  /** The checkouts seen using each project, for the catalog. */
  checkouts: () => Promise<SeenCheckouts>;
}

/**
 * The board's reads (docs/http-api.md): catalog, snapshot with ETag, one node, activity, live
 * events. Read-only, so `server run` (behind the bearer) and `taskdag ui` (loopback, no bearer)
 * mount the same routes.
 */
export function boardRoutes(options: BoardRoutesOptions): Router {
  const router = apiRouter();
  const known = options.projects;
  const snapshots = new SnapshotCache();
  const catalogEntries: CatalogMemo = new Map();

  router.get('/v1/projects', async (ctx) => {
    ctx.body = await catalog(options.stores, options.clock, { memo: catalogEntries, checkouts: await options.checkouts() });
  });

  router.get('/v1/projects/:project/ui/snapshot', async (ctx) => {
    const project = projectIdOf(ctx.params.project);
    await known.require(project);
    const answer = await options.stores.open(project).readGraph((graph) => {
      const etag = snapshotEtag(graph);
      if (ifNoneMatch(ctx.get('if-none-match'), etag)) return { etag, json: null };
      // Built inside the read: a hot graph changes in place once this turn ends.
      return { etag, json: snapshots.text(project, etag, () => JSON.stringify(boardSnapshot(project, graph, options.clock.now()))) };
    });
    ctx.set('ETag', answer.etag);
    ctx.set('Cache-Control', 'no-cache');
    if (answer.json === null) ctx.status = 304;
    else {
      ctx.type = 'application/json';
      ctx.body = answer.json;
    }
  });

  router.get('/v1/projects/:project/ui/nodes/:nodeId', async (ctx) => {
    const project = projectIdOf(ctx.params.project);
    await known.require(project);
    ctx.body = await options.stores.open(project).readState((state) => nodeDetail(state, ctx.params.nodeId!, options.clock.now()));
  });

  router.get('/v1/projects/:project/ui/activity', async (ctx) => {
    const project = projectIdOf(ctx.params.project);
    await known.require(project);
    const page = { limit: numberParam(ctx, 'limit'), before: numberParam(ctx, 'before') };
    ctx.body = await options.stores.open(project).readState((state) => activity(state.log, page));
  });

  router.get('/v1/projects/:project/ui/events', async (ctx) => {
    const project = projectIdOf(ctx.params.project);
    await known.require(project);
    const current = await revisionOf(options.stores, project);
    const lastEventId = ctx.get('last-event-id');
    const resumeFrom = /^\d+$/.test(lastEventId) ? Number(lastEventId) : null;
    // From here to subscribe nothing awaits: the room checked is still there once headers are out.
    options.hub.requireRoom();
    ctx.req.socket.setTimeout(0);
    ctx.respond = false;
    ctx.res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    const close = options.hub.subscribe(project, ctx.res, current, resumeFrom);
    const unhook = options.shutdown.add(() => ctx.res.end());
    ctx.res.once('close', () => {
      close();
      unhook();
    });
  });

  return router;
}

function numberParam(ctx: Context, name: string): number | undefined {
  const value = ctx.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new DomainError('INVALID_ARGUMENT', `${name} takes a whole number`, { field: name, value });
  return Number(value);
}

/** The project's committed revision now, as a live event names it. */
export async function revisionOf(stores: ProjectStoreFactory, project: string): Promise<RevisionEvent> {
  return stores.open(project).readGraph((graph) => ({ revision: graph.revision, fence_generation: graph.fence_generation }));
}
