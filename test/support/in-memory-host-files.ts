import type { HostFiles, PathFacts } from '../../application/ports/host-files.js';

/** A file system in memory: enough of POSIX for the server's setup use cases. */
export class InMemoryHostFiles implements HostFiles {
  readonly files = new Map<string, { text: string; mode: number }>();
  readonly directories = new Map<string, number>([['/', 0o755]]);
  writes = 0;

  async read(path: string): Promise<string | null> {
    return this.files.get(path)?.text ?? null;
  }

  async facts(path: string): Promise<PathFacts | null> {
    const file = this.files.get(path);
    if (file) return { kind: 'file', mode: file.mode };
    const dir = this.directories.get(path);
    return dir === undefined ? null : { kind: 'directory', mode: dir };
  }

  async writable(dir: string): Promise<boolean> {
    return this.directories.has(dir);
  }

  async writeFile(path: string, text: string, mode: number): Promise<void> {
    this.writes += 1;
    this.files.set(path, { text, mode });
  }

  async setMode(path: string, mode: number): Promise<void> {
    this.writes += 1;
    const file = this.files.get(path);
    if (!file) throw new Error(`setMode: no file ${path}`);
    file.mode = mode;
  }

  async makeDirectory(path: string, mode: number): Promise<void> {
    this.writes += 1;
    for (let at = path; at !== '' && !this.directories.has(at); at = at.slice(0, at.lastIndexOf('/'))) this.directories.set(at, mode);
  }
}
