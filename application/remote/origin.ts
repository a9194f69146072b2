import { DomainError } from '../../domain/errors.js';
import { isLoopbackHost } from './loopback-host.js';

/**
 * A server origin as a checkout and the session profile record it: `http(s)://host[:port]` plus
 * any base path, lower-cased host, default port dropped, no trailing slash, no credentials,
 * query or fragment. Two spellings of one server are one origin (docs/remote.md).
 */
export function normalizeOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidOrigin(text, 'it is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidOrigin(text, 'remote v1 speaks http: or https: only');
  // The URL itself may hold a password: the error names only where it points.
  if (url.username !== '' || url.password !== '') throw invalidOrigin(`${url.protocol}//${url.host}`, 'credentials never go in the URL: run taskdag login');
  if (url.search !== '' || url.hash !== '') throw invalidOrigin(text, 'a server origin has no query or fragment');
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** scheme://host:port, with the port always written: what a warning names. */
export function hostPortOf(origin: string): string {
  const url = new URL(origin);
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  return `${url.protocol}//${url.hostname}:${port}`;
}

/** Whether the origin's host is this machine, however it is spelled (loopback-host.ts). */
export function isLoopback(origin: string): boolean {
  return isLoopbackHost(new URL(origin).hostname);
}

function invalidOrigin(text: string, problem: string): DomainError {
  return new DomainError('INVALID_ARGUMENT', `${text} is not a server origin: ${problem} (for example https://taskdag.example.com)`, {
    field: 'origin',
    value: text,
    problem,
  });
}
