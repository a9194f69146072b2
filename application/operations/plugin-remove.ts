import { installedPlugin } from '../../domain/plugins.js';
import { nonEmptyText, required } from '../args.js';
import { hostOperation } from '../define.js';
import { requireAgent } from '../dispatcher.js';
import { changePlugins, pluginChangeResult } from '../plugin-table.js';

/** Uninstalls a plugin and drops its data; its module is not loaded, so a broken plugin can always go. */
export const pluginRemove = hostOperation({
  name: 'plugin remove',
  summary: 'Uninstall a policy plugin from this project (its data goes with it)',
  details: 'The module is not loaded: a plugin whose module is missing or broken can always be removed. A name that is not installed is INVALID_ARGUMENT.',
  examples: [['Stop limiting work in progress', '$0 plugin remove wip-limit --as alice']],
  mutates: true,
  inLinkedCheckout: false,
  args: () => ({ name: required(nonEmptyText(), 'The name of the installed plugin (see plugin list)', { positional: true }) }),
  result: () => pluginChangeResult(),
  run: async (services, args, agent) => {
    const by = requireAgent('plugin remove', agent);
    return changePlugins(services, 'plugin remove', by, (table) => {
      const plugin = installedPlugin(table, args.name);
      const { [plugin.name]: _removed, ...rest } = table;
      return { table: rest, op: 'plugin.remove', plugin: plugin.name, result: (revision) => ({ plugin, revision }) };
    });
  },
});
