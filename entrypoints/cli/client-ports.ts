import type { ClientPorts } from '../../application/remote/client-ports.js';
import { FsCheckoutLocator } from '../../adapters/fs-checkout-locator.js';
import { FsSessionProfile } from '../../adapters/fs-session-profile.js';
import { FsTransferBaselines } from '../../adapters/fs-transfer-baselines.js';
import { KernelRandomIdSource } from '../../adapters/kernel-random-id-source.js';
import { HttpRemoteConnector } from '../../adapters/remote/http-remote-connector.js';
import { TerminalPasswordPrompt } from '../../adapters/terminal-password-prompt.js';
import { remoteTimeoutMs } from './remote-timeout.js';

/** The composition root of the remote commands of a checkout (link, login, logout, push, pull). */
export function clientPorts(home: string, checkouts: FsCheckoutLocator, env: Record<string, string | undefined>): ClientPorts {
  return {
    checkouts,
    sessions: new FsSessionProfile(home),
    prompt: new TerminalPasswordPrompt(),
    remote: new HttpRemoteConnector(remoteTimeoutMs(env)),
    baselines: new FsTransferBaselines(home),
    ids: new KernelRandomIdSource(),
  };
}
