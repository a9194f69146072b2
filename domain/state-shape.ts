import { isTimestamp } from './clock.js';
import { isValidNodeId } from './ids.js';
import { isPriority } from './ranking.js';
import {
  EDGE_TYPES,
  GATE_STATUSES,
  KNOWLEDGE_STATUSES,
  TASK_STATUSES,
  type NodeType,
} from './model.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string';
const isTextList = (value: unknown): boolean => Array.isArray(value) && value.every(isText);
/** A safe integer with room for one more: a stored count must be able to grow without losing precision. */
const isCount = (value: unknown, minimum: number): boolean =>
  Number.isSafeInteger(value) && (value as number) >= minimum && (value as number) < Number.MAX_SAFE_INTEGER;
const isEdgeTypeName = (value: unknown): boolean => (EDGE_TYPES as readonly unknown[]).includes(value);

/** The seven collections of spec 2.1, and nothing else (a checkpoint's `ledger` pointer included). */
const STATE_FIELDS = ['version', 'fence_generation', 'revision', 'initiatives', 'nodes', 'edges', 'log'];

const BASE_FIELDS = ['id', 'kind', 'title', 'body', 'refs', 'meta', 'initiative', 'domain', 'tags', 'revision', 'notes', 'created_at', 'created_by', 'updated_at', 'status'];

/** Every field a node of each type has (domain/model.ts): a state with others was not written by taskdag. */
const FIELDS_OF: Record<NodeType, ReadonlySet<string>> = {
  task: new Set([...BASE_FIELDS, 'subkind', 'definition', 'acceptance', 'backlog', 'claim', 'submitted_by', 'submitted_at', 'done_by', 'done_at', 'accepted_by', 'accepted_at', 'note', 'rejection', 'priority']),
  gate: new Set([...BASE_FIELDS, 'subkind', 'purpose', 'resolution_mode', 'resolution', 'resolved_by', 'resolved_at']),
  knowledge: new Set([...BASE_FIELDS, 'knowledge_type', 'mitigation', 'scope', 'deprecation_reason', 'deprecated_at', 'deprecated_by']),
};

const STATUSES_OF: Record<NodeType, readonly string[]> = {
  task: TASK_STATUSES,
  gate: GATE_STATUSES,
  knowledge: KNOWLEDGE_STATUSES,
};

/**
 * What every reader of the graph relies on: schema 1, its collections, nodes keyed by their own
 * id with every field the rules read (nodeShapeProblem), well-formed edges.
 * Returns the first problem found, or null.
 */
export function graphShapeProblem(value: unknown): string | null {
  const header = graphHeaderProblem(value);
  if (header) return header;
  for (const [id, node] of Object.entries((value as Json).nodes as Json)) {
    const problem = nodeShapeProblem(node, id);
    if (problem) return problem;
  }
  return null;
}

/** Everything `graphShapeProblem` checks but the nodes, which a checkpoint checks as they load. */
export function graphHeaderProblem(value: unknown): string | null {
  if (!isObject(value)) return 'the top level is not an object';
  if (value.version !== 1) return `unsupported schema version ${JSON.stringify(value.version)} (run taskdag migrate)`;
  for (const field of ['fence_generation', 'revision'] as const) {
    if (!Number.isInteger(value[field])) return `${field} is not an integer`;
  }
  if (!isObject(value.initiatives)) return 'initiatives is not an object';
  if (!isObject(value.nodes)) return 'nodes is not an object';
  if (!Array.isArray(value.edges)) return 'edges is not an array';
  for (const edge of value.edges as unknown[]) {
    if (!isObject(edge) || !isText(edge.from) || !isText(edge.to) || !isEdgeTypeName(edge.type)) {
      return `edge ${JSON.stringify(edge)} is malformed`;
    }
  }
  return null;
}

/**
 * A node read from our own checkpoint, one at a time as it is used: every field the rules read,
 * checked as for a state from outside, so a damaged field is STORAGE_ERROR naming the node rather
 * than a TypeError in whatever rule reads it first (which no command, `init` included, could get
 * past).
 */
