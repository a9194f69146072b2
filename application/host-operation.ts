import type { AgentName } from '../domain/model.js';
import type { ArgsOf, ArgsSpec } from './args.js';
import type { Declaration } from './declaration.js';
import type { Clock } from './ports/clock.js';
import type { PluginRuntimeSource } from './ports/plugin-runtime.js';
import type { ProjectStoreFactory } from './ports/project-store.js';
import type { ClientPorts } from './remote/client-ports.js';
import type { SystemPorts } from './server/system-ports.js';

/** What host operations reach beyond the storage root: the caller's directory and the machine. */
export interface HostPorts {
  /** Where relative paths given by the caller are resolved from. */
  cwd: string;
  /** The machine's files, secrets, sockets and installation, for the server's setup; made on first use. */
  system(): SystemPorts;
  /** The checkout, session profile, terminal and servers of the remote commands; made on first use. */
  client(): ClientPorts;
}

/** What a host operation receives: the whole storage root, the project in hand if any, the host. */
export interface HostServices extends HostPorts {
  stores: ProjectStoreFactory;
  clock: Clock;
  /** The policy plugins' runtime, made on first use (docs/plugins.md). */
  plugins: PluginRuntimeSource;
  /** The project of the checkout it runs in, when there is one. */
  project: string | null;
}

/** An operation on the host rather than one project (`migrate --all`). */
export interface HostOperation<S extends ArgsSpec = any, R = any> extends Declaration<S, R> {
  readonly scope: 'host';
  /**
   * Whether it runs in a checkout linked to a server: the machine's commands (server ..., link,
   * login, push...) do; one that works on the checkout's local state (migrate) answers
   * REMOTE_UNSUPPORTED_OPERATION there.
   */
  readonly inLinkedCheckout: boolean;
  parse(raw: unknown): ArgsOf<S>;
  run(services: HostServices, args: ArgsOf<S>, agent: AgentName | null): Promise<R>;
}
