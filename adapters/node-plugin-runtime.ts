import path from 'node:path';
import vm from 'node:vm';
import { DomainError } from '../domain/errors.js';
import { assertPluginName, assertSupportedApi, type InstalledPlugin, type PluginData, type PluginDecision, type PluginRequest } from '../domain/plugins.js';
import type { PluginDeclaration, PluginRuntime } from '../application/ports/plugin-runtime.js';

/** How long one call into a plugin (its load, a decision, a data check) may run by default. */
export const DEFAULT_PLUGIN_TIMEOUT_MS = 1000;

/** What a plugin module exports (docs/plugins.md). */
interface PluginModule {
  name?: unknown;
  apiVersion?: unknown;
  decide?: unknown;
  checkData?: unknown;
}

/**
 * Policy plugins as CommonJS modules loaded with Node's `require`. Every call into a plugin runs
 * under a `vm` watchdog, so a plugin that loops is stopped after `timeoutMs` (the decision is
 * needed under the project lock: waiting forever would hold every writer up). What a plugin sees
 * is a deep-frozen copy: it cannot change the graph, nor the arguments the operation runs with.
 */
export class NodePluginRuntime implements PluginRuntime {
  private readonly loaded = new Map<string, PluginModule>();
  private readonly caller = new vm.Script('call()');

  constructor(private readonly timeoutMs = Number(process.env.TASKDAG_PLUGIN_TIMEOUT_MS) || DEFAULT_PLUGIN_TIMEOUT_MS) {}

  declaration(module: string, cwd: string): PluginDeclaration & { module: string } {
    const absolute = path.resolve(cwd, module);
    const exported = this.load(absolute, absolute);
    const name = exported.name;
    if (typeof name !== 'string') {
      throw new DomainError('PLUGIN_API_INCOMPATIBLE', `${absolute} does not declare its name (export name)`, { plugin: null, module: absolute });
    }
    assertPluginName(name);
    assertSupportedApi(name, exported.apiVersion);
    this.assertDecides(name, exported);
    return { name, api_version: exported.apiVersion, module: absolute };
  }

  checkData(plugin: InstalledPlugin, data: PluginData): void {
    const exported = this.current(plugin);
    if (exported.checkData === undefined) return;
    if (typeof exported.checkData !== 'function') throw incompatible(plugin.name, plugin.module, 'its checkData is not a function');
    const problem = this.call(plugin.name, plugin.module, () => (exported.checkData as (data: PluginData) => unknown)(frozenCopy(data)));
    if (problem === undefined || problem === null || problem === true) return;
    const reason = typeof problem === 'string' ? problem : 'its checkData rejected it';
    throw new DomainError('PLUGIN_DATA_INVALID', `The data of plugin ${plugin.name} is invalid: ${reason}`, { plugin: plugin.name, reason });
  }

  decide(plugin: InstalledPlugin, request: PluginRequest): PluginDecision {
    const exported = this.current(plugin);
    const answer = this.call(plugin.name, plugin.module, () => (exported.decide as (request: PluginRequest) => unknown)(frozenCopy(request)));
    return decisionOf(plugin, answer);
  }

  /** The module of an installed plugin, still declaring what it declared when it was installed. */
  private current(plugin: InstalledPlugin): PluginModule & { decide: unknown } {
    const exported = this.load(plugin.module, plugin.name);
    if (exported.name !== plugin.name) {
      throw unavailable(plugin.name, plugin.module, 'renamed', `its module now declares the name ${JSON.stringify(exported.name ?? null)}`);
    }
    assertSupportedApi(plugin.name, exported.apiVersion);
    this.assertDecides(plugin.name, exported);
    return exported as PluginModule & { decide: unknown };
  }

  private assertDecides(name: string, exported: PluginModule): void {
    if (typeof exported.decide !== 'function') throw incompatible(name, null, 'it exports no decide function');
  }

  private load(module: string, plugin: string): PluginModule {
    const known = this.loaded.get(module);
    if (known) return known;
    let resolved: string;
    try {
      resolved = require.resolve(module);
    } catch {
      throw unavailable(plugin, module, 'missing', 'its module is not there');
    }
    const exported = this.call(plugin, module, () => require(resolved), 'load-failed');
    const value = ((exported as { default?: unknown } | null)?.default ?? exported) as PluginModule;
    if (typeof value !== 'object' || value === null) throw incompatible(plugin, module, 'it exports no plugin object');
    this.loaded.set(module, value);
    return value;
  }

  /** Runs `work` under the watchdog; a throw or a timeout is PLUGIN_RUNTIME_UNAVAILABLE. */
  private call(plugin: string, module: string, work: () => unknown, failure = 'threw'): unknown {
    try {
      return this.caller.runInNewContext({ call: work }, { timeout: this.timeoutMs });
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
        throw new DomainError('PLUGIN_RUNTIME_UNAVAILABLE', `Plugin ${plugin} did not answer within ${this.timeoutMs} ms: the operation is refused`, {
          plugin,
          module,
          cause: 'timeout',
          timeout_ms: this.timeoutMs,
        });
      }
      throw unavailable(plugin, module, failure, error instanceof Error ? error.message.split('\n')[0]! : String(error));
    }
  }
}

function decisionOf(plugin: InstalledPlugin, answer: unknown): PluginDecision {
  const decision = answer as { allow?: unknown; reason?: unknown } | null;
  if (typeof decision === 'object' && decision !== null && decision.allow === true) return { allow: true };
  if (typeof decision === 'object' && decision !== null && decision.allow === false && typeof decision.reason === 'string' && decision.reason.trim() !== '') {
    return { allow: false, reason: decision.reason };
  }
  const what = answer instanceof Promise ? 'a promise (decide must answer at once)' : JSON.stringify(answer) ?? String(answer);
  throw unavailable(plugin.name, plugin.module, 'bad-answer', `decide answered ${what}, not {allow: true} or {allow: false, reason}`);
}

function unavailable(plugin: string, module: string, cause: string, problem: string): DomainError {
  return new DomainError('PLUGIN_RUNTIME_UNAVAILABLE', `Plugin ${plugin} is unavailable (${problem}): the operation is refused`, { plugin, module, cause, problem });
}

function incompatible(plugin: string, module: string | null, problem: string): DomainError {
  return new DomainError('PLUGIN_API_INCOMPATIBLE', `Plugin ${plugin} does not implement the plugin API: ${problem}`, { plugin, module, problem });
}

/** A deep copy the plugin cannot change (nor reach the original through). */
function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
