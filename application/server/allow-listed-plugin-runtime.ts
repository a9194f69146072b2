import { DomainError } from '../../domain/errors.js';
import type { InstalledPlugin, PluginData, PluginDecision, PluginRequest } from '../../domain/plugins.js';
import type { PluginDeclaration, PluginRuntime } from '../ports/plugin-runtime.js';
import type { PluginAllowList } from './plugin-allow-list.js';

/**
 * A server's plugin runtime: every plugin runs from the module its allow-list names for it,
 * whatever module a stored table records; a plugin not on the list is PLUGIN_NOT_ALLOWED and
 * nothing is loaded for it.
 */
export class AllowListedPluginRuntime implements PluginRuntime {
  constructor(
    private readonly allowed: PluginAllowList,
    private readonly runtime: PluginRuntime,
  ) {}

  /** A server installs no module by path: `plugin add` runs in a checkout, and the operator lists a server's plugins. */
  declaration(): PluginDeclaration & { module: string } {
    throw new DomainError('REMOTE_UNSUPPORTED_OPERATION', 'A server installs no plugin by path: its operator lists the plugins it runs in server.json (plugins)', {
      operation: 'plugin add',
    });
  }

  checkData(plugin: InstalledPlugin, data: PluginData): void {
    this.runtime.checkData(this.located(plugin), data);
  }

  decide(plugin: InstalledPlugin, request: PluginRequest): PluginDecision {
    return this.runtime.decide(this.located(plugin), request);
  }

  private located(plugin: InstalledPlugin): InstalledPlugin {
    return { ...plugin, module: this.allowed.moduleOf(plugin.name) };
  }
}
