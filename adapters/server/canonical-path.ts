import type { Middleware } from 'koa';
import { DomainError } from '../../domain/errors.js';

/** Where every API route lives (spec 9.2); everything else is the board's. */
const API_PREFIX = '/v1';
/** Enough rounds to see through any encoding a chain of proxies could undo. */
const DECODING_ROUNDS = 8;

/**
 * Whether a request path is the API's, as the routes spell it. Every rule that depends on it (the
 * protocol header, the bearer, JSON rather than the board) reads it through here, after
 * `canonicalPaths` has refused every other spelling of an API path.
 */
export function isApiPath(path: string): boolean {
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}

/**
 * Refuses, before any other rule runs, a request whose path some reader could take for an API
 * path but which is not spelled exactly as the routes spell it: `/V1/...`, `/%761/...`,
 * `/v1%2Fprojects`, `//v1/...`, `/x/../v1/...`, `/v1/projects/` and the like. A proxy, a browser
 * or a lenient router may read such a spelling as the route; refused here, no spelling can skip
 * the protocol header, the bearer, or get the board's HTML for an API path. 400 INVALID_ARGUMENT.
 */
export const canonicalPaths: Middleware = async (ctx, next) => {
  const path = ctx.path;
  if (isApiPath(path) || isApiPath(lenientReading(path))) {
    const problem = isApiPath(path) ? spellingProblem(path) : `it does not start with ${API_PREFIX}/ as written`;
    if (problem !== null) {
      throw new DomainError('INVALID_ARGUMENT', `${path} is not an API path as the server spells it: ${problem} (docs/http-api.md)`, { path, problem });
    }
  }
  await next();
};

/**
 * What the most lenient reader could take the path to mean: percent-decoded until nothing
 * changes, backslashes as slashes, lower case, empty and dot segments resolved.
 */
function lenientReading(path: string): string {
  let text = path;
  for (let round = 0; round < DECODING_ROUNDS; round++) {
    const decoded = decodeBytes(text);
    if (decoded === text) break;
    text = decoded;
  }
  const segments: string[] = [];
  for (const segment of text.replace(/\\/g, '/').toLowerCase().split('/')) {
    if (segment === '..') segments.pop();
    else if (segment !== '' && segment !== '.') segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/** Why a path under the prefix is not in its one canonical spelling, or null when it is. */
function spellingProblem(path: string): string | null {
  const segments = path.slice(1).split('/');
  if (segments.some((segment) => segment === '')) return 'it has an empty segment (a doubled or trailing slash)';
  if (segments.some((segment) => ['.', '..'].includes(decodeBytes(segment)))) return 'it has a "." or ".." segment';
  if (/\\|%2f|%5c/i.test(path)) return 'it has an encoded slash or a backslash';
  // RFC 3986 6.2.2.2: an encoded letter, digit or -._~ means the character itself, so it is a second spelling.
  if ([...path.matchAll(/%[0-9a-f]{2}/gi)].some(([escape]) => /^[A-Za-z0-9._~-]$/.test(decodeBytes(escape)))) {
    return 'it percent-encodes a letter, a digit or one of "-._~"';
  }
  return null;
}

/** Every `%XX` as the byte it encodes, one round; malformed escapes stay as they are. */
function decodeBytes(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
