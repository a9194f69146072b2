import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { codeCacheFor, loadWithCodeCache, type CodeCache } from '../../entrypoints/cli/code-cache.js';
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
    for (const cache of ['all', 'reads'] as CodeCache[]) {
      const loaded = loadWithCodeCache<{ answer(): number }>(bundle, require, cache);
      expect(loaded.script.cachedDataRejected, cache).to.equal(false);
      expect(loaded.exports.answer(), cache).to.equal(2);
    }
  });

  /** A bundle whose `fail` throws, warmed by the build's script (`all` cache) in `dir`. */
  const warmedThrower = (bundle: string, tag = 1) => {
    writeFileSync(bundle, `exports.fail = function () { throw new Error('fail ${tag}'); };\nexports.run = async () => { exports.tag = ${tag}; };\n`);
    execFileSync(process.execPath, [WARM_UP, bundle], { timeout: 30_000 });
  };
  const load = (bundle: string) => loadWithCodeCache<{ fail(): never }>(bundle, require, 'all');

  it('hands V8 no cache that is damaged in its middle, cut short, made from another bundle of the same length, or not a cache at all', () => {
    const bundle = path.join(dir(), 'program.js');
    warmedThrower(bundle);
    const cache = `${bundle}.cache`;
    const sealed = readFileSync(cache);
    expect(load(bundle).script.cachedDataRejected, 'as built').to.equal(false);
    const flipped = Buffer.from(sealed);
    flipped[flipped.length >> 1]! ^= 0xff;
    // The same length and source, another build: V8 alone takes such a cache (its header checks the source's length).
    const other = path.join(dir(), 'other.js');
    warmedThrower(other, 2);
    for (const [what, bytes] of [
      ['one byte flipped in its middle', flipped],
      ['cut short', sealed.subarray(0, sealed.length - 8)],
      ["another bundle's", readFileSync(`${other}.cache`)],
      ['not a cache', Buffer.alloc(4096, 7)],
    ] as const) {
      writeFileSync(cache, bytes);
      // No cachedData was given to V8 (with one, V8 sets cachedDataRejected true or false).
      const loaded = load(bundle);
      expect(loaded.script.cachedDataRejected, what).to.equal(undefined);
      expect(() => loaded.exports.fail(), what).to.throw('fail 1');
    }
  });

  it("names a program in stack traces by its file name, not by where the build made its cache (V8 keeps the cache's name)", () => {
    const built = path.join(dir(), 'build-machine');
    const installed = path.join(dir(), 'installed');
    mkdirSync(built);
    mkdirSync(installed);
    warmedThrower(path.join(built, 'program.js'));
    for (const file of ['program.js', 'program.js.cache']) copyFileSync(path.join(built, file), path.join(installed, file));
    const loaded = load(path.join(installed, 'program.js'));
    expect(loaded.script.cachedDataRejected).to.equal(false);
    const stack = (() => {
      try {
        loaded.exports.fail();
      } catch (error) {
        return (error as Error).stack!;
      }
    })();
    expect(stack).to.include('at exports.fail (program.js:1:');
    expect(stack).to.not.include(built);
  });

  it('loads a program read in one call, and one written in UTF-8 beyond ASCII as it is', function () {
    if (!existsSync('/proc/self/io')) this.skip();
    // A bundle's size (esbuild writes ASCII), as dist/taskdag-point.js; read as UTF-8, Node read it 8 KB a call.
    const ascii = path.join(dir(), 'ascii.js');
    writeFileSync(ascii, `exports.text = ${JSON.stringify('x'.repeat(200_000))};\n`);
    const utf8 = path.join(dir(), 'utf8.js');
    writeFileSync(utf8, "exports.text = 'café ✓';\n");
    const script = `
      const { readFileSync } = require('node:fs');
      const reads = () => Number(/syscr: (\\d+)/.exec(readFileSync('/proc/self/io', 'latin1'))[1]);
      const { loadWithCodeCache } = require(${JSON.stringify(require.resolve('../../entrypoints/cli/code-cache.js'))});
      const first = reads();
      const before = reads();
      const { length } = loadWithCodeCache(${JSON.stringify(ascii)}, require).exports.text;
      const after = reads();
      // Less what reading the counter itself reads between two looks.
      process.stdout.write(JSON.stringify({ length, reads: after - before - (before - first), text: loadWithCodeCache(${JSON.stringify(utf8)}, require).exports.text }));`;
    const loaded = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 })) as { length: number; reads: number; text: string };
    expect(loaded).to.deep.equal({ length: 200_000, reads: 1, text: 'café ✓' });
  });

  it("runs a graph read's round without Sparkplug, which marks each function it compiles for Sparkplug again at its first call in every process the cache starts", () => {
    const bundle = path.join(dir(), 'program.js');
    // The round calls `run` twenty times: `step` runs some sixty thousand times, which tiers it up to Sparkplug anywhere else.
    writeFileSync(bundle, 'exports.step = function step(x) { return x + 1; };\nexports.run = async () => { let at = 0; while (at < 3000) at = exports.step(at); };\n');
    const round = JSON.stringify(Array.from({ length: 20 }, () => ['status']));
    const warm = (flags: string[]) => execFileSync(process.execPath, [...flags, WARM_UP, bundle, '--reads', dir(), dir(), '--graph-read', 'status', round], { encoding: 'utf8', timeout: 30_000 });
    const traced = warm(['--trace-baseline-batch-compilation']);
    // The warm-up's own JavaScript (Node's loader, its generator) may tier up before the round starts; the bundle's functions may not.
    expect(traced.split('\n').filter((line) => /Enqueued SFI (step|exports\.run) /.test(line))).to.deep.equal([]);
    // The flags are as the process started again when the cache is made (V8 rejects a cache made under other flags): made by a warm-up started with none, a process started with none takes it.
    warm([]);
    expect(loadWithCodeCache<{ step(x: number): number }>(bundle, require, 'status').script.cachedDataRejected).to.equal(false);
  });

  it('is the reads\' cache for a command line whose command only reads the graph, after any global flags', () => {
    const reads = new Set(['show', 'status']);
    expect(codeCacheFor(['show', 'T-1'], reads)).to.equal('reads');
    expect(codeCacheFor(['--project', 'p', '--no-warnings', 'status', '--limit', '3'], reads)).to.equal('reads');
    expect(codeCacheFor(['--as=show', 'status'], reads)).to.equal('reads');
    expect(codeCacheFor(['take', 'show'], reads)).to.equal('all');
    expect(codeCacheFor(['--as', 'show', 'take', 'T-1'], reads)).to.equal('all');
    expect(codeCacheFor([], reads)).to.equal('all');
  });
});
