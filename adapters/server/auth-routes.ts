import type Router from '@koa/router';
import { apiRouter } from './api-router.js';
import type { Middleware } from 'koa';
import type { AuthService, Principal } from '../../application/server/auth-service.js';
import { readJsonBody } from './request-body.js';

/** `Authorization: Bearer <token>` checked before any route it guards; the session lands in ctx.state. */
export function requireBearer(auth: AuthService): Middleware {
  return async (ctx, next) => {
    ctx.state.session = await auth.authenticate(ctx.get('authorization'));
    await next();
  };
}

/**
 * A login body holds one password of at most 1,024 characters: anything past this is refused
 * before it is read, whatever the server's body cap, so the one route open without a bearer
 * cannot be made to buffer megabytes.
 */
export const LOGIN_MAX_BODY_BYTES = 4096;

/**
 * `POST /v1/auth/login` (spec 5.4): body `{"password": "..."}`, answer `{bearer, expires_at}`.
 * The client address is what the throttle counts failures against.
 */
export function loginRoutes(auth: AuthService, maxBodyBytes: number): Router {
  const router = apiRouter();
  router.post('/v1/auth/login', async (ctx) => {
    const body = (maxBodyBytes < LOGIN_MAX_BODY_BYTES
      ? await readJsonBody(ctx, maxBodyBytes)
      : await readJsonBody(ctx, LOGIN_MAX_BODY_BYTES, 'the login body cap')) as { password?: unknown } | null;
    const password = typeof body === 'object' && body !== null ? body.password : undefined;
    ctx.body = await auth.login(password, ctx.request.socket.remoteAddress ?? 'unknown');
    ctx.set('Cache-Control', 'no-store');
  });
  return router;
}

/** `GET /v1/auth/session`: whether a bearer is still good, until when, and as whom it may act (no secret in the answer). */
export function sessionRoutes(): Router {
  const router = apiRouter();
  router.get('/v1/auth/session', (ctx) => {
    const { created_at, expires_at, binding } = ctx.state.session as Principal;
    ctx.body = { authenticated: true, created_at, expires_at, agents: binding.kind === 'any' ? null : binding.agents };
  });
  return router;
}
