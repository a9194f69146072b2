// Type-checks and compiles everything (sources and tests) into build/, then bundles the CLI into
// one file, dist/taskdag.js, so that a command loads a single script instead of a module tree.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, chmodSync } from 'node:fs';
import { build } from 'esbuild';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync('build', { recursive: true, force: true });
try {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
} catch {
  console.error('build: the type check failed (errors above)');
  process.exit(1);
}

await build({
  entryPoints: ['entrypoints/cli/bin.ts'],
  outfile: 'dist/taskdag.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  // A native addon cannot be bundled; it is loaded from node_modules on first lock.
  external: ['fs-ext'],
  define: { TASKDAG_VERSION: JSON.stringify(version) },
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
chmodSync('dist/taskdag.js', 0o755);
