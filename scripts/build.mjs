// Type-checks and compiles everything (sources and tests) into build/, bundles the library
// (dist/library.js with its declarations in dist/types/), and bundles the CLI in
// files: dist/taskdag-cli.js, the whole program in one script (a command loads one file, not
// a module tree) with its V8 code caches beside it; dist/taskdag-reads.js, the graph reads'
// program (what `show` or `status` in plain words loads) with its own; dist/taskdag-point.js, the
// point commands' program (what `update T-1 --title x` or `take T-1` loads) with one for each
// command it serves; and dist/taskdag.js, the
// executable: a few lines that answer --version and --help (dist/taskdag-help.txt) from text fixed
// here and load a program only for a real command; and dist/taskdag-mcp.js, the MCP server that only
// `taskdag mcp` loads. Start-up is what an agent pays on every call: see BENCHMARKS.md.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { clipanionPatched } from './clipanion-patches.mjs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const PROGRAM = 'dist/taskdag-cli.js';
const GRAPH_READS_PROGRAM = 'dist/taskdag-reads.js';
const POINT_PROGRAM = 'dist/taskdag-point.js';

rmSync('build', { recursive: true, force: true });
rmSync('dist/types', { recursive: true, force: true });
try {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
} catch {
  console.error('build: the type check failed (errors above)');
  process.exit(1);
}

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: process.env.NO_MINIFY !== "1",
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
};

/**
 * `server run` loads the server's runtime from its own bundle, dist/taskdag-server.js: koa stays
 * out of every other command's start-up, and the server is built without the CLI's synchronous
 * stand-ins (the alias below), so its event loop never blocks on them.
 */
const serverRuntimeApart = {
  name: 'server-runtime-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/server\/run-server\.js$/ }, () => ({ path: './taskdag-server.js', external: true }));
  },
};

/**
 * A Node built-in that a file imports by default only (`import path from 'node:path'`) is bundled
 * as the plain module. esbuild's interop for a default import (__toESM) copies every export of the
 * module onto a new object, once for each importing file: some twenty copies, about half a
 * millisecond of every command's start-up (BENCHMARKS.md). Named imports keep esbuild's handling.
 */
const builtinDefaultsAsIs = {
  name: 'builtin-defaults-as-is',
  setup(build) {
    build.onResolve({ filter: /^node:/ }, ({ path, importer, kind }) =>
      kind === 'import-statement' && importsDefaultOnly(importer, path) ? { path, namespace: 'builtin-default' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin-default' }, ({ path }) => ({
      contents: `export default require(${JSON.stringify(path)});`,
      resolveDir: process.cwd(),
    }));
  },
};

/**
 * The graph reads' program is bundled with the project's own modules taken as free of side effects
 * when loaded, which they are (none registers or patches anything on import): esbuild then leaves
 * out every module the program does not use, such as the list of every operation that
 * entrypoints/compose.ts holds for its other callers. A module the program uses is kept whole.
 */
const projectModulesPure = {
  name: 'project-modules-pure',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, async ({ path, importer, resolveDir, kind, pluginData }) => {
      if (pluginData?.pure || importer.includes('node_modules')) return undefined;
      const resolved = await build.resolve(path, { importer, resolveDir, kind, pluginData: { pure: true } });
      return resolved.errors.length > 0 ? resolved : { ...resolved, sideEffects: false };
    });
  },
};

