import path from 'node:path';
import { DomainError } from '../domain/errors.js';
import { assertPluginName, assertSupportedApi, type InstalledPlugin, type PluginData, type PluginDecision, type PluginRequest } from '../domain/plugins.js';
import type { PluginDeclaration, PluginRuntime } from '../application/ports/plugin-runtime.js';
import type { ModuleFacts } from './plugin-worker-main.js';
import { PluginWorker, type WorkerRequest } from './plugin-worker.js';

/** How long one call into a plugin (its load, a decision, a data check) may run by default. */
export const DEFAULT_PLUGIN_TIMEOUT_MS = 1000;

/**
 * Policy plugins as CommonJS modules, run in a worker thread (adapters/plugin-worker.ts). Each
 * call into a plugin waits at most `timeoutMs`; past it the thread is terminated, whatever the
 * plugin does (a loop, a getter, a `toJSON` or a `then` of its answer), and the operation is
 * refused. What a plugin sees is a frozen copy, and what it answers comes back as plain data,
 * checked here: nothing of the plugin's runs on the caller's thread.
 */
export class NodePluginRuntime implements PluginRuntime {
  /** What each module declared, as the running worker loaded it. */
  private readonly declared = new Map<string, ModuleFacts>();
  private readonly worker = new PluginWorker();

  constructor(private readonly timeoutMs = Number(process.env.TASKDAG_PLUGIN_TIMEOUT_MS) || DEFAULT_PLUGIN_TIMEOUT_MS) {}

  declaration(module: string, cwd: string): PluginDeclaration & { module: string } {
    const absolute = path.resolve(cwd, module);
    const facts = this.facts(absolute, absolute);
    const name = facts.name;
    if (typeof name !== 'string') {
      throw new DomainError('PLUGIN_API_INCOMPATIBLE', `${absolute} does not declare its name (export name)`, { plugin: null, module: absolute });
    }
    assertPluginName(name);
    assertSupportedApi(name, facts.apiVersion);
    assertDecides(name, facts);
    return { name, api_version: facts.apiVersion, module: absolute };
  }

  checkData(plugin: InstalledPlugin, data: PluginData): void {
    const facts = this.current(plugin);
    if (facts.checkData === 'undefined') return;
    if (facts.checkData !== 'function') throw incompatible(plugin.name, plugin.module, 'its checkData is not a function');
    const problem = this.call(plugin.name, plugin.module, { kind: 'check-data', module: plugin.module, data });
    if (problem === null) return;
    const reason = typeof problem === 'string' ? problem : 'its checkData rejected it';
    throw new DomainError('PLUGIN_DATA_INVALID', `The data of plugin ${plugin.name} is invalid: ${reason}`, { plugin: plugin.name, reason });
  }

  decide(plugin: InstalledPlugin, request: PluginRequest): PluginDecision {
    this.current(plugin);
    const answer = this.call(plugin.name, plugin.module, { kind: 'decide', module: plugin.module, request });
    const decision = answer as { allow?: unknown; reason?: unknown } | null;
    if (decision?.allow === true) return { allow: true };
    if (decision?.allow === false && typeof decision.reason === 'string') return { allow: false, reason: decision.reason };
    throw unavailable(plugin.name, plugin.module, 'bad-answer', 'the plugin worker answered no decision');
  }

  /** Stops the worker: the host is done with plugins (a test, a process about to exit). */
  close(): void {
    this.worker.stop();
    this.declared.clear();
  }

  /** What an installed plugin's module declares, still what it declared when it was installed. */
  private current(plugin: InstalledPlugin): ModuleFacts {
    const facts = this.facts(plugin.module, plugin.name);
    if (facts.name !== plugin.name) {
      throw unavailable(plugin.name, plugin.module, 'renamed', `its module now declares the name ${JSON.stringify(facts.name)}`);
    }
    assertSupportedApi(plugin.name, facts.apiVersion);
    assertDecides(plugin.name, facts);
    return facts;
  }

  private facts(module: string, plugin: string): ModuleFacts {
    const known = this.declared.get(module);
    if (known) return known;
    const facts = factsOf(this.call(plugin, module, { kind: 'load', module }));
    if (facts === null) throw unavailable(plugin, module, 'bad-answer', 'the plugin worker answered no declaration');
    this.declared.set(module, facts);
    return facts;
  }

  /** One call into the worker: its answer, or the PLUGIN_* error that refuses the operation. */
  private call(plugin: string, module: string, call: WorkerRequest): unknown {
    const outcome = this.worker.call(call, this.timeoutMs);
    if ('timeout' in outcome || 'exited' in outcome) this.declared.clear();
    if ('timeout' in outcome) {
      throw new DomainError('PLUGIN_RUNTIME_UNAVAILABLE', `Plugin ${plugin} did not answer within ${this.timeoutMs} ms: the operation is refused`, {
        plugin,
        module,
        cause: 'timeout',
        timeout_ms: this.timeoutMs,
      });
    }
    if ('exited' in outcome) throw unavailable(plugin, module, 'exited', `it ended its thread (process.exit(${outcome.exited}))`);
    if (outcome.ok) return outcome.value;
    if (outcome.cause === 'incompatible') throw incompatible(plugin, module, outcome.problem);
    throw unavailable(plugin, module, outcome.cause, outcome.problem);
  }
}

function assertDecides(name: string, facts: ModuleFacts): void {
  if (facts.decide !== 'function') throw incompatible(name, null, 'it exports no decide function');
}

/** A module's declaration as the worker posted it, or null when it is not one. */
function factsOf(value: unknown): ModuleFacts | null {
  if (typeof value !== 'object' || value === null) return null;
  const facts = value as Record<string, unknown>;
  const primitive = (field: unknown) => field === null || ['string', 'number', 'boolean'].includes(typeof field);
  if (!primitive(facts.name) || !primitive(facts.apiVersion) || typeof facts.decide !== 'string' || typeof facts.checkData !== 'string') return null;
  return { name: facts.name as ModuleFacts['name'], apiVersion: facts.apiVersion as ModuleFacts['apiVersion'], decide: facts.decide, checkData: facts.checkData };
}

function unavailable(plugin: string, module: string, cause: string, problem: string): DomainError {
  return new DomainError('PLUGIN_RUNTIME_UNAVAILABLE', `Plugin ${plugin} is unavailable (${problem}): the operation is refused`, { plugin, module, cause, problem });
}

function incompatible(plugin: string, module: string | null, problem: string): DomainError {
  return new DomainError('PLUGIN_API_INCOMPATIBLE', `Plugin ${plugin} does not implement the plugin API: ${problem}`, { plugin, module, problem });
}
