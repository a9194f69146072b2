// The web board on large projects (issue 13): for 1k and 10k nodes, how long the project's board
// takes to open in headless Chromium (navigation to the columns drawn and the live stream open,
// with where that time went: the script, the snapshot's request, the first card; and the CPU
// time it cost, which a loaded machine changes less: the page's main thread and the ui process),
// the graph view focused on a node, a filter and a change of focus inside the open page, the page's JavaScript heap and the `taskdag ui` process's
// resident memory, and how long a command-line change takes to show on the open board.
// Runs the real binary and Debian's chromium (scripts/ensure-package.sh installs it).
// Usage: npm run bench:board  (after npm run build); `-- --runs N` (default 3).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { startBoard, filterTime } from './board-driver.mjs';
import { writeProject, WORKER } from './generate.mjs';
import { cpuMsOf } from './server-driver.mjs';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const BINARY = path.join(ROOT, 'dist', 'taskdag.js');
const SIZES = [1_000, 10_000];
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;

execFileSync('/bin/sh', [path.join(ROOT, 'scripts/ensure-package.sh'), '/usr/bin/chromium', 'chromium'], { stdio: 'inherit' });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mib = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;

function residentBytes(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match[1]) * 1024;
}

async function measure(browser, project, board) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(120_000);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.addInitScript(markFirstCard);
  const serverCpuBefore = cpuMsOf(board.child.pid);
  const started = performance.now();
  await page.goto(board.line.project_url);
  await page.locator('[data-column="ready"] li.card').first().waitFor();
  await page.locator('[data-live="live"]').waitFor();
  const openMs = performance.now() - started;
  const serverCpuMs = cpuMsOf(board.child.pid) - serverCpuBefore;
  const phases = await openPhases(page);
  const { metrics } = await cdp.send('Performance.getMetrics');
  // The page's main thread busy time over the open (the page is new: it starts at zero).
  const pageCpuMs = metrics.find((metric) => metric.name === 'TaskDuration').value * 1000;
  const heap = metrics.find((metric) => metric.name === 'JSHeapUsedSize').value;
  const filterMs = await filterTime(page, 'init-1');

  const graphStarted = performance.now();
  await page.goto(`${board.line.project_url}/graph?focus=${encodeURIComponent(project.sample.task)}`);
  await page.locator('.graph-node.focused').waitFor();
  const graphMs = performance.now() - graphStarted;
  const drawn = Number(await page.locator('.graph-scope').getAttribute('data-drawn'));
  const focusMs = await focusTime(page, project.sample.task);

  await context.close();
  return { openMs, heap, graphMs, drawn, filterMs, focusMs, phases, pageCpuMs, serverCpuMs };
}

/** In the page before its script runs: a performance mark when the first card is in the document. */
function markFirstCard() {
  new MutationObserver((_, observer) => {
    if (!document.querySelector('[data-column="ready"] li.card')) return;
    performance.mark('first-card');
    observer.disconnect();
  }).observe(document, { childList: true, subtree: true });
}

/**
 * Where an open's time went, in the page's clock (ms from navigation start): the board's script
 * run (DOMContentLoaded), the snapshot's request and its last byte, the first card drawn.
 */
function openPhases(page) {
  return page.evaluate(() => {
    const snapshot = performance.getEntriesByType('resource').find((entry) => entry.name.endsWith('/ui/snapshot'));
    const [navigation] = performance.getEntriesByType('navigation');
    const [card] = performance.getEntriesByName('first-card');
    return { script: navigation.domContentLoadedEventEnd, snapshot_asked: snapshot.startTime, snapshot_received: snapshot.responseEnd, first_card: card.startTime };
  });
}

async function focusTime(page, from) {
  const other = await page.locator(`.graph-node:not([data-node="${from}"])`).last().getAttribute('data-node');
  return page.evaluate(async (id) => {
    const field = document.querySelector('input[name="focus"]');
    const started = performance.now();
    field.value = id;
    field.dispatchEvent(new Event('change', { bubbles: true }));
    await new Promise((resolve) => {
      const check = () => (document.querySelector(`.graph-node.focused[data-node="${CSS.escape(id)}"]`) ? requestAnimationFrame(() => resolve()) : requestAnimationFrame(check));
      check();
    });
    return performance.now() - started;
  }, other);
}

/** From the end of a `take` on the command line to the task in the open board's in-progress column. */
async function liveLatency(browser, project, board, task) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(120_000);
  // Searched for, so the card is in the first page of its column whatever the column holds.
  await page.goto(`${board.line.project_url}?q=${encodeURIComponent(task)}`);
  await page.locator('[data-live="live"]').waitFor();
  await page.locator(`[data-column="ready"] li.card[data-node="${task}"]`).waitFor();
  execFileSync(process.execPath, [BINARY, 'take', task, '--as', WORKER], { cwd: project.checkout, env: { ...process.env, ...project.env } });
  const done = performance.now();
  await page.locator(`[data-column="in_progress"] li.card[data-node="${task}"]`).waitFor();
  const latency = performance.now() - done;
  await context.close();
  return latency;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'taskdag-board-bench-'));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
const results = [];
try {
  for (const size of SIZES) {
    const project = await writeProject(path.join(dir, String(size)), `board-${size}`, { size, logEntries: size, poolSize: 50 });
    const board = await startBoard(BINARY, project);
    try {
      const runs = [];
      for (let run = 0; run < RUNS; run++) runs.push(await measure(browser, project, board));
      const latencies = [];
      for (let run = 0; run < RUNS; run++) latencies.push(await liveLatency(browser, project, board, project.pools.take[run]));
      const result = {
        nodes: project.nodes,
        open_ms: Math.round(median(runs.map((run) => run.openMs))),
        graph_focus_ms: Math.round(median(runs.map((run) => run.graphMs))),
        open_page_main_thread_ms: Math.round(median(runs.map((run) => run.pageCpuMs))),
        open_ui_process_cpu_ms: Math.round(median(runs.map((run) => run.serverCpuMs))),
        open_phases_ms: Object.fromEntries(Object.keys(runs[0].phases).map((phase) => [phase, Math.round(median(runs.map((run) => run.phases[phase])))])),
        filter_ms: Math.round(median(runs.map((run) => run.filterMs))),
        refocus_ms: Math.round(median(runs.map((run) => run.focusMs))),
        graph_nodes_drawn: runs[0].drawn,
        page_heap_mib: mib(median(runs.map((run) => run.heap))),
        ui_process_rss_mib: mib(residentBytes(board.child.pid)),
        live_update_ms: Math.round(median(latencies)),
        live_update_max_ms: Math.round(Math.max(...latencies)),
      };
      results.push(result);
      console.log(JSON.stringify(result));
    } finally {
      board.child.kill('SIGTERM');
    }
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench', 'results', 'board.json'), JSON.stringify({ runs: RUNS, results }, null, 2) + '\n');
