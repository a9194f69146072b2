import type { Middleware } from 'koa';
import { isLoopbackHost } from '../../application/remote/loopback-host.js';
import { DomainError } from '../../domain/errors.js';

/**
 * The local board has no bearer, so a web page elsewhere must not reach it through a name that
 * resolves to 127.0.0.1 (DNS rebinding): only requests whose Host names this machine by a name or
 * address no DNS resolves (the rule `link` uses, loopback-host.ts) on the board's own port are
 * answered.
 */
export function loopbackOnly(port: () => number): Middleware {
  return async (ctx, next) => {
    const host = ctx.get('host');
    if (!addressedToLoopback(host, port())) {
      const examples = ['127.0.0.1', 'localhost', '[::1]'].map((name) => `${name}:${port()}`);
      throw new DomainError('INVALID_ARGUMENT', `The local board answers only requests addressed to this machine on its port, such as ${examples.join(', ')}, not ${JSON.stringify(host)}`, {
        host,
        allowed: examples,
      });
    }
    await next();
  };
}

/** A Host header is a name or an address and a port, nothing else: no user, path or fragment to smuggle a name in. */
const HOST_HEADER = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

function addressedToLoopback(host: string, port: number): boolean {
  if (!HOST_HEADER.test(host)) return false;
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return false;
  }
  return isLoopbackHost(url.hostname) && (url.port === '' ? 80 : Number(url.port)) === port;
}
