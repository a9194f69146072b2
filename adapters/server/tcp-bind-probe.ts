import net from 'node:net';
import type { BindProbe } from '../../application/ports/bind-probe.js';

/** Opens the address and closes it at once; never accepts a connection. */
export class TcpBindProbe implements BindProbe {
  probe(host: string, port: number): Promise<string | null> {
    return new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
    });
  }
}
