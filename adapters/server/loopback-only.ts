import type { Middleware } from 'koa';
import { DomainError } from '../../domain/errors.js';

/**
 * The local board has no bearer, so a web page elsewhere must not reach it through a name that
 * resolves to 127.0.0.1 (DNS rebinding): only requests addressed to 127.0.0.1, localhost or
 * [::1] on the board's own port are answered.
 */
export function loopbackOnly(port: () => number): Middleware {
  return async (ctx, next) => {
    const allowed = ['127.0.0.1', 'localhost', '[::1]'].map((host) => `${host}:${port()}`);
    const host = ctx.get('host').toLowerCase();
    if (!allowed.includes(host)) {
      throw new DomainError('INVALID_ARGUMENT', `The local board answers only requests addressed to ${allowed.join(', ')}, not ${JSON.stringify(host)}`, { host, allowed });
    }
    await next();
  };
}
