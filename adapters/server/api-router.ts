import Router from '@koa/router';

/**
 * A router for API routes that matches only the spelling the routes are written in: case and a
 * trailing slash count, as they do for the protocol check and the board, which read the same path
 * (canonical-path.ts). A default @koa/router would take `/V1/...` for `/v1/...`.
 */
export function apiRouter(): Router {
  return new Router({ sensitive: true, strict: true });
}
