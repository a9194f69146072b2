import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface Entry {
  mode: string;
  mtimeMs: number;
  text: string | null;
}

/** Every path under `dir` with its mode, mtime and (for files) text: equal trees mean nothing was touched. */
export function fileTree(dir: string): Record<string, Entry> {
  const tree: Record<string, Entry> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name);
      const stats = statSync(full);
      tree[path.relative(dir, full)] = {
        mode: (stats.mode & 0o7777).toString(8),
        mtimeMs: stats.mtimeMs,
        text: stats.isFile() ? readFileSync(full, 'utf8') : null,
      };
      if (stats.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return tree;
}

export function modeOf(file: string): string {
  return (statSync(file).mode & 0o7777).toString(8);
}
