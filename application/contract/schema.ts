/**
 * A small JSON Schema builder whose values are plain JSON Schema objects and whose TypeScript
 * type follows the schema, so an operation's declared result is both the published schema and
 * the type its rule must return. (TypeBox does the same but weighs 140 KB in the CLI bundle, a
 * cost every command would pay at start-up for schemas it only needs at build and test time.)
 */
declare const STATIC: unique symbol;
const OPTIONAL = Symbol('optional');

export type JsonSchema = { readonly [keyword: string]: unknown };
export type Schema<T> = JsonSchema & { readonly [STATIC]?: T };
export type Static<S> = S extends Schema<infer T> ? T : never;

export type Optional<T> = Schema<T> & { readonly [OPTIONAL]: true };
type Properties = Record<string, Schema<unknown>>;
type RequiredKeys<P extends Properties> = { [K in keyof P]: P[K] extends { readonly [OPTIONAL]: true } ? never : K }[keyof P];
type Flatten<T> = { [K in keyof T]: T[K] } & {};
type ObjectOf<P extends Properties> = Flatten<
  { [K in RequiredKeys<P>]: Static<P[K]> } & { [K in Exclude<keyof P, RequiredKeys<P>>]?: Static<P[K]> }
>;

function described<S extends JsonSchema>(schema: S, description?: string): S {
  return description === undefined ? schema : { ...schema, description };
}

export const string = (description?: string): Schema<string> => described({ type: 'string' }, description);
export const integer = (description?: string): Schema<number> => described({ type: 'integer' }, description);
export const boolean = (description?: string): Schema<boolean> => described({ type: 'boolean' }, description);
export const literal = <const T extends string | number | boolean>(value: T, description?: string): Schema<T> =>
  described({ const: value }, description);
export const oneOf = <const T extends string>(values: readonly T[], description?: string): Schema<T> =>
  described({ enum: [...values] }, description);
/** Any JSON value (free-form `meta`, a batch item's result). */
export const anyJson = (description?: string): Schema<unknown> => described({}, description);

export const array = <T>(items: Schema<T>, description?: string): Schema<T[]> => described({ type: 'array', items }, description);
export const nullable = <T>(schema: Schema<T>): Schema<T | null> => ({ anyOf: [schema, { type: 'null' }] });
export const anyOf = <S extends Schema<unknown>[]>(...schemas: S): Schema<Static<S[number]>> => ({ anyOf: schemas });
export const record = <T>(values: Schema<T>, description?: string): Schema<Record<string, T>> =>
  described({ type: 'object', additionalProperties: values }, description);

/**
 * A schema built on first use and kept: the value of `build()`, the same object on every call.
 * Start-up builds only the schemas a command uses (application/contract/results.ts).
 */
export function lazily<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

/** A property that may be absent (`claim?` on a summary). */
export function optional<T>(schema: Schema<T>): Optional<T> {
  return { ...schema, [OPTIONAL]: true } as Optional<T>;
}

/**
 * An object with exactly these properties; `open` lets unknown ones through (log entries carry
 * fields of their own operation).
 */
export function object<P extends Properties>(properties: P, options: { description?: string; open?: boolean } = {}): Schema<ObjectOf<P>> {
  const required = Object.keys(properties).filter((key) => !(OPTIONAL in properties[key]!));
  return described(
    {
      type: 'object',
      properties: Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, withoutMarker(schema)])),
      required,
      additionalProperties: options.open === true,
    },
    options.description,
  );
}

function withoutMarker(schema: JsonSchema): JsonSchema {
  if (!(OPTIONAL in schema)) return schema;
  const { [OPTIONAL]: _marker, ...rest } = schema as JsonSchema & { [OPTIONAL]?: true };
  return rest;
}
