import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import send from 'koa-send';
import { isApiPath } from './canonical-path.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The built web board (spec 4.8): GET and HEAD outside /v1 are files of the UI root, with the
 * single-page fallback to index.html for any other path (a deep link); `/assets/*` (hashed
 * names) are immutable, index.html is revalidated every time. Without a build, 503 with a hint;
 * the API is never affected and /v1 never answers HTML.
 */
export function boardFiles(uiRoot: string): Middleware {
  const root = path.resolve(uiRoot);
  return async (ctx, next) => {
    if (isApiPath(ctx.path) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    if (!existsSync(path.join(root, 'index.html'))) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The taskdag board is not built on this server: build it (npm run build:ui) into the UI root set by `server init --ui-root`, or run `taskdag server doctor`. The API under /v1 works.\n';
      return;
    }
    const asset = ctx.path.startsWith('/assets/');
    const setHeaders = (response: { setHeader(name: string, value: string): void }, file: string) =>
      response.setHeader('Cache-Control', asset ? IMMUTABLE : path.basename(file) === 'index.html' ? 'no-cache' : 'public, max-age=300');
    try {
      if (await send(ctx, ctx.path, { root, index: 'index.html', setHeaders })) return;
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
    }
    // A missing asset is a 404; any other path is a view of the board, which index.html routes.
    if (asset) return next();
    await send(ctx, '/index.html', { root, setHeaders });
  };
}
