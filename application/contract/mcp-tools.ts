import type { Declaration } from '../operation.js';
import type { OperationRegistry } from '../registry.js';
import { argumentsSchema } from './json-schemas.js';
import type { JsonSchema } from './schema.js';

/**
 * The operations `taskdag mcp` offers as tools: an agent's whole loop (find work, read its
 * context, claim, hand in, review, decide gates, create work, note, record and search
 * knowledge) and nothing more, because every tool's definition costs an agent context before any
 * work starts. Administration (init, batch, snapshots, restore, migrate, raw edges and nodes,
 * update, cancel, reopen) stays on the command line. The whole `tools/list` answer is held under
 * 3,000 tokens by test/e2e/mcp.spec.ts.
 */
export const MCP_TOOL_NAMES = [
  'status',
  'context',
  'take',
  'release',
  'submit',
  'accept',
  'reject',
  'resolve',
  'add-task',
  'add-gate',
  'add-knowledge',
  'add-note',
  'search',
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
