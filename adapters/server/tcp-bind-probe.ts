import type { BindProbe } from '../../application/ports/bind-probe.js';

/**
 * Opens the address and closes it at once; never accepts a connection. node:net is loaded on
 * first use: the CLI bundle carries this adapter for `server doctor`, and loading node:net up
 * front would cost every other command several milliseconds.
 */
export class TcpBindProbe implements BindProbe {
  probe(host: string, port: number): Promise<string | null> {
    const net = require('node:net') as typeof import('node:net');
    return new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
    });
  }
}
