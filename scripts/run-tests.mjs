// Runs every test layer from build/ (compiled by `npm run build`, which `npm test` runs first)
// and ends with the one summary line CI reads: `N passed, N failed[, N skipped]`.
import Mocha from 'mocha';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const LAYERS = ['architecture', 'domain', 'application', 'adapters', 'e2e'];
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

const mocha = new Mocha({ timeout: 30_000, reporter: process.env.MOCHA_REPORTER ?? 'spec', require: [] });
mocha.addFile(path.resolve('build/test/support/setup.js'));
const layers = only.length > 0 ? only : LAYERS;
for (const layer of layers) for (const file of specsUnder(path.join('build/test', layer))) mocha.addFile(path.resolve(file));

await mocha.loadFilesAsync();
const runner = mocha.run((failures) => {
  const { passes = 0, failures: failed = 0, pending = 0 } = runner.stats ?? {};
  console.log(`${passes} passed, ${failed} failed${pending ? `, ${pending} skipped` : ''}`);
  process.exitCode = failures > 0 ? 1 : 0;
});
