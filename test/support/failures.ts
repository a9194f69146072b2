import { expect } from 'chai';
import type { Sandbox } from './cli.js';

export interface FailureCase {
  args: string[];
  code: string;
  /** Entries the error's `details` must include. */
  details?: Record<string, unknown>;
  env?: Record<string, string | undefined>;
  cwd?: string;
  exit?: number;
}

/**
 * Runs each failing command line and checks what a user sees: exit status (1 unless told), one
 * JSON error envelope with the code and `details`, nothing on stderr. Then checks that
 * `taskdag state` prints the very same bytes as before the failures: none of them wrote anything.
 */
export async function expectFailuresLeaveStateUntouched(sandbox: Sandbox, cases: FailureCase[]): Promise<void> {
  const before = await sandbox.run(['state']);
  expect(before.code, before.stdout).to.equal(0);
  await inBatches(cases, 4, async (failure) => {
    const result = await sandbox.run(failure.args, { env: failure.env, ...(failure.cwd ? { cwd: failure.cwd } : {}) });
    const label = `taskdag ${failure.args.join(' ')} -> ${result.stdout}${result.stderr}`;
    expect(result.code, label).to.equal(failure.exit ?? 1);
    expect(result.json, label).to.deep.include({ ok: false });
    expect(result.json.error.code, label).to.equal(failure.code);
    expect(result.json.error.message, label).to.be.a('string').that.is.not.empty;
    expect(result.json.error.details, label).to.deep.include(failure.details ?? {});
    expect(result.stderr, label).to.equal('');
  });
  const after = await sandbox.run(['state']);
  expect(after.stdout, 'state after the failures').to.equal(before.stdout);
}

/** Runs `work` over `items`, at most `size` at a time (the machine is shared). */
export async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let at = 0; at < items.length; at += size) await Promise.all(items.slice(at, at + size).map(work));
}

/** The error an async operation rejects with; fails the test when it resolves. */
export async function rejectionOf<E = { code: string; details: Record<string, unknown>; message: string }>(
  work: () => Promise<unknown>,
): Promise<E> {
  try {
    await work();
  } catch (error) {
    return error as E;
  }
  throw new Error('expected a failure');
}
