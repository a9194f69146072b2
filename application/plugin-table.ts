import { DomainError } from '../domain/errors.js';
import type { AgentName } from '../domain/model.js';
import { withPluginChange, type PluginChange, type PluginTable } from '../domain/plugins.js';
import { installedPluginSchema } from './contract/results.js';
import { array, integer, object, lazily } from './contract/schema.js';
import { requireCheckoutProject } from './dispatcher.js';
import type { HostServices } from './operation.js';

export const pluginChangeResult = lazily(() => object({
  plugin: installedPluginSchema(),
  revision: integer('The state revision after the change'),
}));

export const pluginListResult = lazily(() => object({
  plugins: array(installedPluginSchema(), 'Installed plugins, by name: the order they are asked in'),
  supported_api_versions: array(integer(), 'The plugin API versions this taskdag implements'),
}));

/** The project of the checkout a plugin command runs in. */
export function checkoutProject(services: HostServices, command: string): string {
  return requireCheckoutProject(services.project, `run ${command} in a project's checkout`);
}

/**
 * Changes the project's plugin table under its exclusive lock, as one commit with the state: a
 * new revision and a log entry naming the plugin (docs/plugins.md). Plugin commands are not
 * themselves put to the plugins, so a broken plugin can always be removed.
 */
export async function changePlugins<T>(
  services: HostServices,
  command: string,
  agent: AgentName,
  change: (table: PluginTable) => { table: PluginTable; op: PluginChange['op']; plugin: string; result: (revision: number) => T },
): Promise<T> {
  const store = services.stores.open(checkoutProject(services, command));
  return store.rewrite((current) => {
    if (current.kind === 'absent') {
      throw new DomainError('STORAGE_ERROR', `Project ${store.projectId} has no state: run taskdag init`, { cause: 'ENOENT', project_id: store.projectId });
    }
    if (current.kind === 'unreadable') throw current.error;
    const { table, op, plugin, result } = change(current.plugins ?? {});
    const state = withPluginChange(current.state, { op, plugin, at: services.clock.now(), by: agent });
    return { result: result(state.revision), state, plugins: table };
  });
}
