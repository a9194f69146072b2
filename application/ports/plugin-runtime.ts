import type { InstalledPlugin, PluginData, PluginDecision, PluginRequest } from '../../domain/plugins.js';

/** Where the plugin runtime comes from: made on first use, so a project without plugins never loads it. */
export type PluginRuntimeSource = () => PluginRuntime;

/** What a plugin module declares about itself. */
export interface PluginDeclaration {
  name: string;
  api_version: number;
}

/**
 * Runs policy plugins (local Node modules, docs/plugins.md). Every call is synchronous and bounded
 * in time, because the answer is needed under the project's exclusive lock, just before the
 * commit. Failures are DomainErrors naming the plugin: PLUGIN_RUNTIME_UNAVAILABLE (missing
 * module, failed load, a throw, too slow, a malformed answer), PLUGIN_API_INCOMPATIBLE,
 * PLUGIN_DATA_INVALID.
 */
export interface PluginRuntime {
  /** Loads the module at `module` (resolved from `cwd`) and reads its declaration; `module` comes back absolute. */
  declaration(module: string, cwd: string): PluginDeclaration & { module: string };
  /** PLUGIN_DATA_INVALID, naming the plugin, when the plugin rejects `data`. */
  checkData(plugin: InstalledPlugin, data: PluginData): void;
  /** The plugin's decision on `request` (which holds its data, already checked). */
  decide(plugin: InstalledPlugin, request: PluginRequest): PluginDecision;
}
