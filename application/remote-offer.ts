import type { Operation } from './operation.js';

/** Whether a server offers the operation at all: it has a /v1 route (docs/http-api.md). */
export function servedRemotely(operation: Pick<Operation, 'remote' | 'scope'>): boolean {
  return operation.remote && operation.scope !== 'host';
}

/**
 * What a server refuses of this request, named as the user typed it (`snapshots`,
 * `init --force`), or null when it runs it. The client and the server ask the same question, so
 * a linked checkout refuses before sending exactly what the server would refuse.
 */
export function refusedRemotely(operation: Pick<Operation, 'name' | 'remote' | 'scope'>, args: Record<string, unknown>): string | null {
  if (!servedRemotely(operation)) return operation.name;
  // A reset of a project is local-only: a server's projects are replaced only by a forced push.
  if (operation.name === 'init' && args.force !== undefined && args.force !== false) return 'init --force';
  return null;
}