export function nodeShapeProblem(node: unknown, id: string): string | null {
  if (!isObject(node) || node.id !== id) return `node ${id} is malformed`;
  if (node.kind !== 'resolvable' && node.kind !== 'knowledge') return `node ${id} has an unknown kind`;
  if (node.kind === 'resolvable' && node.subkind !== 'task' && node.subkind !== 'gate') return `node ${id} has an unknown subkind`;
  const problem = nodeProblem(node);
  return problem === null ? null : `node ${id} ${problem}`;
}

/**
 * The whole check for a state that comes from outside our own commits (a snapshot, an import):
 * everything `graphShapeProblem` checks, plus every field the rules read on every node kind,
 * edges between existing nodes, and a log of entries with increasing revisions. A state that
 * passes loads and works with every command.
 */
export function stateProblem(value: unknown): string | null {
  const shallow = graphShapeProblem(value);
  if (shallow) return shallow;
  const state = value as Json;
  const stray = Object.keys(state).find((field) => !STATE_FIELDS.includes(field));
  if (stray !== undefined) return `${stray} is not a field of a schema-1 state`;
  if (!isCount(state.fence_generation, 1)) return 'fence_generation must be a safe integer of at least 1';
  if (!isCount(state.revision, 0)) return 'revision must be a safe integer, not negative, with room to grow';
  return (
    initiativesProblem(state.initiatives as Json) ??
    nodeIdsProblem(state.nodes as Json) ??
    edgesProblem(state.edges as Json[], state.nodes as Json) ??
    cycleProblem(state.edges as Json[], 'BLOCKS') ??
    cycleProblem(state.edges as Json[], 'SUPERSEDES') ??
    logProblem(state.log, state.revision as number)
  );
}

function initiativesProblem(initiatives: Json): string | null {
  for (const [name, initiative] of Object.entries(initiatives)) {
    if (!isObject(initiative) || !isText(initiative.desc) || !isText(initiative.created_at)) return `initiative ${name} is malformed`;
  }
  return null;
}

/** The node ids: each node's fields were checked with the graph's shape. */
function nodeIdsProblem(nodes: Json): string | null {
  const invalid = Object.keys(nodes).find((id) => !isValidNodeId(id));
  return invalid === undefined ? null : `node id ${JSON.stringify(invalid)} is not a valid node id`;
}

function nodeProblem(node: Json): string | null {
  const type = (node.kind === 'knowledge' ? 'knowledge' : node.subkind) as NodeType;
  const stray = Object.keys(node).find((field) => !FIELDS_OF[type].has(field));
  if (stray !== undefined) return `has a field ${JSON.stringify(stray)} that a ${type} does not have`;
  if (!isText(node.title)) return 'has no title';
  if (!isText(node.body)) return 'has no body';
  if (!isText(node.initiative)) return 'has no initiative';
  if (node.domain !== null && !isText(node.domain)) return 'has a domain that is not text';
  if (!isTextList(node.tags) || !isTextList(node.refs)) return 'has tags or refs that are not lists of text';
  if (!isObject(node.meta)) return 'has meta that is not an object';
  if (!Array.isArray(node.notes)) return 'has notes that are not a list';
  if (!isCount(node.revision, 1)) return 'has a revision below 1';
  if (!STATUSES_OF[type].includes(node.status as string)) return `has status ${JSON.stringify(node.status)}, not one a ${type} can have`;
  switch (type) {
    case 'task':
      if (typeof node.backlog !== 'boolean') return 'has a backlog flag that is not a boolean';
      if (node.claim !== null && !(isObject(node.claim) && isText(node.claim.by) && isText(node.claim.at) && claimExtrasValid(node.claim))) return 'has a malformed claim';
      if (node.priority !== undefined && !isPriority(node.priority)) return 'has a priority that is not a whole number from 0 to 4';
      if (node.rejection !== undefined && !(isObject(node.rejection) && isText(node.rejection.reason) && isText(node.rejection.by) && isText(node.rejection.at))) {
        return 'has a malformed rejection';
      }
      return null;
    case 'gate':
      if (node.resolution !== null && !(isObject(node.resolution) && isText(node.resolution.choice) && isText(node.resolution.rationale))) {
        return 'has a malformed resolution';
      }
      return null;
    case 'knowledge': {
      const scope = node.scope;
      if (!isObject(scope) || !['domains', 'initiatives', 'tags', 'node_ids'].every((field) => isTextList(scope[field]))) {
        return 'has a malformed scope';
      }
      return null;
    }
  }
}

