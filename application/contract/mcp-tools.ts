import { DomainError } from '../../domain/errors.js';
import { closestTo, didYouMean } from '../../domain/suggestions.js';
import { isWellFormedText } from '../../domain/well-formed-text.js';
import { flagOf, listed } from '../args.js';
import type { Declaration } from '../operation.js';
import type { OperationRegistry } from '../registry.js';
import { argumentsSchema } from './json-schemas.js';
import type { JsonSchema } from './schema.js';

/**
 * The operations `taskdag mcp` offers as tools: an agent's whole loop (find work, read a node
 * whole and its context and history, claim the best task or a chosen one, renew its lease, hand
 * in, review, decide gates, create work and the initiatives it goes in, note, record and search
 * knowledge; recovery's lease sweep; several of these in one call and one commit, `batch`) and
 * nothing more, because every tool's definition costs an agent context before any work starts.
 * Administration (init, snapshots, restore, migrate, raw edges and nodes, update, cancel, reopen)
 * stays on the command line, in a batch too (`checkMcpBatch`). The whole `tools/list` answer is
 * held under 3,000 tokens by test/e2e/mcp.spec.ts.
 */
export const MCP_TOOL_NAMES = [
  'status',
  'show',
  'context',
  'history',
  'next',
  'take',
  'renew',
  'release',
  'submit',
  'accept',
  'reject',
  'resolve',
  'add-initiative',
  'add-task',
  'add-gate',
  'add-knowledge',
  'add-note',
  'search',
  'sweep-leases',
  'batch',
] as const;

export interface McpToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  annotations?: { readOnlyHint: true };
}

/**
 * A tool as MCP lists it, derived from the operation's declaration: its name, its summary, its
 * arguments' JSON Schema, and for a read the hint that it changes nothing (clients may then run
 * it without asking). No output schema is listed (results are the JSON the CLI prints, published
 * in `schemas/`), which keeps the list short.
 */
export function mcpTool(operation: Declaration): McpToolDefinition {
  return {
    name: operation.name,
    description: operation.summary,
    inputSchema: argumentsSchema(operation),
    ...(operation.mutates ? {} : { annotations: { readOnlyHint: true } }),
  };
}

/** Every tool `taskdag mcp` lists, in the order of an agent's loop. */
export function mcpTools(registry: OperationRegistry): McpToolDefinition[] {
  return MCP_TOOL_NAMES.map((name) => mcpTool(registry.get(name)));
}

interface Envelope {
  ok: false;
  error: { code: string; message: string; details: Record<string, unknown> };
}

/**
 * A failure told in the tool's own terms: its parameters by name (`note`), never as the flags
 * (`--note`) or positionals (`<id>`) of the command line the message was written for. `details`
 * stay as every driver answers them: they are the contract, and `field` already names the
 * parameter. A batch item's failure is told in its own tool's terms (`itemTool` finds it).
 */
export function inToolTerms(envelope: Envelope, tool: Pick<Declaration, 'name' | 'args'>, itemTool?: (name: string) => Pick<Declaration, 'name' | 'args'> | undefined): Envelope {
  const { code, details } = envelope.error;
  const missing = code === 'MISSING_FIELD' && Array.isArray(details.missing) ? (details.missing as { field: string }[]) : null;
  if (missing) {
    const fields = missing.map((argument) => argument.field);
    const message = `${tool.name} requires the parameter${fields.length === 1 ? '' : 's'} ${listed(fields)}`;
    return { ...envelope, error: { ...envelope.error, message } };
  }
  if (code === 'MISSING_AGENT') {
    const message = `${tool.name} changes the project, and this MCP server was started without an identity: start it as taskdag mcp --as <agent> (or with TASKDAG_AGENT set)`;
    return { ...envelope, error: { ...envelope.error, message } };
  }
  let message = envelope.error.message;
  // A batch item's failure, in the terms of the item's own tool.
  const item = code === 'BATCH_OPERATION_FAILED' && typeof details.op === 'string' ? itemTool?.(details.op) : undefined;
  const itemError = details.error as Envelope['error'] | undefined;
  if (item !== undefined && itemError !== undefined && typeof itemError.message === 'string') {
    const inItemTerms = inToolTerms({ ok: false, error: itemError }, item).error.message;
    message = `Batch operation ${String(details.index)} (${details.op as string}) failed: ${inItemTerms}`;
  }
  // An argument the tool does not take is named as the caller sent it (`intiative`), not as a flag.
  if (typeof details.flag === 'string' && typeof details.field === 'string') message = message.split(details.flag).join(details.field);
  // Longest first, so that --scope-tags is not read as --scope followed by -tags.
  for (const key of Object.keys(tool.args).sort((a, b) => b.length - a.length)) {
    message = message
      .replace(new RegExp(`${flagOf(key)}(?![a-z0-9-])`, 'g'), key)
      .replace(new RegExp(`<${key}(\\.\\.\\.)?>`, 'g'), key);
  }
  return { ...envelope, error: { ...envelope.error, message } };
}

/**
 * A `batch` called as a tool holds this server's own tools, done as this server's identity: an
 * item naming an operation it does not offer (administration stays on the command line) or
 * another agent (`as`: the identity is fixed when the server starts, docs/agents.md) is refused
 * before anything runs, as the batch refuses a bad item: BATCH_OPERATION_FAILED with the item's
 * index and its INVALID_ARGUMENT. Anything else about the items the batch itself checks.
 */
export function checkMcpBatch(args: unknown): void {
  const items = typeof args === 'object' && args !== null ? (args as { operations?: unknown }).operations : undefined;
  if (!Array.isArray(items)) return;
  const offered: readonly string[] = MCP_TOOL_NAMES;
  items.forEach((item: unknown, index) => {
    if (typeof item !== 'object' || item === null) return;
    const { op, as } = item as { op?: unknown; as?: unknown };
    // An ill-formed name is never echoed (the batch refuses it by its place alone).
    const name = typeof op === 'string' && isWellFormedText(op) ? op : null;
    let refusal: DomainError | null = null;
    if (as !== undefined) {
      refusal = new DomainError('INVALID_ARGUMENT', 'A batch item over MCP is done as this server\'s agent: leave as out', { field: 'as' });
    } else if (name !== null && !offered.includes(name)) {
      const suggestions = closestTo(name, offered);
      refusal = new DomainError('INVALID_ARGUMENT', `${name} is not a tool of this server${didYouMean(suggestions)}`, {
        field: 'op',
        op: name,
        ...(suggestions.length > 0 ? { suggestions } : {}),
      });
    }
    if (refusal === null) return;
    throw new DomainError('BATCH_OPERATION_FAILED', `Batch operation ${index}${name !== null ? ` (${name})` : ''} failed: ${refusal.message}`, {
      index,
      op: name,
      error: { code: refusal.code, message: refusal.message, details: refusal.details },
    });
  });
}
