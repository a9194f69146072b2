import path from 'node:path';
import type { SessionProfile, StoredSession } from '../application/ports/session-profile.js';
import { invalidFile } from './storage-error.js';
import { FlockProjectLock } from './flock-project-lock.js';
import { ensurePrivateDirectory, readJsonObject, writePrivateJson } from './private-files.js';

export const SESSION_PROFILE_FILE = 'remote-sessions.json';

type Sessions = Record<string, StoredSession>;

/**
 * The session profile `$TASKDAG_HOME/remote-sessions.json` (`~/.taskdag/...` by default):
 * `{"version": 1, "sessions": {"<origin>": {bearer, expires_at, stored_at}}}`. Its directory is
 * 0700 and the file 0600; every change is a read-modify-write under an flock on a lock file
 * beside it, written atomically, so two logins at once both keep their entries.
 */
export class FsSessionProfile implements SessionProfile {
  readonly location: string;
  private readonly lock: FlockProjectLock;

  constructor(private readonly home: string) {
    this.location = path.join(home, SESSION_PROFILE_FILE);
    this.lock = new FlockProjectLock(path.join(home, 'remote-sessions.lock'));
  }

  async get(origin: string): Promise<StoredSession | null> {
    return this.read()[origin] ?? null;
  }

  async put(origin: string, session: StoredSession): Promise<void> {
    await this.update((sessions) => ({ ...sessions, [origin]: session }));
  }

  async remove(origin: string): Promise<boolean> {
    let removed = false;
    await this.update((sessions) => {
      removed = origin in sessions;
      const { [origin]: _gone, ...others } = sessions;
      return others;
    });
    return removed;
  }

  private async update(change: (sessions: Sessions) => Sessions): Promise<void> {
    ensurePrivateDirectory(this.home);
    await this.lock.withLock('exclusive', () => writePrivateJson(this.location, { version: 1, sessions: change(this.read()) }));
  }

  private read(): Sessions {
    const profile = readJsonObject(this.location);
    if (profile === null) return {};
    const sessions = profile.sessions;
    if (profile.version !== 1 || typeof sessions !== 'object' || sessions === null || Array.isArray(sessions)) {
      throw invalidFile(this.location, 'a session profile is {"version": 1, "sessions": {...}}: move it aside and log in again');
    }
    return sessions as Sessions;
  }
}
