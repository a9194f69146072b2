import type { JsonSchema } from './schema.js';

/**
 * The part of JSON Schema this project writes (what `schema.ts` builds, and what
 * docs/batch.schema.json uses), and so the part its checkers apply (schema-check.ts,
 * schema-test.ts). A schema with any other keyword is refused as a whole, so a schema cannot
 * silently outgrow them.
 */
const ASSERTIONS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', 'minimum', 'minLength', 'maxLength', 'pattern', '$ref']);
const ANNOTATIONS = new Set(['$schema', '$id', '$defs', 'title', 'description', 'default', 'examples']);

/** Throws when `schema` has a keyword the checkers do not apply. */
export function assertSupportedKeywords(schema: JsonSchema): void {
  for (const keyword of Object.keys(schema)) {
    if (!ASSERTIONS.has(keyword) && !ANNOTATIONS.has(keyword)) throw new Error(`schema keyword ${keyword} is not supported`);
  }
}

/** Whether `keyword` only describes (a title, a description) and asserts nothing. */
export function isAnnotation(keyword: string): boolean {
  return ANNOTATIONS.has(keyword);
}
