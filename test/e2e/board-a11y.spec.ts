import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { eventually } from '../support/browser.js';
import { storyInBrowser } from '../support/local-board.js';
import type { RunningServer } from '../support/server-process.js';

/** axe-core's browser build, injected into the page under test (nothing is fetched). */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** The serious and critical violations axe finds in the page as it is now, one line each. */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.impact} ${violation.id} (${violation.help}): ${violation.nodes.slice(0, 3).map((node) => node.target.join(' ')).join(' | ')}`);
}

/** Luminance (0 black - 1 white) of a CSS rgb() colour. */
function luminance(colour: string): number {
  const [r, g, b] = colour.match(/[\d.]+/g)!.slice(0, 3).map(Number);
  return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
}

describe('the board in Chromium: accessibility (axe-core), keyboard and dark mode', function () {
  this.timeout(240_000);
  const story = storyInBrowser();
  let page: Page;
  let project: string;
  let board: RunningServer;
  beforeEach(() => ({ page, project, board } = story));

  const views = () => [
    { view: 'catalog', path: '/', ready: `tr[data-project="${project}"]` },
    { view: 'board', path: `/projects/${project}`, ready: '[data-column="ready"] li.card' },
    { view: 'gates', path: `/projects/${project}/gates`, ready: '.gates li.card' },
    { view: 'graph', path: `/projects/${project}/graph`, ready: '.graph-node' },
    { view: 'graph with a selection', path: `/projects/${project}/graph?focus=T-api`, ready: '.graph-node.selected' },
    { view: 'activity', path: `/projects/${project}/activity`, ready: '.activity li.entry' },
    { view: 'node', path: `/projects/${project}/nodes/T-api`, ready: 'article.node-detail section[aria-label="History"] li' },
  ];

  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious or critical axe violation on any view, ${scheme}`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      const found: string[] = [];
      for (const { view, path, ready } of views()) {
        await page.goto(`${board.origin}${path}`);
        await page.locator(ready).first().waitFor();
        found.push(...(await seriousViolations(page)).map((line) => `${view}: ${line}`));
      }
      // The login gate of a served board: the catalog probe answers 401 as a server wants a bearer.
      await page.route('**/v1/projects', (route) => route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ ok: false, error: { code: 'AUTH_REQUIRED', message: 'Log in first', details: {} } }) }));
      await page.goto(`${board.origin}/`);
      await page.locator('form.login').waitFor();
      found.push(...(await seriousViolations(page)).map((line) => `login: ${line}`));
      expect(found).to.deep.equal([]);
    });
  }

  it('follows the reader\'s dark preference', async () => {
    await page.goto(`${board.origin}/projects/${project}`);
    await page.locator('[data-column="ready"] li.card').first().waitFor();
    const colours = () => page.evaluate(() => ({ page: getComputedStyle(document.documentElement).backgroundColor, text: getComputedStyle(document.documentElement).color, card: getComputedStyle(document.querySelector('li.card')!).backgroundColor }));
    const light = await colours();
    expect(luminance(light.page)).to.be.greaterThan(0.8);
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await colours();
    expect(luminance(dark.page)).to.be.lessThan(0.2);
    expect(luminance(dark.card)).to.be.lessThan(0.25);
    expect(luminance(dark.text)).to.be.greaterThan(0.7);
  });

  it('moves through the board with the keyboard: / to search, j and k between cards, Enter to open', async () => {
    await page.goto(`${board.origin}/projects/${project}`);
    await page.locator('[data-column="ready"] li.card').first().waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.closest('li.card')?.getAttribute('data-node') ?? document.activeElement?.getAttribute('name') ?? null);
    await page.keyboard.press('/');
    expect(await focused()).to.equal('q');
    await page.keyboard.press('Escape');
    await page.keyboard.press('j');
    expect(await focused()).to.equal('T-schema');
    await page.keyboard.press('j');
    expect(await focused()).to.equal('T-find');
    await page.keyboard.press('k');
    expect(await focused()).to.equal('T-schema');
    await page.keyboard.press('Enter');
    await page.locator('article.node-detail[data-node="T-schema"]').waitFor();
    // Letters typed into the search stay there.
    await page.goto(`${board.origin}/projects/${project}`);
    await page.locator('[data-column="ready"] li.card').first().waitFor();
    await page.focus('input[name="q"]');
    await page.keyboard.type('jk');
    await eventually('the search holds what was typed', async () => (await page.inputValue('input[name="q"]')) === 'jk');
  });

  it('works the graph with the keyboard: zoom, pan and fit keys; Tab to a node, Enter selects, Enter again opens', async () => {
    await page.goto(`${board.origin}/projects/${project}/graph`);
    await page.locator('.graph-node[data-node="T-api"]').waitFor();
    const scale = async () => Number(await page.locator('.zoom [data-scale]').getAttribute('data-scale'));
    const fitted = await scale();
    await page.focus('.graph-canvas');
    await page.keyboard.press('+');
    expect(await scale()).to.be.closeTo(fitted * 1.25, 0.002);
    const before = (await page.locator('.graph-node[data-node="T-api"] rect.box').boundingBox())!;
    await page.keyboard.press('ArrowLeft');
    const after = (await page.locator('.graph-node[data-node="T-api"] rect.box').boundingBox())!;
    expect(after.x - before.x).to.be.closeTo(80, 1);
    await page.keyboard.press('0');
    expect(await scale()).to.equal(fitted);

    await page.focus('.graph-node[data-node="T-api"]');
    await page.keyboard.press('Enter');
    await page.locator('.selection[data-selected="T-api"]').waitFor();
    await page.keyboard.press('Enter');
    await page.locator('article.node-detail[data-node="T-api"]').waitFor();
  });
});
