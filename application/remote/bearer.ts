/**
 * The form a bearer must have before `login` stores it or a command sends it: RFC 6750's
 * `b64token` (letters, digits, `-._~+/`, then any `=`), the only characters an
 * `Authorization: Bearer` header may carry, and at most this many characters. A server's own
 * bearers are 43; anything else would make every later request fail inside the HTTP library
 * (docs/remote.md).
 */
export const MAX_BEARER_LENGTH = 4096;
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** What is wrong with `bearer` as a bearer, or null when it has the form. Never quotes it: it is a secret. */
export function bearerProblem(bearer: unknown): string | null {
  if (typeof bearer !== 'string' || bearer === '') return 'is not a non-empty string';
  if (bearer.length > MAX_BEARER_LENGTH) return `is longer than ${MAX_BEARER_LENGTH} characters`;
  if (!B64TOKEN.test(bearer)) return 'has characters outside the RFC 6750 b64token set (A-Z a-z 0-9 - . _ ~ + / and a trailing =)';
  return null;
}
