import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { eventually } from '../support/browser.js';
import { Sandbox } from '../support/cli.js';
import { startLocalBoard, storyInBrowser } from '../support/local-board.js';
import type { RunningServer } from '../support/server-process.js';

const LONG_TITLE = 'Reconcile the ledger of refunds with the payment provider every night';

/** Each drawn node's id and class list. */
async function drawnNodes(page: Page): Promise<Record<string, string>> {
  return Object.fromEntries(await page.locator('.graph-node').evaluateAll((nodes) => nodes.map((node) => [node.getAttribute('data-node'), node.getAttribute('class')])));
}

/** The scale the graph is drawn at. */
async function scale(page: Page): Promise<number> {
  return Number(await page.locator('.zoom [data-scale]').getAttribute('data-scale'));
}

/**
 * 200 tasks in one initiative, each blocked by up to two of the ten before it (a fixed pseudo-random
 * choice), so the layout has long edges that cross ranks: what made the graph unreadable.
 */
function twoHundredTasks(): { operations: unknown[] } {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const id = (index: number) => `T-${String(index).padStart(3, '0')}`;
  const operations = Array.from({ length: 200 }, (_, index) => {
    const blockers = new Set<string>();
    for (let pick = 0; pick < 2 && index > 0; pick++) if (next() < 0.7) blockers.add(id(Math.max(0, index - 1 - Math.floor(next() * 10))));
    return { op: 'add-task', args: { id: id(index), initiative: 'bulk', title: `Task number ${index} of the bulk plan`, body: 'b', acceptance: 'a', blocked_by: [...blockers] } };
  });
  return { operations };
}

