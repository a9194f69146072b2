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
  /** Whether the descriptor is a terminal, where the answer is indented for a person to read. */
  readonly isTTY: boolean;

  constructor(private readonly fd: number) {
    this.isTTY = isTerminalDevice(fd);
  }

  write(text: string | Uint8Array): boolean {
    writeAllSync(this.fd, text);
    return true;
  }
}

/** Linux's memory devices (/dev/null, /dev/zero, /dev/full, /dev/random...): character devices that are never terminals. */
const MEMORY_DEVICES_MAJOR = 1;

/**
 * A terminal is a character device, told from the memory devices by its major number, without
 * `tty.isatty` (the tty module brings net and streams with it, on every command). /dev/null is
 * where benchmark tools (hyperfine among them) and scripts send an answer they do not read:
 * indenting it cost `status` at 50k nodes 8.6 M instructions for nothing (BENCHMARKS.md).
 */
function isTerminalDevice(fd: number): boolean {
  try {
    const stats = fstatSync(fd);
    return stats.isCharacterDevice() && majorOf(stats.rdev) !== MEMORY_DEVICES_MAJOR;
  } catch {
    return false;
  }
}

/** The major number of a Linux device number (glibc's gnu_dev_major, for numbers below 2^53). */
function majorOf(rdev: number): number {
  return ((rdev / 256) & 0xfff) | (Math.floor(rdev / 2 ** 32) & ~0xfff);
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
