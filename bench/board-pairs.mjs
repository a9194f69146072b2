// The web board against another build of it, in interleaved pairs (BENCHMARKS.md, issue 27): two
// `taskdag ui` processes, this checkout's and another's (its dist/ and ui/dist built), serve one
// generated project; each pair opens a fresh page on both, alternating which goes first, and
// measures the open (columns drawn, live stream open), the ui process's CPU over it, the page's
// main-thread task time, and the median of three initiative filters in the open page.
// Usage (after npm run build here and there):
//   node bench/board-pairs.mjs <other checkout> [--size 10000] [--pairs 10]
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { startBoard, filterTime } from './board-driver.mjs';
import { writeProject } from './generate.mjs';
import { cpuMsOf } from './server-driver.mjs';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const option = (name, fallback) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const OTHER = process.argv[2] && !process.argv[2].startsWith('--') ? path.resolve(process.argv[2]) : null;
if (!OTHER) {
  console.error('usage: node bench/board-pairs.mjs <other checkout> [--size N] [--pairs N]');
  process.exit(2);
}
const SIZE = option('--size', 10_000);
const PAIRS = option('--pairs', 10);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function openOnce(browser, board, initiatives) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(120_000);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const cpuBefore = cpuMsOf(board.child.pid);
  const started = performance.now();
  await page.goto(board.line.project_url);
  await page.locator('[data-column="ready"] li.card').first().waitFor();
  await page.locator('[data-live="live"]').waitFor();
  const open = performance.now() - started;
  const uiCpu = cpuMsOf(board.child.pid) - cpuBefore;
  const pageTasks = (await cdp.send('Performance.getMetrics')).metrics.find((metric) => metric.name === 'TaskDuration').value * 1000;
  const filters = [];
  for (const initiative of initiatives) filters.push(await filterTime(page, initiative));
  await context.close();
  return { open, filter: median(filters), ui_cpu: uiCpu, page_tasks: pageTasks };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'taskdag-board-pairs-'));
const project = await writeProject(path.join(dir, 'project'), `board-${SIZE}`, { size: SIZE, logEntries: SIZE, poolSize: 50 });
const boards = { other: await startBoard(path.join(OTHER, 'dist', 'taskdag.js'), project), this: await startBoard(path.join(ROOT, 'dist', 'taskdag.js'), project) };
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
// The generator makes at least three initiatives, init-0 to init-2.
const initiatives = ['init-1', 'init-2', 'init-0'];
try {
  // One open each first: each process reads the project and builds its first snapshot.
  for (const board of Object.values(boards)) await openOnce(browser, board, initiatives);
  const rows = { other: [], this: [] };
  for (let pair = 0; pair < PAIRS; pair++) {
    for (const which of pair % 2 ? ['this', 'other'] : ['other', 'this']) rows[which].push(await openOnce(browser, boards[which], initiatives));
  }
  const result = { nodes: SIZE, pairs: PAIRS, other: OTHER, load_average: os.loadavg().map((load) => Math.round(load * 10) / 10) };
  for (const key of ['open', 'filter', 'ui_cpu', 'page_tasks']) {
    const ratios = rows.this.map((row, index) => row[key] / Math.max(rows.other[index][key], 1));
    result[`${key}_ms`] = { other: Math.round(median(rows.other.map((row) => row[key]))), this: Math.round(median(rows.this.map((row) => row[key]))), median_ratio: Math.round(median(ratios) * 100) / 100 };
  }
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
  for (const board of Object.values(boards)) board.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
