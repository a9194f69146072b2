/**
 * A validator for the small part of JSON Schema that docs/batch.schema.json uses (type, required,
 * properties, additionalProperties: false, items, $ref to #/$defs, pattern, minimum, minLength),
 * so the test can hold the documented examples to the schema without a dependency. A keyword it
 * does not know is an error, so the schema cannot silently outgrow it.
 */
const KNOWN = new Set(['$schema', 'title', 'description', '$defs', 'type', 'required', 'properties', 'additionalProperties', 'items', '$ref', 'pattern', 'minimum', 'minLength']);

export function schemaErrors(schema: any, value: unknown, root: any = schema, at = '$'): string[] {
  for (const keyword of Object.keys(schema)) if (!KNOWN.has(keyword)) throw new Error(`schema keyword ${keyword} is not supported`);
  if (schema.$ref) return schemaErrors(root.$defs[schema.$ref.replace('#/$defs/', '')], value, root, at);
  if (schema.type && !hasType(value, schema.type)) return [`${at} is not ${schema.type}`];
  const errors: string[] = [];
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) errors.push(`${at} does not match ${schema.pattern}`);
    if (schema.minLength !== undefined && value.length < schema.minLength) errors.push(`${at} is too short`);
  }
  if (typeof value === 'number' && schema.minimum !== undefined && value < schema.minimum) errors.push(`${at} is below ${schema.minimum}`);
  if (Array.isArray(value) && schema.items) value.forEach((item, index) => errors.push(...schemaErrors(schema.items, item, root, `${at}[${index}]`)));
  if (hasType(value, 'object')) {
    const object = value as Record<string, unknown>;
    for (const field of schema.required ?? []) if (!(field in object)) errors.push(`${at}.${field} is required`);
    for (const [field, item] of Object.entries(object)) {
      const property = schema.properties?.[field];
      if (property) errors.push(...schemaErrors(property, item, root, `${at}.${field}`));
      else if (schema.additionalProperties === false) errors.push(`${at}.${field} is not allowed`);
    }
  }
  return errors;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    default:
      return typeof value === type;
  }
}
