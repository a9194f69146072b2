import path from 'node:path';
import type { TransferBaseline, TransferBaselines } from '../application/ports/transfer-baselines.js';
import { ensurePrivateDirectory, readJsonObject, writePrivateJson } from './private-files.js';
import { invalidFile } from './storage-error.js';

export const BASELINES_DIRECTORY = 'remote-transfer-baselines';

/**
 * `$TASKDAG_HOME/remote-transfer-baselines/<origin, URI-encoded>/<project id>.json`, one file a
 * project and origin, replaced atomically. Nothing secret, but kept private like the profile.
 */
export class FsTransferBaselines implements TransferBaselines {
  constructor(private readonly home: string) {}

  async get(origin: string, project: string): Promise<TransferBaseline | null> {
    const file = this.fileOf(origin, project);
    const value = readJsonObject(file);
    if (value === null) return null;
    if (!Number.isSafeInteger(value.local_revision) || !Number.isSafeInteger(value.remote_revision)) {
      throw invalidFile(file, 'a transfer baseline holds local_revision and remote_revision');
    }
    return value as unknown as TransferBaseline;
  }

  async put(origin: string, project: string, baseline: TransferBaseline): Promise<void> {
    const file = this.fileOf(origin, project);
    ensurePrivateDirectory(path.dirname(file));
    writePrivateJson(file, { origin, project_id: project, ...baseline });
  }

  private fileOf(origin: string, project: string): string {
    return path.join(this.home, BASELINES_DIRECTORY, encodeURIComponent(origin), `${project}.json`);
  }
}
