import path from 'node:path';
import { DomainError } from '../../domain/errors.js';
import { ensurePrivateDirectory, readJsonObject, writePrivateJson } from '../private-files.js';

export const OWNER_ROUTES_FILE = 'remote-owners.json';

/**
 * Where a linked checkout sends a project's requests when its server names the project's owner
 * (`X-Taskdag-Owner`, docs/scaling.md): only to an address the user trusts, never to one a
 * server merely advertised, since every request carries the bearer.
 */
export interface OwnerRoutes {
  /** The trusted owner the project's requests through `origin` go to first, when one is remembered. */
  owner(origin: string, project: string): string | undefined;
  /** The configured trusted address an advertised owner names (the same origin), or null when it is not trusted. */
  trusted(advertised: string): string | null;
  /** Remembers `owner` (a trusted address) for the project's requests through `origin`; null forgets it. */
  remember(origin: string, project: string, owner: string | null): void;
}

type Remembered = Record<string, string>;

/**
 * The owners remembered across calls in `$TASKDAG_HOME/remote-owners.json`
 * (`{"version": 1, "owners": {"<origin> <project>": "<owner>"}}`, 0600), for the addresses of
 * `TASKDAG_REMOTE_TRUSTED_OWNERS`. A hint and nothing more: a file that cannot be read or is not
 * of this shape is taken as empty and written anew, and one that cannot be written leaves the next
 * call to go through the origin as before (whose process forwards it), so it never fails a command.
 */
export class FileOwnerRoutes implements OwnerRoutes {
  private readonly file: string;
  private remembered: Remembered | null = null;

  /** `trustedOrigins`: the origins (`scheme://host:port`) the user trusts with the bearer. */
  constructor(
    private readonly home: string,
    private readonly trustedOrigins: ReadonlySet<string>,
  ) {
    this.file = path.join(home, OWNER_ROUTES_FILE);
  }

  owner(origin: string, project: string): string | undefined {
    const owner = this.read()[keyOf(origin, project)];
    // Only while it is still trusted: the user may have taken an address off the list since.
    return owner !== undefined && this.trustedOrigins.has(owner) ? owner : undefined;
  }

  trusted(advertised: string): string | null {
    const origin = originOf(advertised);
    return origin !== null && this.trustedOrigins.has(origin) ? origin : null;
  }

  remember(origin: string, project: string, owner: string | null): void {
    const remembered = this.read();
    const key = keyOf(origin, project);
    if ((remembered[key] ?? null) === owner) return;
    if (owner === null) delete remembered[key];
    else remembered[key] = owner;
    try {
      ensurePrivateDirectory(this.home);
      writePrivateJson(this.file, { version: 1, owners: remembered });
    } catch {
      // A hint not kept: the next call goes through the origin, which forwards it.
    }
  }

  private read(): Remembered {
    if (this.remembered !== null) return this.remembered;
    let file: Record<string, unknown> | null = null;
    try {
      file = readJsonObject(this.file);
    } catch {
      file = null;
    }
    const owners = file?.version === 1 ? file.owners : null;
    const valid = typeof owners === 'object' && owners !== null && !Array.isArray(owners) && Object.values(owners).every((owner) => typeof owner === 'string');
    this.remembered = valid ? { ...(owners as Remembered) } : {};
    return this.remembered;
  }
}

/**
 * `TASKDAG_REMOTE_TRUSTED_OWNERS`: the server addresses a linked checkout may send a project's
 * requests to, with its bearer, when its server names one as the project's owner; separated by
 * commas or spaces, each `http(s)://host:port` with nothing after it. Unset or empty: none, and
 * every request goes to the linked origin as before.
 */
export function trustedOwnerOrigins(env: Record<string, string | undefined>): Set<string> {
  const key = 'TASKDAG_REMOTE_TRUSTED_OWNERS';
  const origins = new Set<string>();
  for (const entry of (env[key] ?? '').split(/[\s,]+/).filter((one) => one !== '')) {
    const origin = originOf(entry);
    if (origin === null) {
      throw new DomainError('INVALID_ARGUMENT', `${key} lists server addresses as http(s)://host:port, not ${entry}`, { field: key, value: entry });
    }
    origins.add(origin);
  }
  return origins;
}

/** The origin of an http(s) URL with no user, path, query or fragment; null for anything else. */
function originOf(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '' || (url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') return null;
  return url.origin;
}

function keyOf(origin: string, project: string): string {
  return `${origin} ${project}`;
}
