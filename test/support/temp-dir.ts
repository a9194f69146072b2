import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh temp directory per test, removed after it (call inside a `describe`). */
export function useTempDir(prefix = 'taskdag-test-'): () => string {
  let dir: string | null = null;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });
  return () => {
    if (!dir) throw new Error('useTempDir: no test is running');
    return dir;
  };
}
