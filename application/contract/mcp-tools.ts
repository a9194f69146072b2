import { flagOf, listed } from '../args.js';
import type { Declaration } from '../operation.js';
import type { OperationRegistry } from '../registry.js';
import { argumentsSchema } from './json-schemas.js';
import type { JsonSchema } from './schema.js';

/**
 * The operations `taskdag mcp` offers as tools: an agent's whole loop (find work, read a node
 * whole and its context and history, claim the best task or a chosen one, renew its lease, hand
 * in, review, decide gates, create work and the initiatives it goes in, note, record and search
 * knowledge; recovery's lease sweep) and nothing more, because every tool's definition costs an
 * agent context before any work starts. Administration (init, batch, snapshots, restore, migrate,
 * raw edges and nodes, update, cancel, reopen) stays on the command line. The whole `tools/list`
 * answer is held under 3,000 tokens by test/e2e/mcp.spec.ts.
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
 * parameter.
 */
export function inToolTerms(envelope: Envelope, tool: Pick<Declaration, 'name' | 'args'>): Envelope {
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
