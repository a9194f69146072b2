import { fstatSync, writeSync } from 'node:fs';

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `text` to a file descriptor synchronously, also when it is a full non-blocking
 * pipe (a parent may share one with us): retried after a short pause instead of failing.
 */
export function writeAllSync(fd: number, text: string | Uint8Array): void {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  for (let written = 0; written < bytes.length; ) {
    try {
      written += writeSync(fd, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/**
 * Standard output as plain synchronous writes on its descriptor. A CLI that prints one value and
 * exits needs nothing more, and it skips what `process.stdout` costs to set up (a stream over a
 * socket, pipe or tty, and the modules behind them) on every command. Writes are as synchronous
 * as process.stdout's own on Linux pipes, files and terminals.
 */
export class FdWriter {
  /** A character device is a terminal (or /dev/null, where the layout does not matter). */
  readonly isTTY: boolean;

  constructor(private readonly fd: number) {
    this.isTTY = isCharacterDevice(fd);
  }

  write(text: string | Uint8Array): boolean {
    writeAllSync(this.fd, text);
    return true;
  }
}

function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/**
 * A stand-in that creates the real stream on first use: `process.stdin` and `process.stderr` are
 * handed to the command context, yet most commands never touch them.
 */
export function onFirstUse<T extends object>(create: () => T): T {
  let real: T | null = null;
  const target = () => (real ??= create());
  return new Proxy({} as T, {
    get: (_, key) => {
      const value = Reflect.get(target(), key);
      return typeof value === 'function' ? value.bind(target()) : value;
    },
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
  });
}
