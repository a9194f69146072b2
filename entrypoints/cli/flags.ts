import { DomainError } from '../../domain/errors.js';

/** `a,b` → ['a', 'b']; '' → [] (so `--blocked-by ''` says "no blockers"); absent stays absent. */
export function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** `--meta` takes a JSON object, and only that. */
export function jsonObject(flag: string, value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new DomainError('INVALID_ARGUMENT', `${flag} must be a JSON object: ${(error as Error).message}`, { flag, value });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new DomainError('INVALID_ARGUMENT', `${flag} must be a JSON object, not ${Array.isArray(parsed) ? 'an array' : typeof parsed}`, {
      flag,
      value,
    });
  }
  return parsed as Record<string, unknown>;
}

/** `--flag`, `--flag=true`, `--flag true` and `--flag=false` as a boolean. */
export function bool(flag: string, value: string | boolean | undefined): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new DomainError('INVALID_ARGUMENT', `${flag} takes true or false, not ${JSON.stringify(value)}`, { flag, value });
}

/** A whole number from a flag's text. */
export function integer(flag: string, value: string | undefined, minimum = 0): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim()) || Number(value) < minimum) {
    throw new DomainError('INVALID_ARGUMENT', `${flag} takes a whole number of at least ${minimum}, not ${JSON.stringify(value)}`, {
      flag,
      value,
    });
  }
  return Number(value);
}

/** The four `--scope-*` flags of knowledge, as the operation's lists. */
export function scopeLists(flags: { scopeDomains?: string; scopeInitiatives?: string; scopeTags?: string; scopeNodeIds?: string }) {
  return {
    scope_domains: list(flags.scopeDomains),
    scope_initiatives: list(flags.scopeInitiatives),
    scope_tags: list(flags.scopeTags),
    scope_node_ids: list(flags.scopeNodeIds),
  };
}
