import { DomainError } from '../../domain/errors.js';
import { parsePluginData, type InstalledPlugin } from '../../domain/plugins.js';
import { nonEmptyText, optional, required } from '../args.js';
import { hostOperation } from '../define.js';
import { requireAgent } from '../dispatcher.js';
import { changePlugins, pluginChangeResult } from '../plugin-table.js';

/**
 * Installs a policy plugin (docs/plugins.md): its module is loaded once to read the name and
 * plugin API version it declares, its data is checked by the plugin itself, and it is recorded
 * in the project's state (not in `.taskdag.json`) with a `plugin.add` log entry.
 */
export const pluginAdd = hostOperation({
  name: 'plugin add',
  summary: 'Install a policy plugin (a local Node module) in this project (see docs/plugins.md)',
  details:
    'The module declares its name and the plugin API version it implements; an unsupported version is PLUGIN_API_INCOMPATIBLE, a module that is missing or fails to load PLUGIN_RUNTIME_UNAVAILABLE, data it rejects PLUGIN_DATA_INVALID. From then on the plugin decides on every operation before it commits.',
  examples: [
    ['Only orchestrator and recovery may restore', '$0 plugin add ./plugins/restore-guard.js --as alice'],
    ['At most two tasks in progress per agent', '$0 plugin add ./plugins/wip-limit.js --data \'{"limit":2}\' --as alice'],
  ],
  mutates: true,
  inLinkedCheckout: false,
  args: () => ({
    module: required(nonEmptyText(), 'Path of the plugin module (a file or a directory with package.json), from the working directory', { positional: true }),
    data: optional(nonEmptyText(), "The plugin's JSON data (default null)", { placeholder: 'json' }),
  }),
  result: () => pluginChangeResult(),
  run: async (services, args, agent) => {
    const by = requireAgent('plugin add', agent);
    const runtime = services.plugins();
    const declared = runtime.declaration(args.module, services.cwd);
    const data = args.data === undefined ? null : parsePluginData(declared.name, args.data);
    return changePlugins(services, 'plugin add', by, (table) => {
      const existing = Object.hasOwn(table, declared.name) ? table[declared.name] : undefined;
      if (existing) {
        throw new DomainError('INVALID_ARGUMENT', `A plugin named ${declared.name} is already installed (from ${existing.module}): plugin remove it first`, {
          plugin: declared.name,
          module: existing.module,
        });
      }
      const plugin: InstalledPlugin = { name: declared.name, module: declared.module, api_version: declared.api_version, installed_at: services.clock.now(), installed_by: by, data };
      runtime.checkData(plugin, data);
      return { table: { ...table, [plugin.name]: plugin }, op: 'plugin.add', plugin: plugin.name, result: (revision) => ({ plugin, revision }) };
    });
  },
});
