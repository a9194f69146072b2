import { assertSupportedKeywords, isAnnotation } from './schema-keywords.js';
import type { JsonSchema } from './schema.js';

/**
 * Whether a JSON value is an instance of a JSON Schema, for the part of JSON Schema this project
 * writes: what `schema.ts` builds (the operations' results) and what docs/batch.schema.json uses.
 * The remote client explains with it an answer that schema-test.ts refused (docs/remote.md). A
 * schema with a keyword it does not apply is refused as a whole (schema-keywords.ts). (Ajv reads
 * all of JSON Schema, but weighs on every command's start-up; the tests hold this checker to Ajv
 * on the same values.)
 *
 * The schema is first turned into one function per subschema, so the walk over a large answer
 * (`state` of a 50k-node project) looks nothing up in the schema again.
 */

/** Why `value` is not an instance of `schema`: at most `limit` problems, each naming where (`$.nodes.T-1.status`); empty when it is one. */
export function schemaViolations(schema: JsonSchema, value: unknown, limit = 10): string[] {
  const walk = new Walk(limit, []);
  compile(schema, schema, new Map())(value, walk);
  return walk.found;
}

/** Checks one value against one subschema, reporting to the walk. */
type Checker = (value: unknown, walk: Walk) => void;

/** One walk over a value: where it is, and what it found so far. */
class Walk {
  readonly found: string[] = [];
  /** How deep into the value the first problem lies. */
  depth = 0;

  constructor(
    private readonly limit: number,
    /** Property names and item indexes from the root to the value in hand; written out only for a problem. */
    readonly path: (string | number)[],
  ) {}

  get full(): boolean {
    return this.found.length >= this.limit;
  }

  at(step: string | number, check: Checker, value: unknown): void {
    this.path.push(step);
    check(value, this);
    this.path.pop();
  }

  problemAt(step: string, what: string): void {
    this.path.push(step);
    this.problem(what);
    this.path.pop();
  }

  problem(what: string): void {
    this.report(this.path.length, `${pathText(this.path)} ${what}`);
  }

  report(depth: number, problem: string): void {
    if (this.full) return;
    if (this.found.length === 0) this.depth = depth;
    this.found.push(problem);
  }
}

function compile(schema: JsonSchema, root: JsonSchema, references: Map<string, Checker>): Checker {
  assertSupportedKeywords(schema);
  if (typeof schema.$ref === 'string') return reference(schema.$ref, root, references);
  const checks: Checker[] = [];
  if (schema.type !== undefined) checks.push(typeCheck(schema.type as string | string[]));
  if (schema.const !== undefined) checks.push(constCheck(schema.const));
  if (Array.isArray(schema.enum)) checks.push(enumCheck(schema.enum));
  if (Array.isArray(schema.anyOf)) checks.push(anyOfCheck(schema.anyOf as JsonSchema[], root, references));
  const text = textCheck(schema);
  const number = typeof schema.minimum === 'number' ? minimumCheck(schema.minimum) : null;
  const items = schema.items === undefined ? null : itemsCheck(schema.items as JsonSchema, compile(schema.items as JsonSchema, root, references));
  const object = schema.properties !== undefined || schema.required !== undefined || schema.additionalProperties !== undefined ? objectCheck(schema, root, references) : null;
  // A keyword about one type says nothing of a value of another (JSON Schema): each runs on its own type only.
  const byType: Checker = (value, walk) => {
    if (typeof value === 'string') text?.(value, walk);
    else if (typeof value === 'number') number?.(value, walk);
    else if (Array.isArray(value)) items?.(value, walk);
    else if (typeof value === 'object' && value !== null) object?.(value, walk);
  };
  if (text || number || items || object) checks.push(byType);
  if (checks.length === 1) return checks[0]!;
  // Type, constant and enum first: a value of the wrong kind gets one problem, not one per keyword.
  return (value, walk) => {
    const before = walk.found.length;
    for (const check of checks) {
      check(value, walk);
      if (walk.found.length > before) return;
    }
  };
}

/** The type of a schema that says nothing but its type (`{type: "string"}`), checked in place of a call per value. */
function onlyType(schema: JsonSchema): string | null {
  const keywords = Object.keys(schema).filter((keyword) => !isAnnotation(keyword));
  return keywords.length === 1 && typeof schema.type === 'string' ? schema.type : null;
}

function reference(ref: string, root: JsonSchema, references: Map<string, Checker>): Checker {
  const name = /^#\/\$defs\/([^/]+)$/.exec(ref)?.[1];
  const target = name === undefined ? undefined : (root.$defs as Record<string, JsonSchema> | undefined)?.[name];
  if (!target) throw new Error(`schema reference ${ref} is not one of #/$defs`);
  // Compiled once, and looked up when run, so a definition may refer to itself.
  if (!references.has(ref)) {
    references.set(ref, () => undefined);
    references.set(ref, compile(target, root, references));
  }
  return (value, walk) => references.get(ref)!(value, walk);
}

function typeCheck(type: string | string[]): Checker {
  const words = ([] as string[]).concat(type).join(' or ');
  return (value, walk) => {
    if (!hasType(value, type)) walk.problem(`is not ${words}`);
  };
}

function constCheck(expected: unknown): Checker {
  const text = JSON.stringify(expected);
  return (value, walk) => {
    if (!sameJson(value, expected)) walk.problem(`is not ${text}`);
  };
}

