import type { ReplacedText } from '../../domain/well-formed-text.js';
import { anyOf, array, integer, literal, object, optional, string, type JsonSchema, type Static, lazily } from '../contract/schema.js';
import { hostPortOf, isLoopback } from './origin.js';

const insecureHttpWarningSchema = lazily(() => object({
  kind: literal('insecure-remote-http'),
  severity: literal('warning'),
  message: string('Names the command and the origin (scheme, host and port)'),
}));

/** Said by any answer written from stored text holding half of a surrogate pair (docs/decisions.md, "Text is well-formed Unicode"). */
const illFormedTextWarningSchema = lazily(() => object({
  kind: literal('ill-formed-text'),
  severity: literal('warning'),
  message: string('Says that each half is shown as U+FFFD, and how to repair the text'),
  texts: array(
    object({
      path: string('Where the text is in this answer (`nodes.T-1.title`, `entries[0].by`)'),
      key: optional(literal(true, 'The last step of the path is the key that held it, as shown')),
      halves: array(object({ at: integer('Its place in the text, in UTF-16 code units from 0'), code_unit: string('The half it stood for, in hex (`D83D`)') })),
    }),
    'Every text shown so, and each half it held',
  ),
}));

export const warningSchema = lazily(() => anyOf(insecureHttpWarningSchema(), illFormedTextWarningSchema()));
export type Warning = Static<ReturnType<typeof warningSchema>>;

const warningsList = lazily(() => array(warningSchema(), 'Absent when there is nothing to warn about, and with --no-warnings'));

/** The `warnings` field of results that may carry one (spec 4.1); `--no-warnings` removes it. */
export const warningsField = lazily(() => optional(warningsList()));

/**
 * An answer's published schema (an object's) with the `warnings` field: any answer written from
 * stored text may need to say it showed some of it as U+FFFD. Unchanged when it has one.
 */
export function withWarningsField(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (schema.type !== 'object' || properties === undefined || 'warnings' in properties) return schema;
  return { ...schema, properties: { ...properties, warnings: warningsList() } };
}

/** The warning of an answer that shows `texts` with U+FFFD in place of halves of surrogate pairs. */
export function illFormedTextWarning(texts: ReplacedText[]): Warning {
  return {
    kind: 'ill-formed-text',
    severity: 'warning',
    message: `${texts.length === 1 ? 'A stored text holds' : `${texts.length} stored texts hold`} half of a surrogate pair, which no UTF-8 JSON can carry: each half is shown as U+FFFD, and texts says where and which it was; update rewrites a field with well-formed text`,
    texts,
  };
}

/**
 * Spec 4.1: `login`, `link` and remote `init` against a non-loopback `http:` origin warn that the
 * password and bearer travel unencrypted. Loopback HTTP and HTTPS never warn.
 */
export function insecureHttpWarnings(command: string, origin: string): { warnings?: Warning[] } {
  if (new URL(origin).protocol !== 'http:' || isLoopback(origin)) return {};
  const where = hostPortOf(origin);
  return {
    warnings: [
      {
        kind: 'insecure-remote-http',
        severity: 'warning',
        message: `${command} used ${where} over plain HTTP: the password and bearer travel without transport encryption; use https:// for a server beyond this machine`,
      },
    ],
  };
}
