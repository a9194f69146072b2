import * as t from 'typanion';
import { DomainError } from '../domain/errors.js';

interface FieldSpec<T> {
  required: boolean;
  validator: t.StrictValidator<unknown, T>;
  /** Given on the command line by position (`show <id>`), not as a flag: messages say `<id>`. */
  positional?: boolean;
}

interface FieldOptions {
  positional?: boolean;
}

export type ArgsSpec = Record<string, FieldSpec<unknown>>;

type Parsed<S extends ArgsSpec> = {
  [K in keyof S as S[K] extends FieldSpec<unknown> & { required: true } ? K : never]: S[K] extends FieldSpec<infer T> ? T : never;
} & {
  [K in keyof S as S[K] extends FieldSpec<unknown> & { required: true } ? never : K]?: S[K] extends FieldSpec<infer T> ? T : never;
};

export function required<T>(validator: t.StrictValidator<unknown, T>, options: FieldOptions = {}): FieldSpec<T> & { required: true } {
  return { required: true, validator, ...options };
}

export function optional<T>(validator: t.StrictValidator<unknown, T>, options: FieldOptions = {}): FieldSpec<T> & { required: false } {
  return { required: false, validator, ...options };
}

export const text = () => t.isString();
export const nonEmptyText = () => t.cascade(t.isString(), [t.hasMinLength(1)]);
export const textList = () => t.isArray(t.isString());
/** A JSON object; typanion's `isRecord` alone would also take an array. */
export const jsonObject = () =>
  t.makeValidator<unknown, Record<string, unknown>>({
    test: (value, state): value is Record<string, unknown> => {
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return true;
      state?.errors?.push(`${state.p ?? '.'}: expected a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
      return false;
    },
  });
export const flag = () => t.isBoolean();
export const positiveInteger = () => t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(1)]);
export const nonNegativeInteger = () => t.cascade(t.isNumber(), [t.isInteger(), t.isAtLeast(0)]);
export const oneOf = <T extends string>(values: readonly T[]) => t.isEnum(values);

/**
 * Validates an operation's arguments, whatever carried them (flags, a batch file, an HTTP body).
 * An absent required field is `MISSING_FIELD`; a present but malformed one, or one the operation
 * does not know, is `INVALID_ARGUMENT`. `details.field` names the argument; `details.flag` the
 * command-line spelling of it.
 */
export function parseArgs<S extends ArgsSpec>(operation: string, raw: unknown, spec: S): Parsed<S> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new DomainError('INVALID_ARGUMENT', `Arguments of ${operation} must be an object`, { operation });
  }
  const input = raw as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(spec, key) && input[key] !== undefined) {
      throw new DomainError('INVALID_ARGUMENT', `${operation} does not take ${flagOf(key)}`, { operation, field: key, flag: flagOf(key) });
    }
  }
  const parsed: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(spec)) {
    const value = input[key];
    if (value === undefined || value === null) {
      if (field.required) {
        throw new DomainError('MISSING_FIELD', `${operation} requires ${spelling(key, field)}`, fieldDetails(operation, key, field));
      }
      continue;
    }
    const errors: string[] = [];
    if (!field.validator(value, { errors })) {
      throw new DomainError('INVALID_ARGUMENT', `Invalid ${spelling(key, field)}: ${errors.join('; ')}`, {
        ...fieldDetails(operation, key, field),
        errors,
      });
    }
    parsed[key] = value;
  }
  return parsed as Parsed<S>;
}

function fieldDetails(operation: string, key: string, field: FieldSpec<unknown>) {
  return field.positional ? { operation, field: key, argument: spelling(key, field) } : { operation, field: key, flag: flagOf(key) };
}

/** How a user types the argument: `<id>` for a positional, `--blocked-by` for a flag. */
function spelling(key: string, field: FieldSpec<unknown>): string {
  return field.positional ? `<${key}>` : flagOf(key);
}

function flagOf(key: string): string {
  return `--${key.replace(/_/g, '-')}`;
}
