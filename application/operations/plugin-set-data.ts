import { installedPlugin, parsePluginData } from '../../domain/plugins.js';
import { nonEmptyText, required } from '../args.js';
import { hostOperation } from '../define.js';
import { requireAgent } from '../dispatcher.js';
import { changePlugins, pluginChangeResult } from '../plugin-table.js';

/** Replaces a plugin's JSON data, once the plugin accepts it. */
export const pluginSetData = hostOperation({
  name: 'plugin set-data',
  summary: "Replace an installed plugin's JSON data (the plugin checks it first)",
  details: 'Data that is not JSON, or that the plugin rejects, is PLUGIN_DATA_INVALID and changes nothing.',
  examples: [['Allow three tasks in progress per agent', '$0 plugin set-data wip-limit --data \'{"limit":3}\' --as alice']],
  mutates: true,
  inLinkedCheckout: false,
  args: () => ({
    name: required(nonEmptyText(), 'The name of the installed plugin (see plugin list)', { positional: true }),
    data: required(nonEmptyText(), 'The new JSON data', { placeholder: 'json' }),
  }),
  result: () => pluginChangeResult(),
  run: async (services, args, agent) => {
    const by = requireAgent('plugin set-data', agent);
    return changePlugins(services, 'plugin set-data', by, (table) => {
      const plugin = { ...installedPlugin(table, args.name), data: parsePluginData(args.name, args.data) };
      services.plugins().checkData(plugin, plugin.data);
      return { table: { ...table, [plugin.name]: plugin }, op: 'plugin.set-data', plugin: plugin.name, result: (revision) => ({ plugin, revision }) };
    });
  },
});
