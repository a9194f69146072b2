import type { ServerConfig } from '../server/server-config.js';
import type { CredentialStore } from './auth-store.js';
import type { PasswordHasher } from './credentials.js';

/** The credential store of a server setup, opened by the operator's `server credential` commands. */
export interface OpenedCredentials {
  store: CredentialStore;
  /** The server's own KDF, so a credential's secret is verified as the server verifies it. */
  hasher: PasswordHasher;
  close(): Promise<void>;
}

export interface CredentialAdmin {
  /** The store `config` selects: files in its state home, or its PostgreSQL database (migrated first, as `server run` would). */
  open(config: ServerConfig, databaseUrl: string | undefined): Promise<OpenedCredentials>;
}
