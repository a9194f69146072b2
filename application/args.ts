import * as t from 'typanion';
import { DomainError } from '../domain/errors.js';
import { closestTo, didYouMean } from '../domain/suggestions.js';
import { illFormedTextIn, illFormedTextMessage, isWellFormedText, type IllFormedText } from '../domain/well-formed-text.js';
import { lazily, type JsonSchema } from './contract/schema.js';

/**
 * How a value is written on a command line, so the CLI can turn a flag's text into it: plain
 * text, a comma-separated list, a JSON object, true/false, a whole number.
 */
export type CliForm = 'text' | 'list' | 'json' | 'boolean' | 'integer' | 'items';

/** A kind of argument value: how it is checked, normalised, published and typed on a command line. */
export interface ValueKind<T> {
  validator: t.StrictValidator<unknown, T>;
  schema: JsonSchema;
  cli: CliForm;
  /** The only values it takes, when it is one of a few words (what help shows and a typo is matched against). */
  choices?: readonly string[];
  /** The stored form of a valid value, the same whichever driver carried it. */
  normalise?(value: T): T;
}

export interface Argument<T> {
  kind: ValueKind<T>;
  required: boolean;
  /** One line for help, JSON Schema, OpenAPI and MCP. */
  description: string;
  /** Given by position (`show <id>`), not as a flag; `rest` takes every remaining word (`add-note <id> <text...>`). */
  positional?: 'single' | 'rest';
  /** A boolean flag that may stand alone (`--all`) as well as take `=true`/`=false`. */
  standalone?: boolean;
  /** What help shows for its value when its kind says too little (`id` for a node id); see placeholderOf. */
  placeholder?: string;
}

interface ArgumentOptions {
  positional?: boolean | 'rest';
  standalone?: boolean;
  placeholder?: string;
}

export type ArgsSpec = Record<string, Argument<any>>;

/** The arguments an operation receives, as its spec declares them (required ones present). */
export type ArgsOf<S extends ArgsSpec> = {
  [K in keyof S as S[K] extends { required: true } ? K : never]: S[K] extends Argument<infer T> ? T : never;
} & {
  [K in keyof S as S[K] extends { required: true } ? never : K]?: S[K] extends Argument<infer T> ? T : never;
};

function argument<T, R extends boolean>(kind: ValueKind<T>, required: R, description: string, options: ArgumentOptions) {
  const positional = options.positional === 'rest' ? 'rest' : options.positional ? 'single' : undefined;
  return {
    kind,
    required,
    description,
    ...(positional ? { positional } : {}),
    ...(options.standalone ? { standalone: true } : {}),
    ...(options.placeholder ? { placeholder: options.placeholder } : {}),
  } as Argument<T> & { required: R };
}

export function required<T>(kind: ValueKind<T>, description: string, options: ArgumentOptions = {}) {
  return argument(kind, true, description, options);
}

export function optional<T>(kind: ValueKind<T>, description: string, options: ArgumentOptions = {}) {
  return argument(kind, false, description, options);
}

/**
 * A value kind whose typanion validator is built when it first checks a value: every operation's
 * arguments are declared when the program loads, yet a command checks those of one operation.
 */
function kind<T>(spec: Omit<ValueKind<T>, 'validator'> & { validator: () => t.StrictValidator<unknown, T> }): ValueKind<T> {
  return Object.defineProperty({ ...spec }, 'validator', { get: lazily(spec.validator), enumerable: true }) as unknown as ValueKind<T>;
}

