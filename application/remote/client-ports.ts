import type { CheckoutLocator } from '../ports/checkout.js';
import type { IdSource } from '../ports/id-source.js';
import type { PasswordPrompt } from '../ports/password-prompt.js';
import type { RemoteConnector } from '../ports/remote-server.js';
import type { SessionProfile } from '../ports/session-profile.js';
import type { TransferBaselines } from '../ports/transfer-baselines.js';

/** What the remote commands of a checkout (link, login, logout, push, pull) reach on this machine. */
export interface ClientPorts {
  checkouts: CheckoutLocator;
  sessions: SessionProfile;
  prompt: PasswordPrompt;
  remote: RemoteConnector;
  baselines: TransferBaselines;
  ids: IdSource;
}
