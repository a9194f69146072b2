/** What a path is, as far as the server's setup cares. */
export interface PathFacts {
  kind: 'file' | 'directory' | 'other';
  /** Permission bits (e.g. 0o600). */
  mode: number;
}

/** The host's file system, as the server's setup and preflight use it. Paths are absolute. */
export interface HostFiles {
  /** The file's text, or null when it does not exist. */
  read(path: string): Promise<string | null>;
  /** Null when nothing is there. */
  facts(path: string): Promise<PathFacts | null>;
  /** Whether this process may create files in the directory. */
  writable(dir: string): Promise<boolean>;
  /** Replaces the file atomically and durably, with exactly this mode. */
  writeFile(path: string, text: string, mode: number): Promise<void>;
  /** Sets an existing file's permission bits, durably, leaving its content alone. */
  setMode(path: string, mode: number): Promise<void>;
  /** Creates the directory and missing parents with this mode, durably. */
  makeDirectory(path: string, mode: number): Promise<void>;
}
