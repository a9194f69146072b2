// Run by the build in a fresh Node (same V8 flags as a real start-up): loads the bundled program
// the way dist/taskdag.js does, runs a round of typical commands in a scratch project so that
// V8 compiles the functions they use, and stores the resulting code cache next to the bundle.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { codeCacheFile, loadWithCodeCache } = require('../build/entrypoints/cli/code-cache.js');

const program = path.resolve(process.argv[2]);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-code-cache-'));
const as = ['--as', 'build'];
const task = (id, blockedBy) => ['add-task', id, '--initiative', 'warm', '--title', id, '--body', 'b', '--acceptance', 'a', '--blocked-by', blockedBy, ...as];
// Commands this build lacks answer UNKNOWN_COMMAND and cost nothing; listing them means the
// cache covers them as soon as they exist.
const COMMANDS = [
  ['init'],
  ['add-initiative', 'warm', ...as],
  task('T-a', ''),
  task('T-b', 'T-a'),
  ['add-gate', 'G-a', '--initiative', 'warm', '--title', 'G', '--body', 'b', '--purpose', 'p', ...as],
  ['add-knowledge', 'K-a', '--initiative', 'warm', '--title', 'K', '--body', 'b', '--scope-domains', 'x', ...as],
  ['add-edge', 'G-a', 'T-b', '--type', 'BLOCKS', ...as],
  ['show', 'T-b'],
  ['show', 'T-missing'],
  ['status'],
  ['context', 'T-b', ...as],
  ['search', 'K'],
  ['take', 'T-a', ...as],
  ['submit', 'T-a', '--note', 'n', ...as],
  ['accept', 'T-a', '--as', 'reviewer'],
  ['update', 'T-b', '--title', 't', ...as],
  ['state'],
  ['add-task', '--help'],
];

try {
  const checkout = path.join(scratch, 'checkout');
  mkdirSync(checkout);
  process.chdir(checkout);
  process.env.TASKDAG_HOME = path.join(scratch, 'home');
  delete process.env.TASKDAG_AGENT;
  // Never from the previous build's cache: V8 accepts a cache whose source merely has the same
  // length, so a new bundle as long as the old one would run, and re-cache, the old code.
  rmSync(codeCacheFile(program), { force: true });
  const { exports, script } = loadWithCodeCache(program, require);
  for (const argv of COMMANDS) await exports.run(argv);
  writeFileSync(codeCacheFile(program), script.createCachedData());
  process.exitCode = 0;
} finally {
  process.chdir(os.tmpdir());
  rmSync(scratch, { recursive: true, force: true });
}
