// Type-checks and compiles everything (sources and tests) into build/, then bundles the CLI in
// two files: dist/taskdag-cli.js, the whole program in one script (a command loads one file, not
// a module tree), and dist/taskdag.js, the executable: a few lines that answer --version and
// --help from text fixed here and load the program only for a real command.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, chmodSync } from 'node:fs';
import { build } from 'esbuild';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const PROGRAM = 'dist/taskdag-cli.js';

rmSync('build', { recursive: true, force: true });
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
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: ['entrypoints/cli/program.ts'],
  outfile: PROGRAM,
  // A native addon cannot be bundled; it is loaded from node_modules on first lock.
  external: ['fs-ext'],
  define: { TASKDAG_VERSION: JSON.stringify(version) },
});

// The help text is the program's own answer to `--help`, so the executable cannot drift from it.
const help = execFileSync(process.execPath, ['-e', `require(${JSON.stringify(`./${PROGRAM}`)}).run(['--help'])`], { encoding: 'utf8' });
if (!help.includes('taskdag')) throw new Error(`build: unexpected --help output from ${PROGRAM}:\n${help}`);

await build({
  ...common,
  entryPoints: ['entrypoints/cli/bin.ts'],
  outfile: 'dist/taskdag.js',
  external: ['./taskdag-cli.js'],
  define: { TASKDAG_VERSION: JSON.stringify(version), TASKDAG_HELP: JSON.stringify(help) },
  banner: { js: '#!/usr/bin/env node' },
});
chmodSync('dist/taskdag.js', 0o755);
