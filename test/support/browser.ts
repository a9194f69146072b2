import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ensureCommand } from './debian-package.js';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's Chromium, headless, installed by the test setup when missing (apt-get): playwright-core
 * drives it and downloads no browser of its own. Nothing it loads leaves this machine.
 */
export async function launchChromium(): Promise<Browser> {
  ensureCommand(CHROMIUM, 'chromium');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking'], timeout: 60_000 });
}

/** A fresh page (own storage) whose script errors fail the test that reads `errors`. */
export async function openPage(browser: Browser): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors, close: () => context.close() };
}

/**
 * Polls `read` until it returns true, for at most `timeoutMs`; fails naming what was awaited and
 * what was last seen. Not a timing assertion: the bound is generous, the wait is what is tested.
 */
export async function eventually(what: string, read: () => Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  const start = Date.now();
  let last: unknown = null;
  for (;;) {
    try {
      if (await read()) return Date.now() - start;
    } catch (error) {
      last = error;
    }
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not seen within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Registers the hooks of a browser spec: each test gets a fresh page (handed to `use`), and a
 * script error in that page fails the test once it ends.
 */
export function freshPageEachTest(browser: () => Browser, use: (page: Page) => void): void {
  let opened: Awaited<ReturnType<typeof openPage>> | null = null;
  beforeEach(async () => {
    opened = await openPage(browser());
    use(opened.page);
  });
  afterEach(async () => {
    const { errors, close } = opened!;
    opened = null;
    await close();
    expect(errors, 'script errors in the page').to.deep.equal([]);
  });
}
