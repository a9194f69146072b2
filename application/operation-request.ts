import type { AgentName } from '../domain/model.js';
import type { RequestKey } from '../domain/request-window.js';

/** One request, whoever makes it: the CLI, a batch, an HTTP route, the MCP server, the library. */
export interface OperationRequest {
  /** The project it is about; null only for host operations run outside any project. */
  project: string | null;
  operation: string;
  args: Record<string, unknown>;
  agent: AgentName | null;
  /**
   * The id its client gave a remote mutation, with its fingerprint (the server's routes): a retry
   * of a committed request gets the first answer and applies nothing again (docs/remote.md).
   */
  key?: RequestKey;
  /**
   * Aborted when the caller has gone (an HTTP client whose connection closed before its answer):
   * a call waiting for work (`next --wait`) stops waiting and claims nothing more.
   */
  signal?: AbortSignal;
  /**
   * The caller prints the answer as JSON at once (the command line): a read may hand back its
   * answer as JsonText (domain/json-text.ts), written from saved bytes without making objects.
   */
  printed?: boolean;
}

/** The one port every driver runs operations through: local files, a server's store, or a remote server. */
export interface OperationDispatcher {
  dispatch(request: OperationRequest): Promise<unknown>;
}
