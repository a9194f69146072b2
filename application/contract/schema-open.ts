import type { Schema } from './schema.js';

/**
 * `schema` with every `additionalProperties: false` lifted, so an object may carry fields the
 * schema does not name. The published result schemas are closed (they say exactly what this
 * release answers), but a client holds a server's answers to them: a newer server adds optional
 * fields (a task's `rejection`, a claim's `token`), and an older client must still take its
 * answers. Types, required fields and enums are kept, so `{}` or a wrong shape is still refused.
 */
export function openToAdditions<T>(schema: Schema<T>): Schema<T> {
  return opened(schema) as Schema<T>;
}

function opened(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(opened);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [keyword, inner] of Object.entries(value)) {
    if (keyword === 'additionalProperties' && inner === false) continue;
    copy[keyword] = opened(inner);
  }
  return copy;
}
