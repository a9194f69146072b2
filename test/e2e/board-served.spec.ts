import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { eventually, freshPageEachTest, launchChromium } from '../support/browser.js';
import { Sandbox } from '../support/cli.js';
import { linkedClient, startLinkedServer, type LinkedServer } from '../support/linked-server.js';
import { initServerRoot, login, request, startServer } from '../support/server-process.js';

describe('the board served by `server run`, in Chromium', function () {
  this.timeout(120_000);
  let browser: Browser;
  let linked: LinkedServer;
  let client: Sandbox;
  let project: string;
  let page: Page;

  before(async () => {
    linked = await startLinkedServer();
    client = await linkedClient(linked);
    project = JSON.parse(readFileSync(path.join(client.checkout, '.taskdag.json'), 'utf8')).project_id;
    await client.ok(['add-initiative', 'billing', '--as', 'alice']);
    await client.ok(['add-task', 'T-1', '--initiative', 'billing', '--title', 'First', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice']);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await linked?.close();
    client?.remove();
  });
  freshPageEachTest(() => browser, (opened) => (page = opened));

  /** Types a password into the login gate and submits it. */
  async function logIn(password: string): Promise<void> {
    await page.fill('input[name="password"]', password);
    await page.click('button[type="submit"]');
  }

  it('shows the login gate; a wrong password is refused, the right one opens the catalog, and the bearer never enters the address', async () => {
    await page.goto(`${linked.origin}/projects/${project}`);
    await page.locator('form.login').waitFor();
    await logIn('not the password');
    const refusal = page.locator('form.login [role="alert"]');
    await refusal.waitFor();
    // Said once: not "Wrong password (Wrong password)".
    expect(await refusal.textContent()).to.equal('Wrong password');
    expect(await page.title()).to.equal('Log in · taskdag');
    expect(await page.evaluate(() => sessionStorage.getItem('taskdag.bearer'))).to.equal(null);

    await logIn(linked.password);
    await page.locator(`[data-column="ready"] li.card[data-node="T-1"]`).waitFor();
    const bearer = await page.evaluate(() => sessionStorage.getItem('taskdag.bearer'));
    expect(bearer).to.be.a('string').and.not.equal('');
    expect(page.url()).to.equal(`${linked.origin}/projects/${project}`);
    expect(page.url()).not.to.contain(bearer!);
    expect(await page.evaluate(() => Object.keys(localStorage))).to.deep.equal([]);
    // The same tab keeps its session: a reload goes straight in.
    await page.reload();
    await page.locator(`[data-column="ready"] li.card[data-node="T-1"]`).waitFor();
    expect(await page.locator('form.login').count()).to.equal(0);

    // Log out: the tab forgets its bearer and shows the gate again, also after a reload.
    await page.click('button.logout');
    await page.locator('form.login').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('taskdag.bearer'))).to.equal(null);
    expect(await page.title()).to.equal('Log in · taskdag');
    await page.reload();
    await page.locator('form.login').waitFor();
  });

  it("follows the server's live events: a change from a linked checkout shows at once, and again after the server restarts", async () => {
    await page.goto(`${linked.origin}/`);
    await logIn(linked.password);
    await page.locator(`tr[data-project="${project}"] a`).click();
    await page.locator('[data-live="live"]').waitFor();
    await client.ok(['take', 'T-1', '--as', 'bob']);
    await eventually('T-1 in progress after `take`', async () => (await page.locator('[data-column="in_progress"] li.card[data-node="T-1"]').count()) === 1);

    await linked.restart();
    await client.ok(['release', 'T-1', '--as', 'bob']);
    await eventually('T-1 ready again after the restart', async () => (await page.locator('[data-column="ready"] li.card[data-node="T-1"]').count()) === 1, 20_000);
  });

  it('lists under each project the checkouts linked to it (host and directory) with when each was last seen, also after a restart', async () => {
    const other = await linkedClient(linked, { init: false });
    try {
      // A second checkout of the same project, on "another machine": its own .taskdag.json names the project.
      writeFileSync(path.join(other.checkout, '.taskdag.json'), readFileSync(path.join(client.checkout, '.taskdag.json')));
      await other.ok(['status']);
      const label = (checkout: string) => `${os.hostname()}:${checkout}`;
      // A label that is not one (a control character) is served all the same, and not listed.
      const bearer = (await login(linked.origin, linked.password)).json as { bearer: string };
      const odd = await request(linked.origin, 'POST', `/v1/projects/${project}/ops/status`, { body: { args: {}, agent: null }, headers: { Authorization: `Bearer ${bearer.bearer}`, 'X-Taskdag-Checkout': 'evil%0Aline' } });
      expect(odd.status).to.equal(200);

      await page.goto(`${linked.origin}/`);
      await logIn(linked.password);
      const listed = page.locator(`tr[data-project="${project}"] td[data-field="checkouts"] li.checkout`);
      await listed.first().waitFor();
      // Most recently seen first.
      expect(await listed.allTextContents()).to.deep.equal([label(other.checkout), label(client.checkout)]);
      expect(await listed.first().getAttribute('title')).to.match(/^last seen \d+ s ago \(\d{4}-\d\d-\d\dT/);

      await linked.restart();
      await page.reload();
      await listed.first().waitFor();
      expect(await listed.allTextContents(), 'kept in the state home across a restart').to.deep.equal([label(other.checkout), label(client.checkout)]);
      const record = readFileSync(path.join(linked.root, 'state', 'checkouts.json'), 'utf8');
      expect(record).to.contain(other.checkout).and.not.contain(bearer.bearer).and.not.contain(linked.password);
    } finally {
      other.remove();
    }
  });

  it('answers 503 with a hint when the board is not built, and the API keeps working', async () => {
    const host = new Sandbox();
    try {
      const empty = path.join(host.root, 'no-board');
      mkdirSync(empty);
      const setup = await initServerRoot(host, 'bare', ['--ui-root', empty]);
      const server = await startServer(host, setup.config, setup.env);
      try {
        const answer = await page.goto(`${server.origin}/projects/anything`);
        expect(answer!.status()).to.equal(503);
        expect(await page.textContent('body')).to.contain('not built').and.contain('npm run build:ui');
        const login = await request(server.origin, 'POST', '/v1/auth/login', { body: { password: setup.env.TASKDAG_SERVER_PASSWORD } });
        expect(login.status).to.equal(200);
      } finally {
        await server.stop();
      }
    } finally {
      host.remove();
    }
  });
});
