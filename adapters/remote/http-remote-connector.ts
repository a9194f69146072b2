import type { RemoteConnector, RemoteServer } from '../../application/ports/remote-server.js';
import { HttpRemoteDispatcher } from './http-remote-dispatcher.js';

/** Connects to servers over HTTP(S) with one request deadline (docs/remote.md). */
export class HttpRemoteConnector implements RemoteConnector {
  constructor(private readonly timeoutMs: number) {}

  connect(origin: string, bearer: string | null): RemoteServer {
    return new HttpRemoteDispatcher({ origin, bearer, timeoutMs: this.timeoutMs });
  }
}
