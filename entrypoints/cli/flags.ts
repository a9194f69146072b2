import { flagOf, type Argument, type CliForm } from '../../application/args.js';
import { DomainError } from '../../domain/errors.js';

/** What a flag was given as: `true` when it stood alone (`--all`), else its text. */
export type Occurrence = string | boolean;

/**
 * Turns every occurrence of a flag into the operation's argument value. A list flag may be
 * repeated and its values add up (`--tags a --tags b,c` is `a,b,c`); any other flag given twice
 * is INVALID_ARGUMENT, since silently keeping one of the two would drop what the user typed.
 */
export function argumentFromFlag(key: string, field: Argument<unknown>, occurrences: readonly Occurrence[]): unknown {
  const flag = flagOf(key);
  if (occurrences.length === 0) return undefined;
  if (field.kind.cli === 'list') return occurrences.flatMap((value) => list(flag, value));
  if (occurrences.length > 1) {
    throw new DomainError('INVALID_ARGUMENT', `${flag} was given ${occurrences.length} times: give it once`, {
      flag,
      field: key,
      values: occurrences,
    });
  }
  return fromText(field.kind.cli, flag, occurrences[0]!);
}

function fromText(form: CliForm, flag: string, value: Occurrence): unknown {
  switch (form) {
    case 'boolean':
      return bool(flag, value);
    case 'integer':
      return integer(flag, textOf(flag, value));
    case 'json':
      return json(flag, textOf(flag, value));
    default:
      return textOf(flag, value);
  }
}

function textOf(flag: string, value: Occurrence): string {
  if (typeof value === 'string') return value;
  throw new DomainError('INVALID_ARGUMENT', `${flag} needs a value`, { flag });
}

/** `a,b` → ['a', 'b']; '' → [] (so `--blocked-by ''` says "no blockers"); the operation trims items. */
function list(flag: string, value: Occurrence): string[] {
  return textOf(flag, value).split(',');
}

/** A JSON value; whether it is the right one (an object, not too deep) is the operation's check. */
function json(flag: string, value: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new DomainError('INVALID_ARGUMENT', `${flag} must be a JSON object: ${(error as Error).message}`, { flag, value });
  }
  // null would read as "not given" further on.
  if (parsed === null) throw new DomainError('INVALID_ARGUMENT', `${flag} must be a JSON object, not null`, { flag, value });
  return parsed;
}

/** `--flag`, `--flag=true`, `--flag true` and `--flag=false` as a boolean. */
function bool(flag: string, value: Occurrence): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new DomainError('INVALID_ARGUMENT', `${flag} takes true or false, not ${JSON.stringify(value)}`, { flag, value });
}

/** A whole number from a flag's text; its range is the operation's check. */
function integer(flag: string, value: string): number {
  if (!/^-?\d+$/.test(value.trim())) {
    throw new DomainError('INVALID_ARGUMENT', `${flag} takes a whole number, not ${JSON.stringify(value)}`, { flag, value });
  }
  return Number(value);
}
