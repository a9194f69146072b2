import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a server, that can lose an answer the way a network does:
 * the request is forwarded whole, the server commits and starts answering, and the proxy then cuts
 * the client's connection instead of passing the answer on. Until told, it forwards everything.
 */
export interface AnswerLosingProxy {
  origin: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Answers lost so far. */
  readonly lost: number;
  /**
   * Loses the answer on the next connection that gets one; `afterLoss`, when given, runs right
   * after, and connections accepted meanwhile wait for it before they are forwarded (a server
   * restarted between a commit and the client's retry).
   */
  loseNextAnswer(afterLoss?: () => Promise<void>): void;
  close(): Promise<void>;
}

export async function startAnswerLosingProxy(targetPort: number): Promise<AnswerLosingProxy> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  let lost = 0;
  let armed: { afterLoss?: () => Promise<void> } | null = null;
  let held: Promise<void> = Promise.resolve();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = net.createServer((client) => {
    connections += 1;
    track(client);
    client.pause();
    void held.then(() => {
      const upstream = net.connect(targetPort, '127.0.0.1');
      track(upstream);
      client.pipe(upstream);
      client.resume();
      upstream.on('data', (chunk) => {
        if (!armed) return void client.write(chunk);
        // The server answered, so the request was committed: the client never hears of it.
        const { afterLoss } = armed;
        armed = null;
        lost += 1;
        client.destroy();
        upstream.destroy();
        if (afterLoss) held = afterLoss();
      });
      upstream.on('end', () => client.end());
      // A server that is not there (or went away) cuts the client off, as a reset connection does.
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    get connections() {
      return connections;
    },
    get lost() {
      return lost;
    },
    loseNextAnswer(afterLoss) {
      armed = afterLoss ? { afterLoss } : {};
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
