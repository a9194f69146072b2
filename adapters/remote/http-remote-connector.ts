import type { RemoteConnector, RemoteServer } from '../../application/ports/remote-server.js';
import type { OperationRegistry } from '../../application/registry.js';
import { HttpRemoteDispatcher } from './http-remote-dispatcher.js';
import type { OwnerRoutes } from './owner-routes.js';

export interface RemoteLimits {
  timeoutMs: number;
  maxAnswerBytes: number;
  retries: number;
}

/**
 * Connects to servers over HTTP(S) with one request deadline, one answer cap and one retry count, holding every
 * answer to the result schema `operations` declare (docs/remote.md).
 */
export class HttpRemoteConnector implements RemoteConnector {
  constructor(
    private readonly limits: RemoteLimits,
    private readonly operations: Pick<OperationRegistry, 'get'>,
    /** Where a project's requests go when its server names a trusted owner; absent, always the linked origin. */
    private readonly owners?: OwnerRoutes,
  ) {}

  connect(origin: string, bearer: string | null, checkout: string | null = null): RemoteServer {
    // node:os is loaded on a linked command's first connection, not at every command's start-up.
    const label = checkout === null ? null : `${(require('node:os') as typeof import('node:os')).hostname()}:${checkout}`;
    return new HttpRemoteDispatcher({ origin, bearer, checkout: label, operations: this.operations, ...this.limits, ...(this.owners ? { owners: this.owners } : {}) });
  }
}
