import path from 'node:path';
import { onFirstUse } from './lazy-builtin.js';

/** flock(2)'s operations as fs-ext names them (`nb`: fail with EAGAIN instead of waiting). */
export type FlockFlag = 'sh' | 'ex' | 'shnb' | 'exnb' | 'un';

export interface Flock {
  flockSync(fd: number, flag: FlockFlag): void;
  /**
   * The same call on libuv's thread pool: a blocking flag waits there, in the kernel, and
   * `done` runs on the event loop as soon as the lock is granted (no polling).
   */
  flock(fd: number, flag: FlockFlag, done: (error: NodeJS.ErrnoException | null) => void): void;
}

/** What fs-ext's native binding holds for flock: the call (on the thread pool when given a callback), and the constants it takes. */
interface FsExtBinding {
  flock(fd: number, operation: number, done?: (error: NodeJS.ErrnoException | null) => void): void;
  constants: { LOCK_SH: number; LOCK_EX: number; LOCK_NB: number; LOCK_UN: number };
}

/**
 * flock(2), from fs-ext (Node has no flock of its own), loaded on the first lock. Every local
 * mutation takes a lock, and `require('fs-ext')` costs it about 1.1 ms of CPU (resolving the
 * package, reading its package.json, compiling its script) where opening the binding alone costs
 * about 0.3 ms (BENCHMARKS.md). A bundled program in dist/ opens it where require would find it
 * first, the package's own node_modules; anywhere else (the compiled sources in build/, a
 * binding missing or of another shape) require finds it. Both give fs-ext's flockSync and flock:
 * the same native call, whose errors carry the errno's code (EAGAIN).
 */
export const flock: () => Flock = onFirstUse(() => flockOf(bindingBesideProgram()) ?? (require('fs-ext') as Flock));

function flockOf(binding: FsExtBinding | null): Flock | null {
  if (binding === null) return null;
  const { LOCK_SH, LOCK_EX, LOCK_NB, LOCK_UN } = binding.constants;
  const operations: Record<FlockFlag, number> = { sh: LOCK_SH, ex: LOCK_EX, shnb: LOCK_SH | LOCK_NB, exnb: LOCK_EX | LOCK_NB, un: LOCK_UN };
  return {
    flockSync: (fd, flag) => binding.flock(fd, operations[flag]),
    flock: (fd, flag, done) => binding.flock(fd, operations[flag], done),
  };
}

function bindingBesideProgram(): FsExtBinding | null {
  const module = { exports: {} as Partial<FsExtBinding> };
  try {
    process.dlopen(module, path.join(__dirname, '..', 'node_modules', 'fs-ext', 'build', 'Release', 'fs_ext.node'));
  } catch {
    return null; // not there: require resolves the package wherever it is
  }
  const { flock: call, constants } = module.exports;
  return typeof call === 'function' && typeof constants?.LOCK_EX === 'number' ? (module.exports as FsExtBinding) : null;
}
