import { expect } from 'chai';
import { cpSync } from 'node:fs';
import { Sandbox } from './cli.js';

/**
 * Runs a command that must fail: checks the exit status, the error code, and that the state
 * (the whole `taskdag state` projection, log included) is byte-for-byte what it was before.
 */
export async function expectRefused(sandbox: Sandbox, args: string[], code: string, exitCode = 1): Promise<any> {
  const before = (await sandbox.run(['state'])).stdout;
  const result = await sandbox.run(args);
  expect(result.code, `${args.join(' ')} should exit ${exitCode}: ${result.stdout}`).to.equal(exitCode);
  expect(result.json?.ok, result.stdout).to.equal(false);
  expect(result.json.error.code, result.stdout).to.equal(code);
  expect(result.json.error.details).to.be.an('object');
  expect((await sandbox.run(['state'])).stdout, 'the state is untouched').to.equal(before);
  return result.json.error;
}

/** A new sandbox holding a copy of `original`'s project (checkout and TASKDAG_HOME). */
export function copySandbox(original: Sandbox): Sandbox {
  const copy = new Sandbox();
  cpSync(original.root, copy.root, { recursive: true });
  return copy;
}

/** Runs `work` over `items`, at most `limit` at a time (the machine is shared; spawns are not free). */
export async function inBatches<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += limit) {
    results.push(...(await Promise.all(items.slice(start, start + limit).map(work))));
  }
  return results;
}
