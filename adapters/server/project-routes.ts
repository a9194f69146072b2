import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isOwnedElsewhere, type ProjectOwners } from '../../application/ports/project-owners.js';
import { FORWARDED_HEADER, ownerMovedError, type OwnerAnswer, type OwnerForwarding, type OwnerStream } from './owner-forwarding.js';
import { apiRouter } from './api-router.js';
import { refusedRemotely, servedRemotely } from '../../application/remote-offer.js';
import type { Operation, OperationDispatcher } from '../../application/operation.js';
import type { OperationRegistry } from '../../application/registry.js';
import { actingAgents } from '../../application/server/acting-agents.js';
import type { Principal } from '../../application/server/auth-service.js';
import { requireAllowedAgents } from '../../domain/agent-binding.js';
import { DomainError } from '../../domain/errors.js';
import { revisionOf, type BoardRoutesOptions } from './board-routes.js';
import { projectIdOf } from './known-projects.js';
import { parseJsonBody, readBodyText, strayKeyError } from './request-body.js';
import { OWNER_HEADER, REQUEST_ID_HEADER } from '../protocol.js';
import { requestKeyOf } from './request-key.js';
import { noteCheckout, type CheckoutNotes } from './checkout-header.js';

/** `projects`, the projects the server holds, is shared with the board and transfer routes. */
export interface ProjectRoutesOptions extends BoardRoutesOptions {
  dispatcher: OperationDispatcher;
  registry: OperationRegistry;
  maxBodyBytes: number;
  /** Where the checkouts a request names are noted. */
  notes?: CheckoutNotes;
  /** With PostgreSQL (docs/scaling.md, "Failover"): who owns each project, and how a mutation reaches its owner. Absent: this process writes every project. */
  ownership?: { owners: ProjectOwners; forwarding: OwnerForwarding };
}

/**
 * The /v1/projects operations (docs/http-api.md): every operation a linked checkout runs, as
 * `POST /v1/projects/:project/ops/:operation` with `{args, agent}`, answering the JSON the same
 * operation prints locally (the board's reads are board-routes.ts). Only `init` creates a
 * project; every other route on an absent one is PROJECT_NOT_FOUND.
 */
export function projectRoutes(options: ProjectRoutesOptions): Router {
  const router = apiRouter();
  const known = options.projects;

  // For operators and leak tests: live streams, and what the process holds open.
  router.get('/v1/server/status', (ctx) => {
    ctx.body = { subscribers: options.hub.size, active_resources: process.getActiveResourcesInfo().length, uptime_ms: Math.round(process.uptime() * 1000) };
  });

  router.post('/v1/projects/:project/ops/:operation', async (ctx) => {
    const project = projectIdOf(ctx.params.project);
    const operation = options.registry.get(ctx.params.operation!);
    // A local-only operation is refused before its body is read; `init --force` once it is.
    if (!servedRemotely(operation)) throw notOffered(operation.name);
    const text = await readBodyText(ctx, options.maxBodyBytes);
    const forwarded = ctx.get(FORWARDED_HEADER) !== '';
    // A forward makes its own when it starts (forwardSignal): most requests on PostgreSQL are served here.
    const gone = cutWhenClientGoes(operation) ? clientGone(ctx) : undefined;
    const ownership = options.ownership;
    // A request of a project another process is known to own goes there as it came, its body
    // unread: the owner checks and serves all of it, so this process does not do it all first,
    // nor keep its own copy of the project current by replaying the owner's commits for reads.
    const owner = ownership && !forwarded && relayable(operation) ? ownership.owners.elsewhere(project) : undefined;
    if (ownership && owner !== undefined && !operation.mutates) {
      const answer = await ownership.forwarding.relayRead({ project, path: ctx.path, body: text, authorization: ctx.get('Authorization'), signal: clientGone(ctx) }, owner);
      if (answer !== null) return relayed(ctx, options, project, answer);
    }
    let result: unknown;
    if (ownership && owner !== undefined && operation.mutates) {
      const requestId = ctx.get(REQUEST_ID_HEADER) || `forwarded-${randomUUID()}`;
      const request = { project, path: ctx.path, body: text, authorization: ctx.get('Authorization'), requestId, signal: gone ?? clientGone(ctx) };
      // Taken over meanwhile (the owner gone): served here, checked as any request.
      const outcome = await ownership.forwarding.forward(request, owner, async () => (await checked(ctx, options, project, operation, text, forwarded)).dispatch(requestId, gone));
      if ('answer' in outcome) return relayed(ctx, options, project, outcome.answer);
      result = outcome.served;
    } else {
      const request = await checked(ctx, options, project, operation, text, forwarded);
      try {
        result = await request.dispatch(ctx.get(REQUEST_ID_HEADER) || undefined, gone);
      } catch (error) {
        if (!isOwnedElsewhere(error) || !ownership) throw error;
        if (forwarded) throw ownerMovedError(project);
        // An id of its own when the client sent none, so a try after the owner died applies once.
        const requestId = ctx.get(REQUEST_ID_HEADER) || `forwarded-${randomUUID()}`;
        // The owner may hold a call that waits for work (`next --wait`) that long before it answers.
        const waitMs = operation.scope === 'graph' ? (operation.waiting?.ms(operation.parse(request.args)) ?? 0) : 0;
        const body = JSON.stringify({ args: request.args, agent: request.agent });
        const outcome = await ownership.forwarding.forward({ project, path: ctx.path, body, authorization: ctx.get('Authorization'), requestId, waitMs, signal: gone ?? clientGone(ctx) }, error.owner, () =>
          request.dispatch(requestId, gone),
        );
        if ('answer' in outcome) return relayed(ctx, options, project, outcome.answer);
        result = outcome.served;
      }
    }
    if (operation.name === 'init') known.add(project);
    noteCheckout(ctx, options.notes, project);
    // Where the client may send the project's next requests so that none is forwarded.
    const knownOwner = ownership?.owners.knownOwner(project);
    if (knownOwner !== undefined) ctx.set(OWNER_HEADER, knownOwner);
    // Group commits announce their own revisions; a whole-project change is announced here.
    if (operation.scope === 'project' && (operation.mutates || operation.name === 'init')) await announce(options, project);
    ctx.body = operation.name === 'init' ? withoutServerPaths(result) : result;
  });

  return router;
}

