import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A fresh temp directory per test, removed after it (call inside a `describe`). */
export function useTempDir(prefix = 'taskdag-test-'): () => string {
  let dir: string | null = null;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(async () => {
    // A hot store's checkpoint may still be written in the background as the test ends: the
    // removal is retried, asynchronously so that the write can finish, while a file lands.
    if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
    dir = null;
  });
  return () => {
    if (!dir) throw new Error('useTempDir: no test is running');
    return dir;
  };
}
