import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadWithCodeCache } from '../../entrypoints/cli/code-cache.js';
import { useTempDir } from '../support/temp-dir.js';

const WARM_UP = path.resolve(__dirname, '../../../scripts/code-cache.mjs');

describe("the build's code cache (scripts/code-cache.mjs)", function () {
  this.timeout(60_000);
  const dir = useTempDir();

  it('is compiled from the bundle as it is now, never from the cache of an earlier bundle of the same length', () => {
    const bundle = path.join(dir(), 'program.js');
    // The warm-up runs `run`, so `answer` is compiled and lands in the cache.
    const version = (answer: number) => `exports.answer = function () { return ${answer}; };\nexports.run = async () => { exports.answer(); };\n`;
    writeFileSync(bundle, version(1));
    execFileSync(process.execPath, [WARM_UP, bundle], { timeout: 30_000 });
    // Same length, other code (as a refactor that only renames can give): V8 checks a cache against the source's length only.
    writeFileSync(bundle, version(2));
    execFileSync(process.execPath, [WARM_UP, bundle], { timeout: 30_000 });
    const loaded = loadWithCodeCache<{ answer(): number }>(bundle, require);
    expect(loaded.script.cachedDataRejected).to.equal(false);
    expect(loaded.exports.answer()).to.equal(2);
  });
});
