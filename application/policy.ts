import { nodeOf } from '../domain/node-map.js';
import { GraphDraft } from '../domain/draft.js';
import type { AgentName, Graph, NodeId, ReviewRule } from '../domain/model.js';
import type { Action } from '../domain/permissions.js';
import {
  assertSupportedApi,
  claimsOf,
  claimsWith,
  pluginRefusal,
  pluginsInOrder,
  type PluginTable,
  type PolicyQuestion,
  type TouchedNode,
} from '../domain/plugins.js';
import type { GraphContext, GraphOperation, OperationCatalog } from './operation.js';
import type { PluginRuntimeSource } from './ports/plugin-runtime.js';
import type { PluginReader } from './ports/project-store.js';

/**
 * Asks every installed plugin, by name, about an operation about to commit; the first refusal
 * (PLUGIN_REFUSED) or failure (PLUGIN_*) is thrown, and the caller commits nothing. Policy fails
 * closed: a plugin that cannot answer refuses. The question is built only when there are plugins.
 */
export function enforcePolicy(runtime: PluginRuntimeSource, table: PluginTable, question: () => PolicyQuestion): void {
  const plugins = pluginsInOrder(table);
  if (plugins.length === 0) return;
  const asked = question();
  const loaded = runtime();
  for (const plugin of plugins) {
    assertSupportedApi(plugin.name, plugin.api_version);
    loaded.checkData(plugin, plugin.data);
    const decision = loaded.decide(plugin, { ...asked, data: plugin.data });
    if (!decision.allow) throw pluginRefusal(plugin.name, asked, decision.reason);
  }
}

/** The question about an operation that changed `touched` on `graph` (already changed). */
export function questionAbout(operation: string, args: Record<string, unknown>, agent: AgentName | null, touched: TouchedNode[], graph: Graph): PolicyQuestion {
  return { operation, args, agent, nodes: touched, claims: claimsOf(graph), preview: false };
}

/**
 * Runs a graph operation's rule on `context`'s draft and asks the plugins before anything is
 * committed: what every mutating driver (a command, a batch item, a group of server requests)
 * runs, so a refusal is the same whichever way the operation came.
 */
export function runChecked<P>(
  operation: GraphOperation,
  context: GraphContext,
  args: ReturnType<GraphOperation['parse']>,
  plugins: () => PluginTable,
  runtime: PluginRuntimeSource,
  run: () => P,
): P {
  const revision = context.draft.graph.revision;
  const { result, touched } = context.draft.tracking(run);
  // Every change records a log entry, which moves the revision: an operation that changed nothing commits nothing.
  if (context.draft.graph.revision !== revision) {
    enforcePolicy(runtime, plugins(), () => questionAbout(operation.name, args, context.draft.agent, touched, context.draft.graph));
  }
  return result;
}

/** A node's context with only the `allowed_actions` the project's plugins allow too. */
export function withPluginsAllowed<C extends { node: { id: NodeId }; allowed_actions: Action[] }>(context: GraphContext, result: C): C {
  return context.permitted ? { ...result, allowed_actions: context.permitted(result.allowed_actions, result.node.id) } : result;
}

/** What the preview of an action needs: the plugin runtime, the operations and ids. */
export interface PolicyServices {
  runtime: PluginRuntimeSource;
  registry: OperationCatalog;
  ids: GraphContext['ids'];
}

/**
 * An operation's context on `draft` whose `allowed_actions` only offer what the project's plugins
 * allow: every driver (a command, a batch item, a group commit) builds its context here.
 */
export function policyContext(draft: GraphDraft, log: GraphContext['log'], plugins: PluginReader, services: PolicyServices): GraphContext {
  const context: GraphContext = { draft, ids: services.ids, log };
  // No action to ask about (a context without an agent): the plugin table is not read.
  context.permitted = (actions, id) => (actions.length === 0 ? actions : actionsPluginsAllow(actions, id, context.draft, plugins(), services));
  return context;
}

/** Arguments that let an action run for a preview: its text fields hold a placeholder. */
function previewArgs(action: Action, id: NodeId, graph: Graph): Record<string, unknown> {
  const placeholder = '(allowed_actions preview)';
  switch (action) {
    case 'submit':
      return { id, note: placeholder };
    case 'reject':
    case 'reopen':
    case 'cancel':
    case 'deprecate-knowledge':
      return { id, reason: placeholder };
    case 'resolve':
      return { id, choice: placeholder, rationale: placeholder };
    case 'add-note':
      return { id, text: placeholder };
    case 'update':
      return { id, title: nodeOf(graph, id)?.title ?? placeholder };
    default:
      return { id };
  }
}

/**
 * Which of `actions` the plugins would let `agent` take on node `id` now, for `context`'s
 * `allowed_actions`: each runs on the graph and is undone at once, and the plugins are asked with
 * `preview: true` (text arguments are placeholders). An action a plugin refuses, or cannot
 * answer for, is left out.
 */
export function actionsPluginsAllow(
  actions: Action[],
  id: NodeId,
  view: { graph: Graph; now: string; agent: AgentName | null; review?: ReviewRule },
  table: PluginTable,
  services: PolicyServices,
): Action[] {
  if (actions.length === 0 || pluginsInOrder(table).length === 0) return actions;
  // One scan of the claims for every action: each preview adjusts it by the nodes it touched.
  const claims = claimsOf(view.graph);
  return actions.filter((action) => {
    const operation = services.registry.get(action) as GraphOperation;
    const draft = new GraphDraft(view.graph, view.now, view.agent, view.review);
    try {
      const args = operation.parse(previewArgs(action, id, view.graph));
      const { touched } = draft.tracking(() => operation.run({ draft, ids: services.ids, log: [] }, args));
      enforcePolicy(services.runtime, table, () => ({ operation: action, args, agent: view.agent, nodes: touched, claims: claimsWith(claims, touched), preview: true }));
      return true;
    } catch {
      return false;
    } finally {
      draft.rollback();
    }
  });
}