function enumCheck(allowed: unknown[]): Checker {
  const text = allowed.map((one) => JSON.stringify(one)).join(', ');
  return (value, walk) => {
    if (!allowed.some((one) => sameJson(value, one))) walk.problem(`is not one of ${text}`);
  };
}

function textCheck(schema: JsonSchema): ((value: string, walk: Walk) => void) | null {
  const { minLength, maxLength, pattern } = schema as { minLength?: number; maxLength?: number; pattern?: string };
  if (minLength === undefined && maxLength === undefined && pattern === undefined) return null;
  const compiled = pattern === undefined ? null : new RegExp(pattern, 'u');
  return (value, walk) => {
    if (minLength !== undefined && value.length < minLength) walk.problem('is too short');
    if (maxLength !== undefined && value.length > maxLength) walk.problem('is too long');
    if (compiled && !compiled.test(value)) walk.problem(`does not match ${pattern}`);
  };
}

function minimumCheck(minimum: number): (value: number, walk: Walk) => void {
  return (value, walk) => {
    if (value < minimum) walk.problem(`is below ${minimum}`);
  };
}

function itemsCheck(schema: JsonSchema, item: Checker): (value: unknown[], walk: Walk) => void {
  const type = onlyType(schema);
  return (value, walk) => {
    for (let index = 0; index < value.length && !walk.full; index += 1) {
      if (type === null) walk.at(index, item, value[index]);
      else if (!hasType(value[index], type)) walk.at(index, item, value[index]);
    }
  };
}

function objectCheck(schema: JsonSchema, root: JsonSchema, references: Map<string, Checker>): (value: object, walk: Walk) => void {
  const required = (schema.required as string[] | undefined) ?? [];
  const properties = new Map(
    Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([field, inner]) => [field, { check: compile(inner, root, references), type: onlyType(inner) }]),
  );
  const others = schema.additionalProperties as JsonSchema | boolean | undefined;
  const other = typeof others === 'object' ? { check: compile(others, root, references), type: onlyType(others) } : null;
  return (value, walk) => {
    const fields = value as Record<string, unknown>;
    for (const field of required) if (!Object.hasOwn(fields, field)) walk.problemAt(field, 'is required');
    for (const field of Object.keys(fields)) {
      if (walk.full) return;
      const property = properties.get(field) ?? other;
      if (property === null) {
        if (others === false) walk.problemAt(field, 'is not allowed');
      } else if (property.type === null || !hasType(fields[field], property.type)) walk.at(field, property.check, fields[field]);
    }
  };
}

/**
 * The first form that fits wins. Forms the value cannot be (another type, another constant
 * `kind`) are set aside without a walk, so a node is walked once, as the form it claims to be,
 * and its problems are reported inside that form. Only a value that several forms may be is
 * tried against each: then the problem inside the one it fit furthest is reported.
 */
function anyOfCheck(schemas: JsonSchema[], root: JsonSchema, references: Map<string, Checker>): Checker {
  const forms = schemas.map((schema) => ({ check: compile(schema, root, references), could: couldBe(schema), type: onlyType(schema) }));
  const kinds = [...new Set(schemas.map((schema) => (schema.const !== undefined ? JSON.stringify(schema.const) : String(schema.type ?? 'its form'))))].join(' or ');
  return (value, walk) => {
    // The common case, `nullable(...)`: a form that is only a type the value has fits as it is.
    for (const form of forms) if (form.type !== null && hasType(value, form.type)) return;
    let candidate: Checker | null = null;
    let candidates = 0;
    for (const form of forms) {
      if (!form.could(value)) continue;
      candidate = form.check;
      candidates += 1;
    }
    if (candidates === 0) return walk.problem(`is not ${kinds}`);
    if (candidates === 1) return candidate!(value, walk);
    let nearest: Walk | null = null;
    for (const form of forms) {
      if (!form.could(value)) continue;
      const attempt = new Walk(1, walk.path);
      form.check(value, attempt);
      if (attempt.found.length === 0) return;
      if (nearest === null || attempt.depth > nearest.depth) nearest = attempt;
    }
    walk.report(nearest!.depth, nearest!.found[0]!);
  };
}

/** Whether a value may be of `form` at all: its type, its constant, the constant fields it has (`kind`, `subkind`). */
function couldBe(form: JsonSchema): (value: unknown) => boolean {
  const type = form.type as string | string[] | undefined;
  const constants = Object.entries((form.properties ?? {}) as Record<string, JsonSchema>)
    .filter(([, property]) => property.const !== undefined)
    .map(([field, property]) => [field, property.const] as const);
  return (value) => {
    if (type !== undefined && !hasType(value, type)) return false;
    if (form.const !== undefined && !sameJson(value, form.const)) return false;
    if (typeof value !== 'object' || value === null) return true;
    return constants.every(([field, expected]) => !Object.hasOwn(value, field) || sameJson((value as Record<string, unknown>)[field], expected));
  };
}

function pathText(path: readonly (string | number)[]): string {
  return path.reduce<string>((text, step) => (typeof step === 'number' ? `${text}[${step}]` : `${text}.${step}`), '$');
}

function hasType(value: unknown, type: string | string[]): boolean {
  if (Array.isArray(type)) return type.some((one) => hasType(value, one));
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      return typeof value === type;
  }
}

function sameJson(value: unknown, expected: unknown): boolean {
  if (typeof expected !== 'object' || expected === null) return value === expected;
  return JSON.stringify(value) === JSON.stringify(expected);
}
