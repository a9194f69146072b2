import Router from '@koa/router';
import type { Context } from 'koa';
import { activity } from '../../application/board/activity.js';
import { catalog } from '../../application/board/catalog.js';
import { nodeDetail } from '../../application/board/node-detail.js';
import { boardSnapshot, snapshotEtag } from '../../application/board/snapshot.js';
import { refusedRemotely, servedRemotely } from '../../application/remote-offer.js';
import type { OperationDispatcher } from '../../application/operation.js';
import type { Clock } from '../../application/ports/clock.js';
import type { ProjectStoreFactory } from '../../application/ports/project-store.js';
import type { OperationRegistry } from '../../application/registry.js';
import { DomainError } from '../../domain/errors.js';
import { KnownProjects, projectIdOf } from './known-projects.js';
import { readJsonBody } from './request-body.js';
import type { ShutdownHooks } from './shutdown-hooks.js';
import type { RevisionEvent, SseHub } from './sse-hub.js';

export interface ProjectRoutesOptions {
  dispatcher: OperationDispatcher;
  registry: OperationRegistry;
  stores: ProjectStoreFactory;
  clock: Clock;
  hub: SseHub;
  shutdown: ShutdownHooks;
  maxBodyBytes: number;
  /** The projects the server holds, shared with the transfer routes. */
  projects: KnownProjects;
}

/**
 * The /v1/projects routes (docs/http-api.md): every operation a linked checkout runs, as
 * `POST /v1/projects/:project/ops/:operation` with `{args, agent}`, answering the JSON the same
 * operation prints locally; and the board's reads (catalog, snapshot, node, activity, events).
 * Only `init` creates a project; every other route on an absent one is PROJECT_NOT_FOUND.
 */
export function projectRoutes(options: ProjectRoutesOptions): Router {
  const router = new Router();
  const known = options.projects;

  // For operators and leak tests: live streams, and what the process holds open.
  router.get('/v1/server/status', (ctx) => {
    ctx.body = { subscribers: options.hub.size, active_resources: process.getActiveResourcesInfo().length, uptime_ms: Math.round(process.uptime() * 1000) };
  });

  router.get('/v1/projects', async (ctx) => {
    ctx.body = await catalog(options.stores, options.clock);
  });

  router.post('/v1/projects/:project/ops/:operation', async (ctx) => {
    const project = projectIdOf(ctx.params.project);
    const operation = options.registry.get(ctx.params.operation!);
    // A local-only operation is refused before its body is read; `init --force` once it is.
    if (!servedRemotely(operation)) throw notOffered(operation.name);
    const { args, agent } = requestOf(await readJsonBody(ctx, options.maxBodyBytes));
    const refused = refusedRemotely(operation, args);
    if (refused !== null) throw notOffered(refused);
    if (operation.name !== 'init') await known.require(project);
    const result = await options.dispatcher.dispatch({ project, operation: operation.name, args, agent });
    if (operation.name === 'init') known.add(project);
    // Group commits announce their own revisions; a whole-project change is announced here.
    if (operation.scope === 'project' && (operation.mutates || operation.name === 'init')) await announce(options, project);
    ctx.body = operation.name === 'init' ? withoutServerPaths(result) : result;
  });

  router.get('/v1/projects/:project/ui/snapshot', async (ctx) => {
    const project = projectIdOf(ctx.params.project);
    await known.require(project);
    const answer = await options.stores.open(project).readGraph((graph) => {
      const etag = snapshotEtag(graph);
      return ctx.get('if-none-match') === etag ? { etag, body: null } : { etag, body: boardSnapshot(project, graph, options.clock.now()) };
    });
    ctx.set('ETag', answer.etag);
    ctx.set('Cache-Control', 'no-cache');
    if (answer.body === null) ctx.status = 304;
    else ctx.body = answer.body;
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

function notOffered(operation: string): DomainError {
  return new DomainError('REMOTE_UNSUPPORTED_OPERATION', `${operation} is not offered by a server: run it in a local checkout`, { operation });
}

/** The body of an operation request: `{args: {...}, agent: "alice" | null}`. */
function requestOf(body: unknown): { args: Record<string, unknown>; agent: string | null } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError('INVALID_ARGUMENT', 'The body is a JSON object {"args": {...}, "agent": "..."}', {});
  }
  const { args = {}, agent = null, ...rest } = body as Record<string, unknown>;
  const stray = Object.keys(rest)[0];
  if (stray !== undefined) throw new DomainError('INVALID_ARGUMENT', `The body takes args and agent, not ${stray}`, { field: stray });
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new DomainError('INVALID_ARGUMENT', 'args must be a JSON object', { field: 'args' });
  if (agent !== null && (typeof agent !== 'string' || agent.trim() === '')) throw new DomainError('INVALID_ARGUMENT', 'agent must be an agent name or null', { field: 'agent' });
  return { args: args as Record<string, unknown>, agent: agent as string | null };
}

function numberParam(ctx: Context, name: string): number | undefined {
  const value = ctx.query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new DomainError('INVALID_ARGUMENT', `${name} takes a whole number`, { field: name, value });
  return Number(value);
}

/** Where a state lives is the server's business: a client's `init` result names no server path. */
function withoutServerPaths(result: unknown): unknown {
  const { state_dir: _stateDir, ...rest } = result as Record<string, unknown>;
  return rest;
}

async function revisionOf(stores: ProjectStoreFactory, project: string): Promise<RevisionEvent> {
  return stores.open(project).readGraph((graph) => ({ revision: graph.revision, fence_generation: graph.fence_generation }));
}

async function announce(options: ProjectRoutesOptions, project: string): Promise<void> {
  options.hub.publish(project, await revisionOf(options.stores, project));
}
