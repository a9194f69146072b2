import { allNodes } from './node-map.js';
import { isTimestamp, type Timestamp } from './clock.js';
import { DomainError } from './errors.js';
import { illFormedTextIn, illFormedTextMessage } from './well-formed-text.js';
import { isTask, type AgentName, type Graph, type GraphNode, type NodeId } from './model.js';

/** The plugin API versions this taskdag implements (docs/plugins.md). */
export const SUPPORTED_PLUGIN_APIS: readonly number[] = [1];

/** A plugin's name: what `plugin remove` and refusals name it by. */
const PLUGIN_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** JSON a plugin keeps with the project (its WIP limit, its list of agents...). */
export type PluginData = null | boolean | number | string | PluginData[] | { [key: string]: PluginData };

/** One installed policy plugin: where its module is, the API it declared, and its data. */
export interface InstalledPlugin {
  name: string;
  /** The module's absolute path, resolved when it was installed. */
  module: string;
  api_version: number;
  installed_at: Timestamp;
  installed_by: AgentName;
  data: PluginData;
}

/** Every installed plugin by name: part of the project's state, committed and carried with it. */
export type PluginTable = Record<string, InstalledPlugin>;

/** A node an operation changes, as it was and as the operation leaves it (null: absent). */
export interface TouchedNode {
  id: NodeId;
  before: GraphNode | null;
  after: GraphNode | null;
}

/**
 * What a plugin is asked about, read-only: the operation about to commit, its arguments, the
 * acting agent, the nodes it changes, who holds which tasks once it commits, and the plugin's
 * own data.
 */
export interface PluginRequest {
  operation: string;
  args: Record<string, unknown>;
  agent: AgentName | null;
  nodes: TouchedNode[];
  /** In-progress tasks by claim holder, as the operation would leave the graph. */
  claims: Record<AgentName, NodeId[]>;
  /**
   * True when taskdag only asks to fill `context`'s `allowed_actions`: nothing will commit, and
   * text arguments (a note, a reason) are placeholders.
   */
  preview: boolean;
  data: PluginData;
}

/** A plugin's answer. */
export type PluginDecision = { allow: true } | { allow: false; reason: string };

/** A request before it is addressed to one plugin (each plugin sees its own data). */
export type PolicyQuestion = Omit<PluginRequest, 'data'>;

export function isPluginName(name: unknown): name is string {
  return typeof name === 'string' && PLUGIN_NAME.test(name);
}

export function assertPluginName(name: string): void {
  if (!isPluginName(name)) {
    throw new DomainError('INVALID_ARGUMENT', `${JSON.stringify(name)} is not a plugin name: 1-64 lowercase letters, digits, '.', '_' or '-'`, { plugin: name });
  }
}

/** PLUGIN_API_INCOMPATIBLE unless `version` is one this taskdag implements. */
export function assertSupportedApi(plugin: string, version: unknown): asserts version is number {
  if (typeof version === 'number' && SUPPORTED_PLUGIN_APIS.includes(version)) return;
  throw new DomainError(
    'PLUGIN_API_INCOMPATIBLE',
    `Plugin ${plugin} implements plugin API ${JSON.stringify(version ?? null)}; this taskdag supports ${SUPPORTED_PLUGIN_APIS.join(', ')}`,
    { plugin, declared: version ?? null, supported: [...SUPPORTED_PLUGIN_APIS] },
  );
}

/** The refusal of an operation by a plugin: nothing was written. */
export function pluginRefusal(plugin: string, question: PolicyQuestion, reason: string): DomainError {
  return new DomainError('PLUGIN_REFUSED', `Plugin ${plugin} refused ${question.operation}: ${reason}`, {
    plugin,
    operation: question.operation,
    agent: question.agent,
    reason,
    nodes: question.nodes.map((node) => node.id),
  });
}

/** Plugins in the order they are asked: by name, so every process asks them alike. */
export function pluginsInOrder(table: PluginTable): InstalledPlugin[] {
  return Object.keys(table)
    .sort()
    .map((name) => table[name]!);
}

/** In-progress tasks by claim holder: what a limit on work in progress counts. */
export function claimsOf(graph: Graph): Record<AgentName, NodeId[]> {
  const claims: Record<AgentName, NodeId[]> = {};
  for (const node of allNodes(graph)) {
    const holder = inProgressBy(node);
    if (holder !== null) (claims[holder] ??= []).push(node.id);
  }
  return claims;
}

/**
 * `claims` once the `touched` nodes are as they are now: each touched task's claim as it was is
 * dropped and its claim as it is added, so a claim count follows a change without a new scan.
 */
export function claimsWith(claims: Record<AgentName, NodeId[]>, touched: TouchedNode[]): Record<AgentName, NodeId[]> {
  const result: Record<AgentName, NodeId[]> = { ...claims };
  for (const { id, before } of touched) {
    const holder = inProgressBy(before);
    if (holder !== null) result[holder] = (result[holder] ?? []).filter((held) => held !== id);
  }
  for (const { id, after } of touched) {
    const holder = inProgressBy(after);
    if (holder !== null) result[holder] = [...(result[holder] ?? []), id];
  }
  for (const holder of Object.keys(result)) if (result[holder]!.length === 0) delete result[holder];
  return result;
}

function inProgressBy(node: GraphNode | null): AgentName | null {
  return node !== null && isTask(node) && node.status === 'in_progress' && node.claim ? node.claim.by : null;
}

