import { pluginsInOrder, SUPPORTED_PLUGIN_APIS } from '../../domain/plugins.js';
import { hostOperation } from '../define.js';
import { checkoutProject, pluginListResult } from '../plugin-table.js';

/** The project's policy plugins with their data, in the order they are asked; no module is loaded. */
export const pluginList = hostOperation({
  name: 'plugin list',
  summary: "List this project's policy plugins and their data",
  examples: [['See which plugins decide on operations', '$0 plugin list']],
  mutates: false,
  inLinkedCheckout: false,
  args: () => ({}),
  result: () => pluginListResult(),
  run: async (services) => {
    const table = await services.stores.open(checkoutProject(services, 'plugin list')).readGraph((_graph, plugins) => plugins());
    return { plugins: pluginsInOrder(table), supported_api_versions: [...SUPPORTED_PLUGIN_APIS] };
  },
});