export const text = (): ValueKind<string> => kind({ validator: () => t.isString(), schema: { type: 'string' }, cli: 'text' });
export const nonEmptyText = (): ValueKind<string> => kind({
  validator: () => t.cascade(t.isString(), [t.hasMinLength(1)]),
  schema: { type: 'string', minLength: 1 },
  cli: 'text',
});
/** A list of names: each item trimmed and empty items dropped, so `" a"` and `a` are one tag. */
export const textList = (): ValueKind<string[]> => kind({
  validator: () => t.isArray(t.isString()),
  schema: { type: 'array', items: { type: 'string' } },
  cli: 'list',
  normalise: (items) => items.map((item) => item.trim()).filter((item) => item !== ''),
});
/** A JSON object; typanion's `isRecord` alone would also take an array. */
export const jsonObject = (): ValueKind<Record<string, unknown>> => kind({
  validator: () => t.makeValidator<unknown, Record<string, unknown>>({
    test: (value, state): value is Record<string, unknown> => {
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return true;
      state?.errors?.push(`${state.p ?? '.'}: expected a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
      return false;
    },
  }),
  schema: { type: 'object' },
  cli: 'json',
});
export const flag = (): ValueKind<boolean> => kind({ validator: () => t.isBoolean(), schema: { type: 'boolean' }, cli: 'boolean' });
export const positiveInteger = (): ValueKind<number> => kind({
  validator: () => t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]),
  schema: { type: 'integer', minimum: 1 },
  cli: 'integer',
});
export const nonNegativeInteger = (): ValueKind<number> => kind({
  validator: () => t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(0)]),
  schema: { type: 'integer', minimum: 0 },
  cli: 'integer',
});
/** A whole number from `min` to `max`. */
export const integerIn = (min: number, max: number): ValueKind<number> => kind({
  validator: () => t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(min, max)]),
  schema: { type: 'integer', minimum: min, maximum: max },
  cli: 'integer',
});
/** Text of the shape `pattern` (a regular expression's source, anchored) says. */
export const textMatching = (pattern: string): ValueKind<string> => kind({
  validator: () => t.cascade(t.isString(), [t.matchesRegExp(new RegExp(pattern))]),
  schema: { type: 'string', pattern },
  cli: 'text',
});
export const oneOf = <T extends string>(values: readonly T[]): ValueKind<T> => kind({
  validator: () => t.isEnum(values),
  schema: { type: 'string', enum: [...values] },
  cli: 'text',
  choices: values,
});
/** A list of JSON values checked one by one later (a batch's items). */
export const items = (): ValueKind<unknown[]> => kind({ validator: () => t.isArray(t.isUnknown()), schema: { type: 'array' }, cli: 'items' });

/**
 * Validates an operation's arguments, whatever carried them (flags, a batch file, an HTTP body,
 * a library call), and normalises them to their stored form. Absent required fields are
 * `MISSING_FIELD`, all of them at once (`details.missing`, in declaration order), so a caller
 * learns every one in one try; a present but malformed one, or one the operation does not know,
 * is `INVALID_ARGUMENT`, and so is text anywhere in them that is not well-formed Unicode (see
 * illFormedArgument). `details.field` names the (first) argument; `details.flag` the
 * command-line spelling of a flag, `details.argument` that of a positional (`<id>`).
 */
export function parseArgs<S extends ArgsSpec>(operation: string, raw: unknown, spec: S): ArgsOf<S> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new DomainError('INVALID_ARGUMENT', `Arguments of ${operation} must be an object`, { operation });
  }
  const input = raw as Record<string, unknown>;
  const illFormed = illFormedTextOf(input, spec);
  if (illFormed) throw illFormedArgument(operation, illFormed, spec);
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(spec, key) && input[key] !== undefined) throw unknownArgument(operation, key, spec);
  }
  const absent = (key: string) => input[key] === undefined || input[key] === null;
  const missing = Object.entries(spec).filter(([key, field]) => field.required && absent(key));
  if (missing.length > 0) throw missingFields(operation, missing);
  const parsed: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(spec)) {
    if (absent(key)) continue;
    const value = input[key];
    const found: string[] = [];
    if (!field.kind.validator(value, { errors: found })) {
      const errors = found.map(withoutRootPath);
      const suggestions = typeof value === 'string' && field.kind.choices ? closestTo(value, field.kind.choices) : [];
      throw new DomainError('INVALID_ARGUMENT', `Invalid ${spellingOf(key, field)}: ${errors.join('; ')}${didYouMean(suggestions)}`, {
        ...fieldDetails(operation, key, field),
        errors,
        ...(suggestions.length > 0 ? { suggestions } : {}),
      });
    }
    parsed[key] = field.kind.normalise ? field.kind.normalise(value) : value;
  }
  return parsed as ArgsOf<S>;
}

/** One MISSING_FIELD for every absent required argument: the first at the top of `details`, as ever, and all of them in `missing`. */
function missingFields(operation: string, missing: [string, Argument<unknown>][]): DomainError {
  const [key, field] = missing[0]!;
  return new DomainError('MISSING_FIELD', `${operation} requires ${listed(missing.map(([name, argument]) => spellingOf(name, argument)))}`, {
    ...fieldDetails(operation, key, field),
    missing: missing.map(([name, argument]) => spelled(name, argument)),
  });
}

/**
 * INVALID_ARGUMENT for an argument `operation` does not take, naming it as a flag and, in
 * `details.suggestions`, the flags it most likely meant: what every driver answers, the command
 * line's unknown options included.
 */
export function unknownArgument(operation: string, key: string, spec: ArgsSpec): DomainError {
  const flags = Object.entries(spec).filter(([, field]) => !field.positional).map(([name]) => flagOf(name));
  const suggestions = closestTo(flagOf(key), flags);
  return new DomainError('INVALID_ARGUMENT', `${operation} does not take ${flagOf(key)}${didYouMean(suggestions)}`, {
    operation,
    field: key,
    flag: flagOf(key),
    ...(suggestions.length > 0 ? { suggestions } : {}),
  });
}

/** Ill-formed text in the arguments, before anything echoes them; a list of items is left to the check of each item (a batch's, with its index). */
function illFormedTextOf(input: Record<string, unknown>, spec: ArgsSpec): IllFormedText | null {
  for (const [key, value] of Object.entries(input)) {
    if (!isWellFormedText(key)) return { path: '', key: true };
    if (Object.hasOwn(spec, key) && spec[key]!.kind.cli === 'items') continue;
    const found = illFormedTextIn(value, key);
    if (found) return found;
  }
  return null;
}

/**
 * INVALID_ARGUMENT for text holding half of a surrogate pair: nothing a UTF-8 file can store, so
 * it is refused before anything runs, wherever it came from (docs/decisions.md). `details.path`
 * says where (`meta.owner`, `operations[0].args.title`); the text itself is never echoed, so the
 * answer stays well-formed too.
 */
export function illFormedArgument(operation: string, found: IllFormedText, spec: ArgsSpec): DomainError {
  const key = found.path.split(/[.[]/, 1)[0]!;
  const field = key !== '' && Object.hasOwn(spec, key) ? spec[key]! : null;
  const where = found.key ? `a key in ${found.path === '' ? 'the arguments' : found.path}` : found.path === '' ? 'the value' : found.path;
  return new DomainError('INVALID_ARGUMENT', illFormedTextMessage(where), {
    ...(field ? fieldDetails(operation, key, field) : { operation }),
    path: found.path,
    ...(found.key ? { key: true } : {}),
  });
}

/** A validator's error without typanion's path of the root value (`.: Expected...`); an item keeps its place. */
function withoutRootPath(error: string): string {
  return error.replace(/^\.: /, '').replace(/^\.\[(\d+)\]: /, 'item $1: ');
}

function fieldDetails(operation: string, key: string, field: Argument<unknown>) {
  return { operation, ...spelled(key, field) };
}

/** An argument's name and how a command line spells it: `{ field, flag }` or `{ field, argument }`. */
function spelled(key: string, field: Argument<unknown>): { field: string; flag: string } | { field: string; argument: string } {
  return field.positional ? { field: key, argument: spellingOf(key, field) } : { field: key, flag: flagOf(key) };
}

/** How a user types the argument: `<id>` for a positional, `--blocked-by` for a flag. */
export function spellingOf(key: string, field: Pick<Argument<unknown>, 'positional'>): string {
  if (field.positional === 'rest') return `<${key}...>`;
  return field.positional ? `<${key}>` : flagOf(key);
}

/**
 * What a flag's value looks like in help: `<id>` when the argument says, else by its kind: one of
 * its choices (`<task|gate|knowledge>`), `<n>`, `<a,b>`, `<json>`, `<true|false>`, `<text>`. A
 * flag that may stand alone shows none.
 */
export function placeholderOf(field: Argument<unknown>): string | null {
  if (field.standalone) return null;
  if (field.placeholder) return `<${field.placeholder}>`;
  if (field.kind.choices) return `<${field.kind.choices.join('|')}>`;
  const byForm: Record<CliForm, string> = { text: 'text', list: 'a,b', json: 'json', boolean: 'true|false', integer: 'n', items: 'json' };
  return `<${byForm[field.kind.cli]}>`;
}

export function flagOf(key: string): string {
  return `--${key.replace(/_/g, '-')}`;
}

/** `a`, `a and b`, `a, b and c`: names in a sentence. */
export function listed(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
