// Builds the board into dist/: one hashed script and stylesheet under dist/assets/ (served as
// immutable) and dist/index.html naming them (served no-cache), after a strict type check.
// The output replaces dist/ whole, so a stale asset never lingers.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const here = path.dirname(new URL(import.meta.url).pathname);
const out = path.join(here, 'dist');
const staging = path.join(here, 'dist.next');

try {
  execFileSync(process.execPath, [path.join(here, 'node_modules/typescript/bin/tsc'), '-p', path.join(here, 'tsconfig.json')], { stdio: 'inherit' });
} catch {
  console.error('ui build: the type check failed (errors above)');
  process.exit(1);
}

rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
await build({
  entryPoints: { board: path.join(here, 'src/main.tsx') },
  outdir: path.join(staging, 'assets'),
  entryNames: '[name]-[hash]',
  bundle: true,
  format: 'esm',
  target: 'es2022',
  // NO_MINIFY=1 keeps the names, for a CPU profile of the board in Chromium.
  minify: !process.env.NO_MINIFY,
  sourcemap: 'linked',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'warning',
});
const assets = readdirSync(path.join(staging, 'assets'));
const script = assets.find((name) => /^board-.*\.js$/.test(name));
const style = assets.find((name) => /^board-.*\.css$/.test(name));
if (!script || !style) throw new Error(`ui build: expected a script and a stylesheet, got ${assets.join(', ')}`);
writeFileSync(
  path.join(staging, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>taskdag board</title>
<link rel="stylesheet" href="/assets/${style}">
<script type="module" src="/assets/${script}"></script>
</head>
<body><div id="app"></div></body>
</html>
`,
);
rmSync(out, { recursive: true, force: true });
renameSync(staging, out);
