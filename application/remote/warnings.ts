import { array, literal, object, optional, string, type Static, lazily } from '../contract/schema.js';
import { hostPortOf, isLoopback } from './origin.js';

export const warningSchema = lazily(() => object({
  kind: literal('insecure-remote-http'),
  severity: literal('warning'),
  message: string('Names the command and the origin (scheme, host and port)'),
}));
export type Warning = Static<ReturnType<typeof warningSchema>>;

/** The `warnings` field of results that may carry one (spec 4.1); `--no-warnings` removes it. */
export const warningsField = lazily(() => optional(array(warningSchema(), 'Absent when there is nothing to warn about, and with --no-warnings')));

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
