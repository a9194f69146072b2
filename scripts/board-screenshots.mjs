// Writes the screenshots of the board's views that docs/board.md shows (docs/board-*.png), so they
// never go stale: rerun it after changing the board. Builds a small story project and a 200-task
// one with the real binary in a temp dir, serves them with `taskdag ui`, and photographs them in
// headless Chromium, light and dark. test/e2e/board-screenshots.spec.ts runs it into a temp dir
// and checks it makes exactly the files docs/board.md shows. After `npm run build`:
//   npm run screenshots            (or: node scripts/board-screenshots.mjs [--out <dir>])
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const BINARY = path.join(ROOT, 'dist', 'taskdag.js');
const outArg = process.argv.indexOf('--out');
const OUT = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(ROOT, 'docs');

execFileSync('/bin/sh', [path.join(ROOT, 'scripts/ensure-package.sh'), '/usr/bin/chromium', 'chromium'], { stdio: 'inherit' });
const dir = mkdtempSync(path.join(os.tmpdir(), 'taskdag-shots-'));
const checkout = path.join(dir, 'shop');
mkdirSync(checkout);
const env = { ...process.env, HOME: dir, TASKDAG_HOME: path.join(dir, 'home') };
const taskdag = (...args) => JSON.parse(execFileSync(process.execPath, [BINARY, ...args], { cwd: checkout, env, encoding: 'utf8' }));

const { project_id: project } = taskdag('init');
const as = ['--as', 'alice'];
taskdag('add-initiative', 'billing', '--desc', 'Invoices and payments', ...as);
taskdag('add-initiative', 'search', '--desc', 'Product search', ...as);
const task = (id, initiative, title, blockedBy, ...extra) =>
  taskdag('add-task', id, '--initiative', initiative, '--title', title, '--body', `${title}: the details`, '--acceptance', 'Reviewed and tested', '--blocked-by', blockedBy, ...extra, ...as);
taskdag('add-gate', 'G-schema', '--initiative', 'billing', '--title', 'Choose the invoice schema', '--body', 'Two candidates', '--purpose', 'Pick one', ...as);
task('T-invoice-schema', 'billing', 'Draft invoice schema', '', '--domain', 'backend', '--tags', 'api,schema');
task('T-invoice-api', 'billing', 'Invoice API', 'T-invoice-schema,G-schema', '--domain', 'backend', '--tags', 'api');
task('T-invoice-pdf', 'billing', 'Render invoices as PDF', 'T-invoice-api', '--domain', 'frontend');
task('T-refunds', 'billing', 'Refund flow', 'T-invoice-api');
taskdag('add-gate', 'G-schema-v2', '--initiative', 'billing', '--title', 'Choose the schema again', '--body', 'Revisited', '--purpose', 'Pick again', '--supersedes', 'G-schema', ...as);
task('T-tax', 'billing', 'Tax rules per country', '', '--domain', 'backend');
task('T-index', 'search', 'Build the search index', '', '--domain', 'backend', '--tags', 'search');
task('T-ranking', 'search', 'Ranking by relevance', 'T-index', '--domain', 'backend');
task('T-typo', 'search', 'Typo tolerance', 'T-index');
task('T-ui-search', 'search', 'Search box in the shop', '', '--domain', 'frontend');
task('T-later', 'search', 'Voice search', '');
taskdag('update', 'T-later', '--backlog', 'true', ...as);
taskdag('add-knowledge', 'K-cents', '--initiative', 'billing', '--title', 'Money is integer cents', '--body', 'Never floats: store and compute amounts in cents', '--scope-domains', 'backend', ...as);
taskdag('take', 'T-tax', '--as', 'bob');
taskdag('take', 'T-index', '--as', 'carol');
taskdag('submit', 'T-index', '--note', 'Index built, 2M documents in 40 s', '--as', 'carol');
taskdag('take', 'T-ui-search', '--as', 'dana');
taskdag('submit', 'T-ui-search', '--note', 'Done with tests', '--as', 'dana');
taskdag('accept', 'T-ui-search', '--as', 'alice');
taskdag('add-note', 'T-invoice-api', 'Waits for the schema decision', ...as);

// A second project of 200 tasks, each blocked by up to two of the ten before it: the graph at size.
const platform = path.join(dir, 'platform');
mkdirSync(platform);
const inPlatform = (...args) => JSON.parse(execFileSync(process.execPath, [BINARY, ...args], { cwd: platform, env, encoding: 'utf8' }));
const { project_id: big } = inPlatform('init');
inPlatform('add-initiative', 'platform', '--desc', 'The platform rebuild', ...as);
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const bigId = (index) => `T-${String(index).padStart(3, '0')}`;
const operations = Array.from({ length: 200 }, (_, index) => {
  const blockers = new Set();
  for (let pick = 0; pick < 2 && index > 0; pick++) if (random() < 0.7) blockers.add(bigId(Math.max(0, index - 1 - Math.floor(random() * 10))));
  return { op: 'add-task', args: { id: bigId(index), initiative: 'platform', title: `Platform step ${index}`, body: 'b', acceptance: 'a', blocked_by: [...blockers] } };
});
writeFileSync(path.join(platform, 'plan.json'), JSON.stringify({ operations }));
inPlatform('batch', '--file', 'plan.json', ...as);

const board = spawn(process.execPath, [BINARY, 'ui', '--port', '0', '--open=false'], { cwd: checkout, env, stdio: ['ignore', 'pipe', 'inherit'] });
const line = await new Promise((resolve) => {
  let out = '';
  board.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
  });
});
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
try {
  mkdirSync(OUT, { recursive: true });
  const shoot = async (name, url, ready, { scheme = 'light', act = async () => {} } = {}) => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, colorScheme: scheme });
    await page.goto(url);
    await page.locator(ready).first().waitFor();
    await act(page);
    await page.screenshot({ path: path.join(OUT, `board-${name}.png`) });
    await page.close();
  };
  const graph = `${line.project_url}/graph`;
  await shoot('catalog', line.url, `tr[data-project="${project}"]`);
  await shoot('columns', line.project_url, '[data-column="ready"] li.card');
  await shoot('gates', `${line.project_url}/gates`, '.gates li.card');
  await shoot('graph', graph, '.graph-node');
  await shoot('graph-selected', graph, '.graph-node', { act: (page) => page.locator('.graph-node[data-node="T-invoice-api"]').click() });
  await shoot('graph-200', `${line.url}projects/${big}/graph`, '.graph-node');
  await shoot('node', `${line.project_url}/nodes/T-invoice-api`, 'article.node-detail section[aria-label="History"] li');
  await shoot('columns-dark', line.project_url, '[data-column="ready"] li.card', { scheme: 'dark' });
  await shoot('graph-dark', graph, '.graph-node', { scheme: 'dark' });
} finally {
  await browser.close();
  board.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