/** Whether every import of `specifier` in the file `importer` is a default import. */
function importsDefaultOnly(importer, specifier) {
  const clauses = [...readFileSync(importer, 'utf8').matchAll(/^import\s+([^'"]*?)\s+from\s+['"]([^'"]+)['"]/gm)]
    .filter(([, , from]) => from === specifier)
    .map(([, clause]) => clause);
  return clauses.length > 0 && clauses.every((clause) => /^[A-Za-z_$][\w$]*$/.test(clause));
}

/**
 * typanion (the argument validators, application/args.ts) bundled from its ES module build, which
 * its package ships beside the CommonJS one its `main` names: esbuild then keeps only the validators
 * the program uses, in the program's own scope. From the CommonJS build, every command ran the whole
 * library's module body and esbuild's interop (__toESM) copied its hundred-odd exports, one getter
 * each, onto a new object as the program loaded: about 0.6 M instructions of each start-up.
 */
const typanionAsModule = { typanion: 'typanion/lib/index.mjs' };

/**
 * A define of a WebAssembly module's bytes, assembled by `assemble` of build/adapters/`file`.js: a
 * string of base64, which costs nothing until it is decoded, and whose `typeof` esbuild folds, so
 * that a bundle keeps no code to assemble the module. A list of numbers is hoisted by esbuild to
 * the bundle's top level, made by every command that loads it, and leaves the assembly code in.
 */
const assembledModule = (file, assemble) => JSON.stringify(Buffer.from(createRequire(import.meta.url)(`../build/adapters/${file}.js`)[assemble]()).toString('base64'));

/**
 * A program of the CLI: a native addon cannot be bundled (fs-ext is loaded from node_modules on
 * first lock); tweetnacl serves only `server init` here, so left in node_modules it costs other
 * commands nothing; the CLI's file I/O is synchronous, where graceful-fs adds nothing but its
 * load cost.
 */
const cliProgram = (entry, outfile, plugins) =>
  build({
    ...common,
    entryPoints: [entry],
    outfile,
    external: ['fs-ext', 'tweetnacl'],
    alias: { 'graceful-fs': './entrypoints/cli/sync-fs.ts', ...typanionAsModule },
    plugins: [...plugins, serverRuntimeApart, builtinDefaultsAsIs],
    // The CRC-32 module (adapters/crc32-wasm.ts), assembled here once rather than by every command that checks a record,
    // and the stale-claim alerts' (adapters/claim-alerts-wasm.ts), rather than by every `status`.
    define: {
      TASKDAG_VERSION: JSON.stringify(version),
      TASKDAG_CRC32_MODULE: JSON.stringify([...createRequire(import.meta.url)('../build/adapters/crc32-wasm.js').crc32Module()]),
      TASKDAG_CLAIM_ALERTS_MODULE: assembledModule('claim-alerts-wasm', 'claimAlertsModule'),
    },
  });

await cliProgram('entrypoints/cli/program.ts', PROGRAM, [clipanionPatched]);
// The graph reads' program (entrypoints/cli/graph-reads.ts): what `show T-1` or `status` loads.
await cliProgram('entrypoints/cli/graph-reads.ts', GRAPH_READS_PROGRAM, [projectModulesPure]);
// The point commands' program (entrypoints/cli/point-commands.ts): what `update T-1 --title x` or `take T-1` loads.
await cliProgram('entrypoints/cli/point-commands.ts', POINT_PROGRAM, [projectModulesPure]);
// Each program ends with its stamp, which its code caches are sealed with (entrypoints/cli/code-cache.ts).
const { stampBundle } = createRequire(import.meta.url)('../build/entrypoints/cli/code-cache.js');
for (const program of [PROGRAM, GRAPH_READS_PROGRAM, POINT_PROGRAM]) writeFileSync(program, stampBundle(readFileSync(program)));

await build({
  ...common,
  entryPoints: ['entrypoints/server/run-server.ts'],
  outfile: 'dist/taskdag-server.js',
  // node-postgres is required on first use, by a server whose store is PostgreSQL only.
  external: ['fs-ext', 'pg'],
});

// Compiled by a fresh Node after the program has run typical commands, and by another after it
// has run only reads of the graph (scripts/code-cache.mjs; entrypoints/cli/code-cache.ts).
// The commands the graph reads' program serves, each with a code cache of its own.
const graphReads = createRequire(import.meta.url)('../build/entrypoints/cli/graph-reads.js').GRAPH_READS.map((operation) => operation.name);
const pointCommands = createRequire(import.meta.url)('../build/entrypoints/cli/point-commands.js').POINT_COMMANDS.map((operation) => operation.name);
// Every code cache in dist/ is this build's: an earlier build's would not pass its seal, and one
// of a program or command that is gone (the reads' cache all graph reads once shared, the cache all
// point commands once shared) would be left for tests and installs to find.
const codeCaches = () => readdirSync('dist').filter((file) => file.endsWith('.cache')).sort();
for (const file of codeCaches()) rmSync(path.join('dist', file));
execFileSync(process.execPath, ['scripts/code-cache.mjs', PROGRAM, GRAPH_READS_PROGRAM, POINT_PROGRAM], { stdio: ['ignore', 'ignore', 'inherit'] });
const expectedCaches = [`${PROGRAM}.cache`, `${PROGRAM}.reads.cache`, ...graphReads.map((command) => `${GRAPH_READS_PROGRAM}.${command}.cache`), ...pointCommands.map((command) => `${POINT_PROGRAM}.${command}.cache`)]
  .map((cache) => path.basename(cache))
  .sort();
if (codeCaches().join() !== expectedCaches.join()) {
  throw new Error(`build: the code caches written are not the programs' and commands': [${codeCaches().join(', ')}], expected [${expectedCaches.join(', ')}]`);
}
// The loader reads no more of a cache than MOST_CACHE_BYTES (entrypoints/cli/code-cache.ts): a cache above it would never be used.
const { MOST_CACHE_BYTES } = createRequire(import.meta.url)('../build/entrypoints/cli/code-cache.js');
const oversized = codeCaches().filter((file) => statSync(path.join('dist', file)).size > MOST_CACHE_BYTES);
if (oversized.length > 0) throw new Error(`build: code caches above the loader's ${MOST_CACHE_BYTES} bytes: ${oversized.join(', ')}`);

// The commands that start from the reads' cache: the operations that only read a project's graph.
const { OPERATIONS } = createRequire(import.meta.url)('../build/application/operations/index.js');
const readCommands = OPERATIONS.filter((operation) => operation.scope === 'graph' && !operation.mutates).map((operation) => operation.name);

// The help text is the program's own answer to `--help`, so the executable cannot drift from it.
// It is a file of its own beside the executable, read only for `--help`: Node compiles the whole
// executable before any command runs.
const help = execFileSync(process.execPath, ['-e', `require(${JSON.stringify(`./${PROGRAM}`)}).run(['--help'])`], { encoding: 'utf8' });
if (!help.includes('taskdag')) throw new Error(`build: unexpected --help output from ${PROGRAM}:\n${help}`);
writeFileSync('dist/taskdag-help.txt', help);

await build({
  ...common,
  entryPoints: ['entrypoints/cli/bin.ts'],
  outfile: 'dist/taskdag.js',
  // Its map is written beside it but not named in it: Node's loader compiles its source-map code
  // for a main file that names a map, on every command (about 0.3 M instructions, BENCHMARKS.md).
  sourcemap: 'external',
  plugins: [builtinDefaultsAsIs],
  define: {
    // The code caches' checksum module, assembled here once rather than at every start-up.
    TASKDAG_LANE_CHECKSUM_MODULE: assembledModule('lane-checksum', 'laneChecksumModule'),
    TASKDAG_VERSION: JSON.stringify(version), TASKDAG_READ_COMMANDS: JSON.stringify(readCommands), TASKDAG_GRAPH_READS: JSON.stringify(graphReads), TASKDAG_POINT_COMMANDS: JSON.stringify(pointCommands),
  },
  banner: { js: '#!/usr/bin/env node' },
});
chmodSync('dist/taskdag.js', 0o755);

/** A bundle that runs the operations on the files: the store's native addon stays in node_modules. */
const operationsBundle = (entry, outfile) =>
  build({ ...common, entryPoints: [entry], outfile, external: ['fs-ext'], plugins: [serverRuntimeApart], define: { TASKDAG_VERSION: JSON.stringify(version) } });

// The MCP server (`taskdag mcp`) and the MCP SDK, loaded by that command alone so that no other
// command pays for them. It runs for a whole session, so it keeps graceful-fs and needs no code cache.
await operationsBundle('entrypoints/mcp/server.ts', 'dist/taskdag-mcp.js');

// The library (`require('taskdag')`): the same operations in process, and their types.
await operationsBundle('entrypoints/library/index.ts', 'dist/library.js');
try {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.library.json'], { stdio: 'inherit' });
} catch {
  console.error('build: the library declarations failed (errors above)');
  process.exit(1);
}