/** A claim's fencing token and lease (domain/fencing.ts), each optional; a lease has both its length and its end. */
function claimExtrasValid(claim: Json): boolean {
  if (claim.token !== undefined && !isCount(claim.token, 1)) return false;
  if (claim.lease_ms === undefined && claim.expires_at === undefined) return true;
  return isCount(claim.lease_ms, 1) && isTimestamp(claim.expires_at);
}

function edgesProblem(edges: Json[], nodes: Json): string | null {
  const seen = new Set<string>();
  for (const edge of edges) {
    const label = `edge ${edge.from} -${edge.type}-> ${edge.to}`;
    if (!Object.hasOwn(nodes, edge.from as string) || !Object.hasOwn(nodes, edge.to as string)) return `${label} has a missing endpoint`;
    if (edge.from === edge.to) return `${label} is a self-edge`;
    const key = JSON.stringify([edge.from, edge.to, edge.type]);
    if (seen.has(key)) return `${label} is duplicated`;
    seen.add(key);
    const [from, to] = [nodes[edge.from as string] as Json, nodes[edge.to as string] as Json];
    if (edge.type === 'BLOCKS' && (from.kind !== 'resolvable' || to.kind !== 'resolvable')) return `${label} does not join two resolvable nodes`;
    if (edge.type === 'SUPERSEDES' && (from.kind !== to.kind || from.subkind !== to.subkind)) return `${label} joins nodes of different types`;
  }
  return null;
}

/** Edges of `type` must not loop (walked iteratively: chains can be thousands long). */
function cycleProblem(edges: Json[], type: string): string | null {
  const successors = new Map<string, string[]>();
  const incoming = new Map<string, number>();
  for (const edge of edges) {
    if (edge.type !== type) continue;
    const [from, to] = [edge.from as string, edge.to as string];
    const next = successors.get(from);
    if (next) next.push(to);
    else successors.set(from, [to]);
    incoming.set(to, (incoming.get(to) ?? 0) + 1);
    if (!incoming.has(from)) incoming.set(from, 0);
  }
  const free = [...incoming].filter(([, count]) => count === 0).map(([id]) => id);
  let removed = 0;
  for (let id = free.pop(); id !== undefined; id = free.pop()) {
    removed++;
    for (const next of successors.get(id) ?? []) {
      const left = incoming.get(next)! - 1;
      incoming.set(next, left);
      if (left === 0) free.push(next);
    }
  }
  return removed === incoming.size ? null : `the ${type} edges form a cycle`;
}

function logProblem(log: unknown, stateRevision: number): string | null {
  if (!Array.isArray(log)) return 'log is not an array';
  let previous = 0;
  for (const [index, entry] of log.entries()) {
    if (!isObject(entry)) return `log entry ${index} is not an object`;
    if (!isCount(entry.revision, 1) || (entry.revision as number) <= previous) return `log entry ${index} has a revision out of order`;
    if (!isTimestamp(entry.at)) return `log entry ${index} has no timestamp`;
    if (!isText(entry.op) || entry.op === '') return `log entry ${index} has no op`;
    previous = entry.revision as number;
  }
  if (previous > stateRevision) return `the log goes past the state revision ${stateRevision}`;
  return null;
}
