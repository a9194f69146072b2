// Runs every test layer from build/ (compiled by `npm run build`, which `npm test` runs first)
// and ends with the one summary line CI reads: `N passed, N failed[, N skipped]`.
import Mocha from 'mocha';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const LAYERS = ['architecture', 'domain', 'application', 'adapters', 'e2e'];
/**
 * How long the process may stay up after the last test. A server, socket, timer or child that a
 * test left behind keeps Node's event loop alive, and CI would wait on it until its own timeout:
 * past this grace, what is left is named and counted as one failure, and the process exits.
 */
const DRAIN_GRACE_MS = Number(process.env.TEST_DRAIN_GRACE_MS ?? 10_000);
const only = process.argv.slice(2);

function specsUnder(dir) {
  let found = [];
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return found;
  }
  for (const name of entries.sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) found = found.concat(specsUnder(full));
    else if (name.endsWith('.spec.js')) found.push(full);
  }
  return found;
}

function summary(passed, failed, skipped) {
  return `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

/** What keeps the event loop alive, as a person would look for it: listening addresses, peers, children. */
function leftBehind() {
  return process._getActiveHandles().flatMap((handle) => {
    const kind = handle?.constructor?.name ?? typeof handle;
    if (handle === process.stdout || handle === process.stderr || handle === process.stdin) return [];
    if (kind === 'Server') {
      const address = handle.address();
      return [`a server listening on ${typeof address === 'string' ? address : `${address?.address}:${address?.port}`}`];
    }
    if (kind === 'Socket') return [`a socket ${handle.localAddress}:${handle.localPort} <-> ${handle.remoteAddress}:${handle.remotePort}`];
    if (kind === 'ChildProcess') return [`child process ${handle.pid}: ${handle.spawnargs.join(' ').slice(0, 200)}`];
    return [`a ${kind}`];
  });
}

const mocha = new Mocha({ timeout: 30_000, reporter: process.env.MOCHA_REPORTER ?? 'spec', require: [] });
mocha.addFile(path.resolve('build/test/support/setup.js'));
const layers = only.length > 0 ? only : LAYERS;
for (const layer of layers) for (const file of specsUnder(path.join('build/test', layer))) mocha.addFile(path.resolve(file));

await mocha.loadFilesAsync();
const runner = mocha.run(() => {
  const { passes = 0, failures = 0, pending = 0 } = runner.stats ?? {};
  process.once('beforeExit', () => {
    console.log(summary(passes, failures, pending));
    process.exitCode = failures > 0 ? 1 : 0;
  });
  setTimeout(() => {
    const handles = leftBehind();
    console.log(`\nThe tests left ${handles.length} thing(s) running ${DRAIN_GRACE_MS / 1000} s after the last one ended:`);
    for (const handle of handles) console.log(`  - ${handle}`);
    console.log(summary(passes, failures + 1, pending));
    process.exit(1);
  }, DRAIN_GRACE_MS).unref();
});
