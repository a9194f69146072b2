import type { Argument } from '../args.js';
import type { Declaration } from '../operation.js';
import { withWarningsField } from '../remote/warnings.js';
import { errorEnvelopeSchema } from './results.js';
import type { JsonSchema } from './schema.js';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The JSON Schema of an operation's arguments: what a batch item, an HTTP body or a library call passes. */
export function inputSchema(operation: Declaration): JsonSchema {
  return {
    $schema: DIALECT,
    $id: `taskdag:${operation.name}.input`,
    title: `${operation.name} arguments`,
    description: operation.summary,
    ...argumentsSchema(operation),
  };
}

/** The arguments object alone, without the header of a published file: an MCP tool's input schema. */
export function argumentsSchema(operation: Declaration): JsonSchema {
  const fields = Object.entries(operation.args) as [string, Argument<unknown>][];
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map(([key, field]) => [key, { ...field.kind.schema, description: field.description }])),
    required: fields.filter(([, field]) => field.required).map(([key]) => key),
    additionalProperties: false,
  };
}

/** The JSON Schema of an operation's result: the one JSON value it prints on success. */
export function outputSchema(operation: Declaration): JsonSchema {
  return { $schema: DIALECT, $id: `taskdag:${operation.name}.output`, title: `${operation.name} result`, description: operation.summary, ...withWarningsField(operation.result) };
}

/** The failure envelope every operation prints or answers. */
export function errorSchema(): JsonSchema {
  return { $schema: DIALECT, $id: 'taskdag:error', title: 'failure envelope', ...errorEnvelopeSchema() };
}

/** Every file of `schemas/`, by name. */
export function schemaFiles(operations: readonly Declaration[]): Record<string, JsonSchema> {
  const files: Record<string, JsonSchema> = { 'error.json': errorSchema() };
  for (const operation of operations) {
    const base = operation.name.replace(/ /g, '-');
    files[`${base}.input.json`] = inputSchema(operation);
    files[`${base}.output.json`] = outputSchema(operation);
  }
  return files;
}