/**
 * A plugin as a transfer carries it: by name, without its module. Which code runs a plugin is
 * the host's own choice (a server's allow-list, a checkout's `plugin add`), never the sender's.
 */
export type TransferredPlugin = Omit<InstalledPlugin, 'module'>;
export type TransferredPluginTable = Record<string, TransferredPlugin>;

/** The table as a transfer sends it: every module left out. */
export function withoutModules(table: PluginTable | TransferredPluginTable): TransferredPluginTable {
  return Object.fromEntries(Object.entries(table).map(([name, plugin]) => [name, transferred(plugin)]));
}

function transferred({ name, api_version, installed_at, installed_by, data }: TransferredPlugin): TransferredPlugin {
  return { name, api_version, installed_at, installed_by, data };
}

/**
 * The table a host commits for a transferred one: each plugin run by the module `moduleOf`
 * names for it (the host's own), or PLUGIN_NOT_ALLOWED from `moduleOf` when it has none.
 */
export function locatedHere(table: TransferredPluginTable, moduleOf: (name: string) => string): PluginTable {
  return Object.fromEntries(Object.entries(table).map(([name, plugin]) => [name, { ...transferred(plugin), module: moduleOf(name) }]));
}

/** PLUGIN_NOT_ALLOWED: the plugin a table names is not one this host runs; `instead` says what to do. */
export function pluginNotAllowed(plugin: string, host: string, instead: string, details: Record<string, unknown>): DomainError {
  return new DomainError('PLUGIN_NOT_ALLOWED', `${host} does not run a plugin named ${plugin}: ${instead}`, { plugin, ...details });
}

/** Why a stored plugin table cannot be used, or null: the shape every load relies on. */
export function pluginTableProblem(value: unknown): string | null {
  return tableProblem(value, true);
}

/** Why a transferred table is not one, or null: a stored table's shape, a module not needed (and never read). */
export function transferredTableProblem(value: unknown): string | null {
  return tableProblem(value, false);
}

function tableProblem(value: unknown, withModules: boolean): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the plugin table is not an object';
  for (const [name, entry] of Object.entries(value)) {
    const plugin = entry as Partial<InstalledPlugin> | null;
    if (!isPluginName(name)) return `${JSON.stringify(name)} is not a plugin name`;
    if (typeof plugin !== 'object' || plugin === null || Array.isArray(plugin)) return `plugin ${name} is not an object`;
    if (plugin.name !== name) return `plugin ${name} is recorded under another name`;
    if (withModules && (typeof plugin.module !== 'string' || plugin.module === '')) return `plugin ${name} has no module`;
    if (!Number.isSafeInteger(plugin.api_version)) return `plugin ${name} has no api_version`;
    if (!isTimestamp(plugin.installed_at)) return `plugin ${name} has no installed_at timestamp`;
    if (typeof plugin.installed_by !== 'string' || plugin.installed_by === '') return `plugin ${name} has no installed_by`;
    if (!('data' in plugin)) return `plugin ${name} has no data`;
  }
  return null;
}

/** A change of the plugin table, as its log entry records it. */
export interface PluginChange {
  op: 'plugin.add' | 'plugin.remove' | 'plugin.set-data';
  plugin: string;
  at: Timestamp;
  by: AgentName;
}

/**
 * The state after a change of its plugin table: one more revision and a log entry naming the
 * plugin (the table is committed with it, as one). Plugin data stays out of the log: it may be
 * large, and the table holds it.
 */
export function withPluginChange<S extends Graph & { log: unknown[] }>(state: S, change: PluginChange): S {
  const revision = state.revision + 1;
  return { ...state, revision, log: [...state.log, { revision, at: change.at, by: change.by, op: change.op, node: null, plugin: change.plugin }] };
}

/** The installed plugin called `name`, or INVALID_ARGUMENT naming those installed. */
export function installedPlugin(table: PluginTable, name: string): InstalledPlugin {
  const plugin = Object.hasOwn(table, name) ? table[name] : undefined;
  if (!plugin) {
    const installed = Object.keys(table).sort();
    throw new DomainError('INVALID_ARGUMENT', `No plugin ${name} is installed (installed: ${installed.join(', ') || 'none'})`, { plugin: name, installed });
  }
  return plugin;
}

/**
 * Plugin data given as JSON text; PLUGIN_DATA_INVALID, naming the plugin, when it does not parse,
 * or when it holds text no UTF-8 file can (an escaped half of a surrogate pair, which would make
 * the plugin table unreadable to jq: docs/decisions.md, "Text is well-formed Unicode").
 */
export function parsePluginData(plugin: string, text: string): PluginData {
  let data: PluginData;
  try {
    data = JSON.parse(text) as PluginData;
  } catch (error) {
    const reason = `it is not JSON (${error instanceof Error ? error.message : String(error)})`;
    throw new DomainError('PLUGIN_DATA_INVALID', `The data given for plugin ${plugin} is unreadable: ${reason}`, { plugin, reason });
  }
  const illFormed = illFormedTextIn(data);
  if (illFormed) {
    const where = illFormed.key ? `a key in ${illFormed.path || 'it'}` : illFormed.path || 'it';
    const reason = illFormedTextMessage(where);
    throw new DomainError('PLUGIN_DATA_INVALID', `The data given for plugin ${plugin} is unreadable: ${reason}`, { plugin, reason, path: illFormed.path });
  }
  return data;
}
