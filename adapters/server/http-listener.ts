import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { DomainError } from '../../domain/errors.js';
import type { ServerSettings } from '../../application/server/server-settings.js';
import type { ShutdownHooks } from './shutdown-hooks.js';

export interface Listening {
  host: string;
  port: number;
  /**
   * Graceful stop: stop accepting, end live streams, let in-flight requests finish within
   * `drainMs`, then cut whatever is left. Resolves once the listener is closed.
   */
  stop(drainMs: number): Promise<{ drained: boolean }>;
  /** Cuts every connection now (a second signal during a drain). */
  abort(): void;
}

/**
 * Binds the app with bounds on slow clients: headers must arrive within headersTimeout and a
 * whole request within requestTimeout (Node answers 408 and closes), checked every few hundred
 * milliseconds; idle keep-alive connections close after 5 s.
 */
export function listen(app: Koa, address: { host: string; port: number }, settings: ServerSettings, shutdown: ShutdownHooks): Promise<Listening> {
  const server = http.createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: Math.min(1_000, Math.max(100, Math.floor(settings.headersTimeoutMs / 4))),
    },
    app.callback(),
  );
  let inFlight = 0;
  let idle: (() => void) | null = null;
  server.on('request', (_request, response: http.ServerResponse) => {
    inFlight += 1;
    if (shutdown.stopping) response.setHeader('Connection', 'close');
    response.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) idle?.();
    });
  });

  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new DomainError('SERVER_BIND_FAILED', `Cannot listen on ${address.host}:${address.port}: ${error.code ?? error.message}`, {
          host: address.host,
          port: address.port,
          cause: error.code ?? 'EUNKNOWN',
        }),
      );
    });
    server.listen({ host: address.host, port: address.port, exclusive: true }, () => {
      const bound = server.address() as AddressInfo;
      const closed = new Promise<void>((done) => server.once('close', () => done()));
      resolve({
        host: address.host,
        port: bound.port,
        abort: () => server.closeAllConnections(),
        stop: async (drainMs) => {
          server.close();
          shutdown.run();
          server.closeIdleConnections();
          const drained = inFlight === 0 || (await new Promise<boolean>((done) => {
            const timer = setTimeout(() => done(false), drainMs);
            idle = () => {
              clearTimeout(timer);
              done(true);
            };
          }));
          server.closeAllConnections();
          await closed;
          return { drained };
        },
      });
    });
  });
}
