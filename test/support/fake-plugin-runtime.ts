import { DomainError } from '../../domain/errors.js';
import type { InstalledPlugin, PluginData, PluginDecision, PluginRequest } from '../../domain/plugins.js';
import type { PluginDeclaration, PluginRuntime } from '../../application/ports/plugin-runtime.js';
import path from 'node:path';

/** The example plugins shipped in examples/plugins/. */
export const EXAMPLES = path.resolve(__dirname, '../../../examples/plugins');
export const RESTORE_GUARD = path.join(EXAMPLES, 'restore-guard.js');
export const WIP_LIMIT = path.join(EXAMPLES, 'wip-limit.js');
/** A test plugin that refuses every add-note (test/support/no-notes-plugin.ts). */
export const NO_NOTES = path.join(__dirname, 'no-notes-plugin.js');
const KNOWN_PLUGINS = [RESTORE_GUARD, WIP_LIMIT, NO_NOTES];

/** A plugin held in memory: what a module would export. */
export interface FakePlugin {
  name: string;
  apiVersion: number;
  decide(request: PluginRequest): PluginDecision;
  checkData?(data: PluginData): string | null;
}

/**
 * Plugins by module path, in memory: each request a plugin was asked is kept, so a test sees
 * what the plugin saw. A module that is not there is PLUGIN_RUNTIME_UNAVAILABLE, as with Node.
 */
export class FakePluginRuntime implements PluginRuntime {
  /** The example plugins (examples/plugins/) and NO_NOTES are there from the start, under their real paths. */
  readonly modules = new Map<string, FakePlugin>(KNOWN_PLUGINS.map((module) => [module, require(module) as FakePlugin]));
  readonly asked: { plugin: string; request: PluginRequest }[] = [];

  declaration(module: string, cwd: string): PluginDeclaration & { module: string } {
    const absolute = module.startsWith('/') ? module : `${cwd}/${module}`;
    const plugin = this.module(absolute, absolute);
    return { name: plugin.name, api_version: plugin.apiVersion, module: absolute };
  }

  checkData(plugin: InstalledPlugin, data: PluginData): void {
    const problem = this.module(plugin.module, plugin.name).checkData?.(data) ?? null;
    if (problem !== null) throw new DomainError('PLUGIN_DATA_INVALID', problem, { plugin: plugin.name, reason: problem });
  }

  decide(plugin: InstalledPlugin, request: PluginRequest): PluginDecision {
    this.asked.push({ plugin: plugin.name, request: structuredClone(request) });
    return this.module(plugin.module, plugin.name).decide(request);
  }

  private module(module: string, plugin: string): FakePlugin {
    const found = this.modules.get(module);
    if (!found) throw new DomainError('PLUGIN_RUNTIME_UNAVAILABLE', `no module ${module}`, { plugin, module, cause: 'missing' });
    return found;
  }
}
