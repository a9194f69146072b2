import type { AgentName, State } from '../../domain/model.js';
import type { TransferredPluginTable } from '../../domain/plugins.js';
import type { OperationDispatcher } from '../operation-request.js';

export interface LoginAnswer {
  bearer: string;
  expires_at: string | null;
}

/** What a transfer asks of the server's copy: replace it whole if it is still at `expected_revision`. */
export interface TransferUpload {
  state: State;
  /** The project's plugins by name and their data, replaced with the state (spec 4.5 rule 4); the server runs its own modules. */
  plugins: TransferredPluginTable;
  /** The server revision of the last confirmed transfer; null without one (the server must be pristine). */
  expected_revision: number | null;
  force: boolean;
  agent: AgentName;
}

/** A project's complete state as a transfer carries it: the graph with its log, and its plugins by name. */
export interface TransferredState {
  state: State;
  plugins: TransferredPluginTable;
}

export interface TransferAnswer {
  /** The server's revision after the transfer. */
  revision: number;
  replaced_revision: number;
}

/** One taskdag server, as a client sees it (docs/remote.md). */
export interface RemoteServer extends OperationDispatcher {
  login(password: string): Promise<LoginAnswer>;
  /** The project's whole state and plugin table; PROJECT_NOT_FOUND when the server holds none (nothing is provisioned). */
  download(project: string): Promise<TransferredState>;
  upload(project: string, upload: TransferUpload): Promise<TransferAnswer>;
  close(): void;
}

export interface RemoteConnector {
  /**
   * `checkout`: the root of the linked checkout the requests come from; the server lists it
   * (with this machine's name) under the project in its board's catalog. Null for none (login).
   */
  connect(origin: string, bearer: string | null, checkout?: string | null): RemoteServer;
}
