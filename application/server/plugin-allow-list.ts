import { locatedHere, pluginNotAllowed, type PluginTable, type TransferredPluginTable } from '../../domain/plugins.js';

/**
 * The policy plugins a server runs: its operator's allow-list in server.json (`plugins`, name to
 * module path). On a server a plugin is only ever a name; the module that runs it comes from
 * here, so no value a client sends reaches the module loader (docs/plugins.md).
 */
export class PluginAllowList {
  constructor(private readonly modules: Readonly<Record<string, string>> = {}) {}

  /** The module of the plugin called `name`, or PLUGIN_NOT_ALLOWED. */
  moduleOf(name: string): string {
    if (this.runs(name)) return this.modules[name]!;
    throw pluginNotAllowed(name, 'This server', "its operator lists the plugins it runs in server.json (plugins); a push of the project's table without it replaces it", {
      allowed: Object.keys(this.modules).sort(),
    });
  }

  runs(name: string): boolean {
    return Object.hasOwn(this.modules, name);
  }

  /** A pushed table as the server commits it, each plugin on the server's own module; PLUGIN_NOT_ALLOWED for a name it does not run. */
  adopt(table: TransferredPluginTable): PluginTable {
    return locatedHere(table, (name) => this.moduleOf(name));
  }
}