describe('the board graph in Chromium: routed edges, colours, legend, zoom, critical path and blocked chain', function () {
  this.timeout(180_000);
  const story = storyInBrowser(async (sandbox) => {
    await sandbox.ok(['add-gate', 'G-region', '--initiative', 'search', '--title', 'Which region first', '--body', 'b', '--purpose', 'Pick', '--as', 'alice']);
    await sandbox.ok(['resolve', 'G-region', '--choice', 'EU', '--rationale', 'Most users', '--as', 'carol']);
    await sandbox.ok(['add-task', 'T-nightly', '--initiative', 'search', '--title', LONG_TITLE, '--body', 'b', '--acceptance', 'a', '--blocked-by', 'G-region', '--as', 'alice']);
  });
  let page: Page;
  let project: string;
  let board: RunningServer;
  beforeEach(() => ({ page, project, board } = story));

  it('draws curved edges with arrowheads, one colour per status with its legend, and the full title on hover', async () => {
    await page.goto(`${board.origin}/projects/${project}/graph`);
    await page.locator('.graph-node[data-node="T-api"]').waitFor();
    const nodes = await drawnNodes(page);
    expect(Object.keys(nodes).sort()).to.deep.equal(['G-old', 'G-pick', 'G-region', 'K-cents', 'T-api', 'T-done', 'T-find', 'T-held', 'T-later', 'T-nightly', 'T-schema']);
    expect(nodes['G-old']).to.contain('status-superseded');
    // Laid out: blockers left of what they block.
    const box = async (id: string) => (await page.locator(`.graph-node[data-node="${id}"] rect.box`).boundingBox())!;
    expect((await box('T-schema')).x).to.be.lessThan((await box('T-api')).x);
    expect((await box('G-old')).x).to.be.lessThan((await box('T-api')).x);

    const edges = await page.locator('path.edge').evaluateAll((paths) => paths.map((edge) => ({ d: edge.getAttribute('d')!, marker: edge.getAttribute('marker-end')!, type: edge.getAttribute('class')! })));
    expect(edges.length).to.be.greaterThan(3);
    for (const edge of edges) {
      // Level where it stays at one height, curved where it changes height.
      const heights = new Set([...edge.d.matchAll(/[\d.]+,([\d.]+)/g)].map((match) => match[1]));
      expect(edge.d, 'an edge changing height bends in a curve').to.match(heights.size > 1 ? /C/ : /^M[\d.,]+(L[\d.,]+)+$/);
      expect(edge.marker).to.match(/^url\(#arrow(-critical|-chain)?\)$/);
    }
    expect(edges.filter((edge) => edge.d.includes('C')).length).to.be.greaterThan(0);
    // It ends on the middle of the left side of the box it points at.
    const end = await page.locator('path.edge[data-from="T-schema"][data-to="T-api"]').evaluate((edge) => {
      const rect = document.querySelector('.graph-node[data-node="T-api"] rect.box') as SVGRectElement;
      const last = (edge as SVGPathElement).getPointAtLength((edge as SVGPathElement).getTotalLength());
      return { dx: last.x - rect.x.baseVal.value, dy: last.y - (rect.y.baseVal.value + rect.height.baseVal.value / 2) };
    });
    expect(end.dx).to.be.closeTo(0, 0.5);
    expect(end.dy).to.be.closeTo(0, 0.5);
    expect(edges.filter((edge) => edge.type.includes('edge-SUPERSEDES'))).to.have.length(1);

    // One colour per status: knowledge and in-progress differ, so do resolved and ready.
    const stroke = (id: string) => page.locator(`.graph-node[data-node="${id}"] rect.box`).evaluate((rect) => getComputedStyle(rect).stroke);
    const colours = { knowledge: await stroke('K-cents'), in_progress: await stroke('T-held'), resolved: await stroke('G-region'), ready: await stroke('T-find') };
    expect(colours.knowledge).not.to.equal(colours.in_progress);
    expect(colours.resolved).not.to.equal(colours.ready);
    // The legend names every status drawn, in the colour the boxes carry.
    const legend = await page.locator('.legend li[data-legend]').evaluateAll((items) => items.map((item) => item.getAttribute('data-legend')));
    expect(legend).to.include.members(['ready', 'in_progress', 'blocked', 'backlog', 'done', 'open', 'resolved', 'superseded', 'active', 'critical', 'chain']);
    const swatch = await page.locator('.legend li[data-legend="resolved"] .swatch').evaluate((item) => getComputedStyle(item).borderTopColor);
    expect(swatch).to.equal(colours.resolved);

    // The box cuts a long title; hovering shows all of it.
    expect(await page.locator('.graph-node[data-node="T-nightly"] text.title').textContent()).to.match(/…$/);
    expect(await page.locator('.graph-node[data-node="T-nightly"] > title').textContent()).to.contain(LONG_TITLE);
  });

  it('marks the critical path, and a selected node\'s blocked chain; a second click opens it', async () => {
    await page.goto(`${board.origin}/projects/${project}/graph`);
    await page.locator('.graph-node[data-node="T-api"]').waitFor();
    // T-api waits on superseded G-old, which waits on its successor G-pick: the longest chain.
    const critical = async () => Object.entries(await drawnNodes(page)).filter(([, classes]) => / critical/.test(classes)).map(([id]) => id).sort();
    expect(await critical()).to.deep.equal(['G-old', 'G-pick', 'T-api']);
    expect(await page.locator('path.edge.critical').evaluateAll((paths) => paths.map((edge) => `${edge.getAttribute('data-from')}>${edge.getAttribute('data-to')}`).sort())).to.deep.equal(['G-old>T-api', 'G-pick>G-old']);

    await page.locator('.graph-node[data-node="T-api"]').click();
    await page.locator('.selection[data-selected="T-api"]').waitFor();
    expect(page.url()).to.equal(`${board.origin}/projects/${project}/graph`);
    const nodes = await drawnNodes(page);
    expect(Object.keys(nodes).filter((id) => nodes[id]!.includes('upstream')).sort()).to.deep.equal(['G-old', 'G-pick', 'T-schema']);
    expect(nodes['T-api']).to.contain('selected');
    expect(nodes['T-find']).not.to.contain('chain');
    expect(await page.locator('path.edge.chain').count()).to.equal(3);
    expect(await page.locator('.selection [data-upstream]').textContent()).to.equal('3');

    // What waits on the schema task downstream.
    await page.locator('.graph-node[data-node="T-schema"]').click();
    await page.locator('.selection[data-selected="T-schema"]').waitFor();
    expect(await page.locator('.graph-node.downstream').evaluateAll((found) => found.map((node) => node.getAttribute('data-node')))).to.deep.equal(['T-api']);

    await page.locator('.graph-node[data-node="T-schema"]').click();
    await page.locator('article.node-detail[data-node="T-schema"]').waitFor();
    expect(page.url()).to.equal(`${board.origin}/projects/${project}/nodes/T-schema`);
  });

  it('zooms with the buttons and the wheel, pans with a drag that opens nothing, and fits', async () => {
    await page.goto(`${board.origin}/projects/${project}/graph`);
    await page.locator('.graph-node[data-node="T-api"]').waitFor();
    const fitted = await scale(page);
    await page.click('button[name="zoom-in"]');
    expect(await scale(page)).to.be.closeTo(Math.min(4, fitted * 1.25), 0.002);
    await page.click('button[name="zoom-out"]');
    await page.click('button[name="zoom-out"]');
    expect(await scale(page)).to.be.closeTo(fitted / 1.25, 0.002);
    const canvas = (await page.locator('.graph-canvas').boundingBox())!;
    await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
    await page.mouse.wheel(0, -200);
    await eventually('the wheel zoomed in', async () => Math.abs((await scale(page)) - fitted) < 0.002);

    const where = async () => (await page.locator('.graph-node[data-node="T-api"] rect.box').boundingBox())!;
    const before = await where();
    await page.mouse.move(before.x + 10, before.y + 10);
    await page.mouse.down();
    await page.mouse.move(before.x + 60, before.y + 40, { steps: 5 });
    await page.mouse.up();
    const after = await where();
    expect(after.x - before.x).to.be.closeTo(50, 2);
    expect(after.y - before.y).to.be.closeTo(30, 2);
    expect(await page.locator('.selection[data-selected]').count(), 'a drag selects nothing').to.equal(0);
    expect(page.url()).to.equal(`${board.origin}/projects/${project}/graph`);

    await page.click('button[name="fit"]');
    expect(await scale(page)).to.equal(fitted);
    const back = await where();
    expect(back.x).to.be.closeTo(before.x, 1);
  });

  it('scopes the graph to an initiative', async () => {
    await page.goto(`${board.origin}/projects/${project}/graph`);
    await page.locator('.graph-node[data-node="T-api"]').waitFor();
    await page.selectOption('select[name="initiative"]', 'search');
    await eventually('only the search initiative drawn', async () => Object.keys(await drawnNodes(page)).sort().join() === 'G-region,T-find,T-nightly');
    expect(page.url()).to.equal(`${board.origin}/projects/${project}/graph?initiative=search`);
    expect(await page.locator('.graph-scope').textContent()).to.contain('Initiative search');
  });

  it('reads at 200 nodes: all of them fit the canvas, and no edge crosses a box it does not join', async () => {
    const many = new Sandbox();
    try {
      const { project_id } = await many.ok(['init']);
      await many.ok(['add-initiative', 'bulk', '--as', 'alice']);
      writeFileSync(path.join(many.checkout, 'plan.json'), JSON.stringify(twoHundredTasks()));
      await many.ok(['batch', '--file', 'plan.json', '--as', 'alice']);
      const second = await startLocalBoard(many);
      try {
        await page.goto(`${second.origin}/projects/${project_id}/graph`);
        await page.locator('.graph-node').first().waitFor();
        expect(await page.locator('.graph-scope').getAttribute('data-drawn')).to.equal('200');
        const canvas = (await page.locator('.graph-canvas').boundingBox())!;
        const boxes = await page.locator('.graph-node rect.box').evaluateAll((rects) => rects.map((rect) => rect.getBoundingClientRect().toJSON()));
        for (const box of boxes) {
          expect(box.x).to.be.at.least(canvas.x - 1);
          expect(box.y).to.be.at.least(canvas.y - 1);
          expect(box.x + box.width).to.be.at.most(canvas.x + canvas.width + 1);
          expect(box.y + box.height).to.be.at.most(canvas.y + canvas.height + 1);
        }
        // Walk every edge in layout coordinates: no point of it lies inside a box other than its ends.
        const crossings = await page.evaluate(() => {
          const rects = new Map<string, { x: number; y: number; w: number; h: number }>();
          for (const node of document.querySelectorAll('.graph-node')) {
            const rect = node.querySelector<SVGRectElement>('rect.box')!;
            rects.set(node.getAttribute('data-node')!, { x: rect.x.baseVal.value, y: rect.y.baseVal.value, w: rect.width.baseVal.value, h: rect.height.baseVal.value });
          }
          const found: string[] = [];
          for (const edge of document.querySelectorAll<SVGPathElement>('path.edge')) {
            const ends = [edge.getAttribute('data-from'), edge.getAttribute('data-to')];
            const length = edge.getTotalLength();
            for (let at = 0; at <= length; at += 4) {
              const point = edge.getPointAtLength(at);
              for (const [id, r] of rects) {
                if (ends.includes(id)) continue;
                if (point.x > r.x + 2 && point.x < r.x + r.w - 2 && point.y > r.y + 2 && point.y < r.y + r.h - 2) found.push(`${ends.join('>')} through ${id}`);
              }
            }
          }
          return [...new Set(found)];
        });
        expect(crossings).to.deep.equal([]);
      } finally {
        await second.stop();
      }
    } finally {
      many.remove();
    }
  });
});