/**
 * Whether a request carries, from its start, a signal cut when its client goes away before its
 * answer (its process killed, say): a call that waits for work (`next --wait`), which would
 * otherwise claim for nobody. A request forwarded to its project's owner gets one when the forward
 * starts (a client gone by then is found gone). Any other call answers by itself soon enough, and
 * the signal each would carry (an AbortController and a listener on the response) cost a busy
 * server about 6 µs a mutation on files, and about 40 µs a mutation on PostgreSQL, where every
 * request made one in case it was forwarded (issue 25 item 3).
 */
export function cutWhenClientGoes(operation: Operation): boolean {
  return operation.scope === 'graph' && operation.waiting !== undefined;
}

/**
 * A signal aborted when the response closes before it was written: the client has gone. Made
 * when a request is forwarded, after it may have been tried here: a client already gone by then
 * gets a signal aborted already.
 */
function clientGone(ctx: Context): AbortSignal {
  if (ctx.res.closed || ctx.req.socket.destroyed) return AbortSignal.abort();
  const gone = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** A request parsed and checked here, ready to run: `dispatch` with the request id it carries (none: a read, or a client that sent none). */
interface CheckedRequest {
  args: Record<string, unknown>;
  agent: string | null;
  dispatch(requestId: string | undefined, signal: AbortSignal | undefined): Promise<unknown>;
}

/** Parses `text` as the operation's body and checks what is checked before anything runs: the operation offered with these args, the agents the bearer may act as, the project there. */
async function checked(ctx: Context, options: ProjectRoutesOptions, project: string, operation: Operation, text: string, forwarded: boolean): Promise<CheckedRequest> {
  const { args, agent } = requestOf(parseJsonBody(text));
  const refused = refusedRemotely(operation, args);
  if (refused !== null) throw notOffered(refused);
  requireAllowedAgents((ctx.state.session as Principal).binding, actingAgents(operation.name, args, agent));
  if (operation.name !== 'init') await options.projects.require(project);
  // The forwarding process judged this one the project's owner: it takes the project if it is free.
  if (forwarded && operation.mutates) await options.ownership?.owners.takeIfFree(project);
  return {
    args,
    agent,
    dispatch: (requestId, signal) => {
      // Reads need no id: running one again changes nothing.
      const key = operation.mutates ? requestKeyOf(requestId, { operation: operation.name, args, agent }) : undefined;
      return options.dispatcher.dispatch({ project, operation: operation.name, args, agent, ...(key ? { key } : {}), ...(signal ? { signal } : {}) });
    },
  };
}

/**
 * Whether a request may be relayed to the project's owner unread: a read or a mutation of a
 * project's graph which waits for nothing (a `next --wait` is forwarded with its wait added to
 * the forward's bounds, which needs its arguments read).
 */
function relayable(operation: Operation): boolean {
  return operation.scope === 'graph' && !operation.waiting;
}

/**
 * The owner's answer, relayed as it is: a read's as it arrives. Koa pipes a stream into the
 * response and destroys the response when the stream fails, so a body cut off at the owner
 * reaches the client cut off too (its connection closed before the declared length or the last
 * chunk): a broken answer its client sees as one, never a shorter JSON that ends as if whole.
 */
function relayed(ctx: Context, options: ProjectRoutesOptions, project: string, answer: OwnerAnswer | OwnerStream): void {
  // The checkouts a client names are noted where it sent its request.
  if (answer.status === 200) noteCheckout(ctx, options.notes, project);
  ctx.status = answer.status;
  ctx.set(answer.headers);
  ctx.type = answer.contentType;
  if ('text' in answer) {
    ctx.body = answer.text;
    return;
  }
  ctx.body = answer.body;
  if (answer.length !== undefined) ctx.length = answer.length;
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
  if (stray !== undefined) throw strayKeyError('args and agent', stray);
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new DomainError('INVALID_ARGUMENT', 'args must be a JSON object', { field: 'args' });
  if (agent !== null && (typeof agent !== 'string' || agent.trim() === '')) throw new DomainError('INVALID_ARGUMENT', 'agent must be an agent name or null', { field: 'agent' });
  return { args: args as Record<string, unknown>, agent: agent as string | null };
}

/** Where a state lives is the server's business: a client's `init` result names no server path. */
function withoutServerPaths(result: unknown): unknown {
  const { state_dir: _stateDir, ...rest } = result as Record<string, unknown>;
  return rest;
}

async function announce(options: ProjectRoutesOptions, project: string): Promise<void> {
  options.hub.publish(project, await revisionOf(options.stores, project));
}
