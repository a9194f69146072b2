import { GraphDraft } from '../../domain/draft.js';
import { earlierAnswerIn } from '../../domain/project-state.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import type { AgentName } from '../../domain/model.js';
import { closestTo, didYouMean } from '../../domain/suggestions.js';
import { illFormedTextIn, isWellFormedText } from '../../domain/well-formed-text.js';
import { illFormedArgument, items, nonNegativeInteger, optional, required } from '../args.js';
import { anyJson, array, integer, object, string } from '../contract/schema.js';
import { projectOperation } from '../define.js';
import { requireAgent, wholeResult } from '../dispatcher.js';
import { policyContext, runChecked } from '../policy.js';
import type { GraphOperation, Operation, OperationCatalog } from '../operation.js';

interface Step {
  index: number;
  operation: GraphOperation;
  args: ReturnType<GraphOperation['parse']>;
  agent: AgentName;
}

/**
 * Applies a list of ordinary mutating operations as one transaction (docs/batch.md): one lock,
 * one draft shared by every item, one commit, or nothing at all. Items name any mutating graph
 * operation of the registry, with the same snake_case arguments as their command, so every such
 * operation is available here without listing it. The first failing item aborts the batch with
 * BATCH_OPERATION_FAILED carrying its index and its own error.
 */
export const batch = projectOperation({
  name: 'batch',
  summary: 'Apply several operations in one transaction: all of them, or none',
  details:
    "The batch is a JSON object `{\"operations\": [{\"op\": \"add-task\", \"args\": {...}}, ...]}`; `args` are the same as the command's flags, in snake_case. A failing item aborts the batch with BATCH_OPERATION_FAILED and its index.",
  examples: [
    ['Apply a batch file', '$0 batch --file plan.json --as alice'],
    ['Apply a batch from a pipe', 'cat plan.json | $0 batch --stdin --as alice'],
    [
      'Apply a one-line batch',
      'echo \'{"operations":[{"op":"add-note","args":{"id":"T-invoice-api","text":"Planned in a batch"}}]}\' | $0 batch --stdin --as alice',
    ],
  ],
  mutates: true,
  argsFromDocument: true,
  args: () => ({
    operations: required(items(), 'Items {op, args}: a mutating operation and its arguments (docs/batch.md)'),
    expect_revision: optional(nonNegativeInteger(), 'Apply only at this state revision (else STATE_REVISION_CONFLICT)'),
  }),
  result: () => object({
    revision: integer('The state revision after the batch (unchanged when no item changed anything)'),
    results: array(object({ op: string(), result: anyJson('What the same operation prints as a command') }), 'Each item, in order'),
  }),
  run: async ({ store, clock, ids, registry, plugins: runtime, review, key }, args, agent) => {
    const caller = requireAgent('batch', agent);
    const steps = args.operations.map((item, index) => prepare(registry, item, index, caller));
    return store.transact((graph, plugins) => {
      const now = clock.now();
      // A retry of a batch already committed gets its answer, before its expected revision (now past) is compared.
      const earlier = key ? earlierAnswerIn(graph, key, now) : null;
      if (earlier) return { result: earlier.answer as BatchResult, changes: null };
      if (args.expect_revision !== undefined && graph.revision !== args.expect_revision) {
        throw new DomainError('STATE_REVISION_CONFLICT', `The state is at revision ${graph.revision}, not ${args.expect_revision}`, {
          expected: args.expect_revision,
          actual: graph.revision,
        });
      }
      const draft = new GraphDraft(graph, now, caller, review);
      const context = policyContext(draft, [], plugins, { runtime, registry, ids });
      const results = steps.map((step) => ({
        op: step.operation.name,
        result: failingAs(step.index, step.operation.name, () =>
          draft.actingAs(step.agent, () => runChecked(step.operation, context, step.args, plugins, runtime, () => wholeResult(step.operation, context, step.args))),
        ),
      }));
      const result = { revision: draft.graph.revision, results };
      if (key) draft.rememberRequest({ ...key, at: now, answer: result });
      return { result, changes: draft.changes(), undo: () => draft.rollback() };
    }, undefined, (graph) => steps.forEach((step) => step.operation.prepare?.(graph, step.args)));
  },
});

interface BatchResult {
  revision: number;
  results: { op: string; result: unknown }[];
}

/** Checks one item before anything runs: its shape, its operation, its arguments. */
function prepare(registry: OperationCatalog, item: unknown, index: number, caller: AgentName): Step {
  const op = typeof item === 'object' && item !== null ? (item as { op?: unknown }).op : undefined;
  return failingAs(index, typeof op === 'string' && isWellFormedText(op) ? op : null, () => {
    // Before anything echoes a part of the item (the item itself, an unknown op's name, an unknown argument).
    const illFormed = illFormedTextIn(item);
    if (illFormed) throw illFormedArgument(typeof op === 'string' && isWellFormedText(op) ? op : 'batch', illFormed, {});
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new DomainError('INVALID_ARGUMENT', 'A batch item must be an object {op, args, as}', { item });
    }
    const { op: name, args = {}, as, ...unknown } = item as Record<string, unknown>;
    const stray = Object.keys(unknown)[0];
    if (stray !== undefined) throw new DomainError('INVALID_ARGUMENT', `A batch item takes op, args and as, not ${stray}`, { field: stray });
    if (name === undefined) throw new DomainError('MISSING_FIELD', 'A batch item needs op: the name of an operation', { field: 'op' });
    if (typeof name !== 'string') throw new DomainError('INVALID_ARGUMENT', 'op must be the name of an operation', { field: 'op' });
    if (as !== undefined && (typeof as !== 'string' || as.trim() === '')) {
      throw new DomainError('INVALID_ARGUMENT', 'as must be an agent name', { field: 'as' });
    }
    const operation = batchable(registry, name);
    const parsed = operation.parse(args);
    // A batch applies at once, in one transaction: an item cannot wait for other agents' commits.
    if ((operation.waiting?.ms(parsed) ?? 0) > 0) throw new DomainError('INVALID_ARGUMENT', `${name} cannot wait inside a batch, which applies at once: leave wait out`, { field: 'wait' });
    return { index, operation, args: parsed, agent: (as as string | undefined) ?? caller };
  });
}

function batchable(registry: OperationCatalog, name: string): GraphOperation {
  if (!registry.names().includes(name)) {
    const suggestions = closestTo(name, registry.names().filter((known) => isBatchable(registry.get(known))));
    throw new DomainError('INVALID_ARGUMENT', `Unknown operation ${name}${didYouMean(suggestions)}`, {
      field: 'op',
      op: name,
      ...(suggestions.length > 0 ? { suggestions } : {}),
    });
  }
  const operation = registry.get(name);
  if (!isBatchable(operation)) {
    throw new DomainError('INVALID_ARGUMENT', `${name} cannot be batched: a batch holds only operations that change the graph`, {
      field: 'op',
      op: name,
    });
  }
  return operation;
}

function isBatchable(operation: Operation): operation is GraphOperation {
  return operation.scope === 'graph' && operation.mutates;
}

/** Runs one item's step, turning its domain error into BATCH_OPERATION_FAILED with its index. */
function failingAs<T>(index: number, op: string | null, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (!isDomainError(error)) throw error;
    throw new DomainError('BATCH_OPERATION_FAILED', `Batch operation ${index}${op ? ` (${op})` : ''} failed: ${error.message}`, {
      index,
      op,
      error: { code: error.code, message: error.message, details: error.details },
    });
  }
}
