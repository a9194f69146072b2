import Router from '@koa/router';
import Koa from 'koa';
import type { AuthService } from '../../application/server/auth-service.js';
import { loginRoutes, requireBearer, sessionRoutes } from './auth-routes.js';
import { canonicalPaths, isApiPath } from './canonical-path.js';
import { errorEnvelope } from './error-envelope.js';
import { wellFormedAnswers } from './well-formed-answers.js';
import type { PathRedactor } from './path-redactor.js';
import { requireProtocolVersion } from './protocol-version.js';
import type { ShutdownHooks } from './shutdown-hooks.js';

/** What a router mounted on the server gets to work with. */
export interface RouteContext {
  /** Null for the local board (`taskdag ui`): loopback only, no login and no bearer (spec 5.1). */
  auth: AuthService | null;
  maxBodyBytes: number;
  shutdown: ShutdownHooks;
}

export interface HttpAppOptions extends RouteContext {
  redactor: PathRedactor;
  log: (line: string) => void;
  /**
   * Routes that need a bearer, mounted behind the protocol check and the bearer check (the next
   * routes: /v1/projects and its live events). Each router's paths are absolute (`/v1/...`).
   */
  authenticated?: (context: RouteContext) => Router[];
  /** Runs first after the error envelope, on every request (the local board's loopback guard). */
  admit?: Koa.Middleware;
  /** Answers what no route did: the built web board (GET and HEAD outside /v1). */
  board?: Koa.Middleware;
}

/**
 * The server's koa app: every JSON answer well-formed (well-formed-answers.ts), then one error
 * middleware (every failure is the CLI's envelope), the
 * refusal of any other spelling of an API path, the protocol check on /v1, the login route, then every authenticated route behind the bearer check;
 * without `auth` (the local board), the routes with neither.
 */
export function buildHttpApp(options: HttpAppOptions): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true;
  app.use(wellFormedAnswers);
  app.use(errorEnvelope(options.redactor, options.log));
  if (options.admit) app.use(options.admit);
  // From here on, an API path has one spelling, so every rule below reads the same path.
  app.use(canonicalPaths);
  app.use(async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    await (isApiPath(ctx.path) ? requireProtocolVersion(ctx, next) : next());
  });
  const routers = options.authenticated?.(options) ?? [];
  if (options.auth) {
    app.use(loginRoutes(options.auth, options.maxBodyBytes).routes());
    routers.unshift(sessionRoutes());
    const bearer = requireBearer(options.auth);
    app.use(async (ctx, next) => {
      // Only a request some guarded route matches needs a bearer; anything else falls through to 404.
      const matched = routers.some((router) => router.match(ctx.path, ctx.method).route);
      await (matched ? bearer(ctx, next) : next());
    });
  }
  for (const router of routers) app.use(router.routes());
  if (options.board) app.use(options.board);
  return app;
}
