import type { Operation } from '../../application/operation.js';
import { OPERATIONS } from '../../application/operations/index.js';
import type { CheckoutLocator } from '../../application/ports/checkout.js';
import { OperationRegistry } from '../../application/registry.js';
import type { ClientPorts } from '../../application/remote/client-ports.js';
import { FsSessionProfile } from '../../adapters/fs-session-profile.js';
import { FsTransferBaselines } from '../../adapters/fs-transfer-baselines.js';
import { KernelRandomIdSource } from '../../adapters/kernel-random-id-source.js';
import { HttpRemoteConnector } from '../../adapters/remote/http-remote-connector.js';
import { FileOwnerRoutes, trustedOwnerOrigins } from '../../adapters/remote/owner-routes.js';
import { TerminalPasswordPrompt } from '../../adapters/terminal-password-prompt.js';
import { remoteLimits } from './remote-limits.js';

/**
 * What a checkout's remote commands (link, login, logout, push, pull) and a linked checkout's
 * requests reach on this machine, made on first use (a local request never needs them): the
 * session profile and transfer baselines under `home`, the HTTP connector (holding every answer
 * to the result the operation declares), and the password prompt at the controlling terminal.
 */
export function clientPortsOnFirstUse(home: string, checkouts: CheckoutLocator, env: Record<string, string | undefined>): () => ClientPorts {
  return clientPortsOf(OPERATIONS, home, checkouts, env);
}

/**
 * The same for a program that sends only `operations` to a server (the command line's graph
 * reads): the connector holds their answers to their results.
 */
export function clientPortsOf(operations: readonly Operation[], home: string, checkouts: CheckoutLocator, env: Record<string, string | undefined>): () => ClientPorts {
  let ports: ClientPorts | null = null;
  return () => {
    if (ports) return ports;
    // Opt-in: with no trusted owner listed, every request goes to the linked origin.
    const trusted = trustedOwnerOrigins(env);
    const owners = trusted.size > 0 ? new FileOwnerRoutes(home, trusted) : undefined;
    return (ports = {
      checkouts,
      sessions: new FsSessionProfile(home),
      prompt: new TerminalPasswordPrompt(),
      remote: new HttpRemoteConnector(remoteLimits(env), new OperationRegistry(operations), owners),
      baselines: new FsTransferBaselines(home),
      ids: new KernelRandomIdSource(),
    });
  };
}
