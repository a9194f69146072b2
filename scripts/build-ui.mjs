// Builds the web board (ui/, a sub-project with its own package.json and lockfile, not in the
// published package) into ui/dist, where `taskdag ui` and `server run` serve it from. Installs the
// sub-project's dependencies with `npm ci` first when they are missing or older than its lockfile,
// so the README's two commands set everything up. `npm run build` ends with this script.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

const ui = path.resolve(new URL('..', import.meta.url).pathname, 'ui');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

if (!existsSync(path.join(ui, 'package.json'))) {
  console.error(`build-ui: no ui/ sub-project at ${ui}: the web board is built from taskdag's source repository`);
  process.exit(1);
}
const installed = path.join(ui, 'node_modules', '.package-lock.json');
const lock = path.join(ui, 'package-lock.json');
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  execFileSync(npm, ['ci', '--prefix', ui, '--no-audit', '--no-fund'], { stdio: ['ignore', 'inherit', 'inherit'] });
}
try {
  execFileSync(process.execPath, [path.join(ui, 'build.mjs')], { stdio: ['ignore', 'inherit', 'inherit'] });
} catch {
  console.error('build-ui: the board did not build (errors above)');
  process.exit(1);
}
