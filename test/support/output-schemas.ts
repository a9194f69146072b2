import Ajv2020 from 'ajv/dist/2020.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SCHEMAS = path.resolve(__dirname, '../../../schemas');
const GLOBAL_WITH_VALUE = new Set(['--project', '--as']);

/** Validators of every published output schema (schemas/), compiled once per test process. */
let compiled: Map<string, ReturnType<Ajv2020['compile']>> | null = null;
function validators() {
  if (compiled) return compiled;
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  compiled = new Map();
  for (const file of readdirSync(SCHEMAS).filter((name) => name.endsWith('.output.json') || name === 'error.json')) {
    compiled.set(file, ajv.compile(JSON.parse(readFileSync(path.join(SCHEMAS, file), 'utf8'))));
  }
  return compiled;
}

/** The command a command line runs (its words after the global flags), or null for help and version. */
export function commandOf(args: readonly string[]): string | null {
  let index = 0;
  while (index < args.length && (args[index] === '--no-warnings' || GLOBAL_WITH_VALUE.has(args[index]!) || /^--(project|as)=/.test(args[index]!))) {
    index += GLOBAL_WITH_VALUE.has(args[index]!) ? 2 : 1;
  }
  const rest = args.slice(index);
  if (rest.length === 0 || rest.some((arg) => arg === '--help' || arg === '-h') || rest[0]!.startsWith('-')) return null;
  const known = [...validators().keys()].map((file) => file.replace(/\.output\.json$/, ''));
  const twoWords = `${rest[0]}-${rest[1]}`;
  return known.includes(twoWords) ? twoWords : rest[0]!;
}

/**
 * Why `json`, printed by `args`, breaks the published contract: a failure that is not the
 * envelope, or a result that does not match its command's output schema. Null when it holds.
 */
export function contractViolation(args: readonly string[], json: unknown): string | null {
  const command = commandOf(args);
  if (command === null || json === undefined) return null;
  const violation = outputViolation(command, json);
  return violation && `taskdag ${args.join(' ')} printed JSON outside ${violation}`;
}

/** Why `json` is neither the failure envelope nor a result of `operation` (its schema and the errors), or null. */
export function outputViolation(operation: string, json: unknown): string | null {
  const failure = typeof json === 'object' && json !== null && (json as { ok?: unknown }).ok === false;
  const file = failure ? 'error.json' : `${operation.replace(/ /g, '-')}.output.json`;
  const validate = validators().get(file);
  if (!validate) return null; // no published schema: the command is not an operation
  return validate(json) ? null : `schemas/${file}: ${JSON.stringify(validate.errors?.slice(0, 5))}`;
}
