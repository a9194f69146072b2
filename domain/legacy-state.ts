import type { Timestamp } from './clock.js';
import { typeDefaults } from './creation.js';
import type { AgentName, GraphNode, Initiative, LogEntry, NodeType, State } from './model.js';
import { stateProblem } from './state-shape.js';

/** The forms of a project's `tasks.json` that `migrate` knows (docs/migrate.md). */
export type StateForm = 'schema-1' | 'schema-1-document' | 'schema-0' | 'unrecognized';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A schema-1 state as one plain JSON document, log included, without the `checkpoint` member of
 * the layout taskdag writes: the spec's form of a state, as `taskdag state` prints it, or as an
 * operator puts it back during a recovery. `migrate` imports it as it is, once it passes every
 * check a state must pass to load (the problem otherwise).
 */
export function schemaOneDocument(value: unknown): { state: State } | { problem: string } | null {
  if (!isObject(value) || value.version !== 1 || 'checkpoint' in value) return null;
  const problem = stateProblem(value);
  return problem === null ? { state: value as unknown as State } : { problem };
}

/** Registered for initiatives that schema-0 nodes name but never registered. */
export const IMPORTED_INITIATIVE_DESC = 'registered by migrate from schema 0';

/**
 * Schema 0 is the single-file state of taskdag before schema 1: the whole project in one
 * `tasks.json`, rewritten by every command, with no `version` (or `version: 0`), no
 * `fence_generation`, no ledger, log entries without revisions, nodes that may lack the fields
 * schema 1 added, and initiatives that were never registered.
 */
export function isSchemaZero(value: unknown): value is Json {
  return (
    isObject(value) &&
    (value.version === undefined || value.version === 0) &&
    value.fence_generation === undefined &&
    value.ledger === undefined &&
    isObject(value.nodes) &&
    Array.isArray(value.edges) &&
    Array.isArray(value.log)
  );
}

export interface ImportEvent {
  at: Timestamp;
  by: AgentName;
}

/**
 * The schema-1 state a schema-0 file becomes: nodes completed with schema-1 defaults (their own
 * fields win), every initiative they name registered, log entries numbered in order, and one
 * `migrate` event. The result is checked like any state from outside; a problem is returned
 * instead of a state that would not load.
 */
export function importSchemaZero(legacy: Json, event: ImportEvent): { state: State } | { problem: string } {
  const nodes: Record<string, GraphNode> = {};
  for (const [id, node] of Object.entries(legacy.nodes as Json)) {
    if (!isObject(node)) return { problem: `node ${id} is not an object` };
    nodes[id] = completeNode(id, node, event);
  }
  const log = (legacy.log as unknown[]).map((entry, index) => numberedEntry(entry, index + 1));
  const revision = Math.max(Number.isInteger(legacy.revision) ? (legacy.revision as number) : 0, log.length) + 1;
  log.push({ revision, at: event.at, by: event.by, op: 'migrate', node: null, from: 'schema-0' });
  const state: State = {
    version: 1,
    fence_generation: 1,
    revision,
    initiatives: registeredInitiatives(legacy.initiatives, nodes, event.at),
    nodes,
    edges: legacy.edges as State['edges'],
    log,
  };
  const problem = stateProblem(state);
  return problem ? { problem } : { state };
}

function completeNode(id: string, node: Json, event: ImportEvent): GraphNode {
  const type: NodeType = node.kind === 'knowledge' ? 'knowledge' : node.subkind === 'gate' ? 'gate' : 'task';
  const base = {
    id,
    kind: node.kind,
    ...(type === 'knowledge' ? {} : { subkind: node.subkind }),
    body: '',
    refs: [],
    meta: {},
    domain: null,
    tags: [],
    revision: 1,
    notes: [],
    created_at: event.at,
    created_by: event.by,
    updated_at: event.at,
  };
  return { ...base, ...typeDefaults(type), ...node, id } as GraphNode;
}

function numberedEntry(entry: unknown, revision: number): LogEntry {
  const fields = isObject(entry) ? entry : { note: JSON.stringify(entry) };
  return { by: 'unknown', node: null, ...fields, revision } as LogEntry;
}

function registeredInitiatives(legacy: unknown, nodes: Record<string, GraphNode>, at: Timestamp): Record<string, Initiative> {
  const initiatives: Record<string, Initiative> = isObject(legacy) ? { ...(legacy as Record<string, Initiative>) } : {};
  for (const node of Object.values(nodes)) {
    if (typeof node.initiative === 'string' && !Object.hasOwn(initiatives, node.initiative)) {
      initiatives[node.initiative] = { desc: IMPORTED_INITIATIVE_DESC, created_at: at };
    }
  }
  return initiatives;
}
