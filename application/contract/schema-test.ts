import { assertSupportedKeywords, isAnnotation } from './schema-keywords.js';
import type { JsonSchema } from './schema.js';

/**
 * Whether a value is an instance of a schema, as one generated JavaScript function: the same
 * answer as `schemaViolations(schema, value).length === 0` (schema-check.ts), which the tests hold
 * both to, and to Ajv. A linked checkout's command holds one answer to its schema in a fresh
 * process, where the walk of schema-check.ts runs in V8's interpreter through a closure per
 * subschema and a path kept for every value: 10-35 ms on a 1k-node `status` (5,000 values). This
 * function keeps no path and inlines what a subschema that is only a type asks, so the same
 * answer takes under a millisecond; the walk then runs only on an answer this refuses, to say
 * where and what.
 *
 * The source is made from the schema alone (the operations' declared results, never an answer):
 * names and constants reach it through `JSON.stringify`, patterns and structured constants as
 * values passed in, so no text of a schema is read as code.
 */
export function schemaTest(schema: JsonSchema): (value: unknown) => boolean {
  const source = new TestSource(schema);
  const entry = source.functionFor(schema);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the point: one compiled function per subschema.
  return new Function('values', `${source.functions.join('\n')}\nreturn ${entry};`)(source.values) as (value: unknown) => boolean;
}

/** The functions generated so far, one a subschema, and the values they refer to by index. */
class TestSource {
  readonly functions: string[] = [];
  readonly values: unknown[] = [];
  private readonly names = new Map<JsonSchema, string>();

  constructor(private readonly root: JsonSchema) {}

  /** The name of the function testing `schema`, generated once per subschema (so a definition may refer to itself). */
  functionFor(schema: JsonSchema): string {
    const known = this.names.get(schema);
    if (known !== undefined) return known;
    assertSupportedKeywords(schema);
    const name = `t${this.names.size}`;
    this.names.set(schema, name);
    const index = this.functions.push('') - 1;
    this.functions[index] = `function ${name}(v){${this.body(schema)}return true;}`;
    return name;
  }

  /** An expression over `value` (a variable name) that is true when it is an instance of `schema`. */
  private test(schema: JsonSchema, value: string): string {
    const keywords = Object.keys(schema).filter((keyword) => !isAnnotation(keyword));
    if (keywords.length === 0) return 'true';
    if (keywords.length === 1 && typeof schema.type === 'string' && schema.type !== 'object' && schema.type !== 'array') return typeTest(schema.type, value);
    return `${this.functionFor(schema)}(${value})`;
  }

  private body(schema: JsonSchema): string {
    if (typeof schema.$ref === 'string') return `if(!${this.functionFor(this.definition(schema.$ref))}(v))return false;`;
    const lines: string[] = [];
    if (schema.type !== undefined) lines.push(`if(!${typeTest(schema.type as string | string[], 'v')})return false;`);
    if (schema.const !== undefined) lines.push(`if(!${this.sameJson(schema.const, 'v')})return false;`);
    if (Array.isArray(schema.enum)) lines.push(`if(!(${schema.enum.map((one) => this.sameJson(one, 'v')).join('||') || 'false'}))return false;`);
    if (Array.isArray(schema.anyOf)) lines.push(`if(!(${(schema.anyOf as JsonSchema[]).map((form) => this.test(form, 'v')).join('||') || 'false'}))return false;`);
    lines.push(...this.textLines(schema));
    if (typeof schema.minimum === 'number') lines.push(`if(typeof v==='number'&&v<${schema.minimum})return false;`);
    if (schema.items !== undefined) {
      lines.push(`if(Array.isArray(v))for(let i=0;i<v.length;i++){const x=v[i];if(!${this.test(schema.items as JsonSchema, 'x')})return false;}`);
    }
    if (schema.properties !== undefined || schema.required !== undefined || schema.additionalProperties !== undefined) lines.push(this.objectLines(schema));
    return lines.join('');
  }

  private textLines(schema: JsonSchema): string[] {
    const { minLength, maxLength, pattern } = schema as { minLength?: number; maxLength?: number; pattern?: string };
    const refusals: string[] = [];
    if (minLength !== undefined) refusals.push(`v.length<${Number(minLength)}`);
    if (maxLength !== undefined) refusals.push(`v.length>${Number(maxLength)}`);
    if (pattern !== undefined) refusals.push(`!${this.value(new RegExp(pattern, 'u'))}.test(v)`);
    return refusals.length === 0 ? [] : [`if(typeof v==='string'&&(${refusals.join('||')}))return false;`];
  }

  private objectLines(schema: JsonSchema): string {
    const required = (schema.required as string[] | undefined) ?? [];
    const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
    const others = schema.additionalProperties as JsonSchema | boolean | undefined;
    const other = others === false ? 'return false;' : typeof others === 'object' ? `if(!${this.test(others, 'x')})return false;` : '';
    const cases = properties.map(([field, inner]) => `case ${JSON.stringify(field)}:if(!${this.test(inner, 'x')})return false;break;`).join('');
    return (
      `if(typeof v==='object'&&v!==null&&!Array.isArray(v)){` +
      required.map((field) => `if(!Object.hasOwn(v,${JSON.stringify(field)}))return false;`).join('') +
      `for(const k of Object.keys(v)){const x=v[k];switch(k){${cases}default:${other}}}}`
    );
  }

  /** As schema-check.ts compares: `===` for a scalar, the JSON text for an array or object. */
  private sameJson(expected: unknown, value: string): string {
    if (typeof expected !== 'object' || expected === null) return `(${value}===${JSON.stringify(expected)})`;
    return `(JSON.stringify(${value})===${this.value(JSON.stringify(expected))})`;
  }

  private value(value: unknown): string {
    return `values[${this.values.push(value) - 1}]`;
  }

  private definition(ref: string): JsonSchema {
    const name = /^#\/\$defs\/([^/]+)$/.exec(ref)?.[1];
    const target = name === undefined ? undefined : (this.root.$defs as Record<string, JsonSchema> | undefined)?.[name];
    if (!target) throw new Error(`schema reference ${ref} is not one of #/$defs`);
    return target;
  }
}

function typeTest(type: string | string[], value: string): string {
  if (Array.isArray(type)) return `(${type.map((one) => typeTest(one, value)).join('||') || 'false'})`;
  switch (type) {
    case 'object':
      return `(typeof ${value}==='object'&&${value}!==null&&!Array.isArray(${value}))`;
    case 'array':
      return `Array.isArray(${value})`;
    case 'null':
      return `(${value}===null)`;
    case 'integer':
      return `Number.isInteger(${value})`;
    case 'number':
      return `(typeof ${value}==='number'&&Number.isFinite(${value}))`;
    default:
      return `(typeof ${value}===${JSON.stringify(type)})`;
  }
}
