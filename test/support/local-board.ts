import type { Browser, Page } from 'playwright-core';
import { freshPageEachTest, launchChromium } from './browser.js';
import { BINARY, Sandbox } from './cli.js';
import { spawnServer, type RunningServer } from './server-process.js';

/** `taskdag ui --port <port> --open=false` in the sandbox's checkout, once its JSON line is out. */
export async function startLocalBoard(sandbox: Sandbox, port = 0, env: Record<string, string | undefined> = {}): Promise<RunningServer & { line: any }> {
  const board = await spawnServer(process.execPath, [BINARY, 'ui', '--port', String(port), '--open=false'], { env: sandbox.env(env), cwd: sandbox.checkout });
  return { ...board, line: JSON.parse(board.output().stdout.split('\n')[0]!) };
}

/**
 * The story the board tests look at: initiative billing; T-schema (ready), T-api blocked by it and
 * by gate G-old, since superseded by G-pick; T-held in progress by bob; T-later in the backlog;
 * T-done accepted; K-cents knowledge for domain backend; initiative search with T-find (ready).
 */
export async function seedBoardStory(sandbox: Sandbox): Promise<string> {
  const { project_id } = await sandbox.ok(['init']);
  const as = ['--as', 'alice'];
  await sandbox.ok(['add-initiative', 'billing', '--desc', 'Invoices', ...as]);
  await sandbox.ok(['add-initiative', 'search', ...as]);
  const task = (id: string, title: string, blockedBy: string, extra: string[] = []) =>
    sandbox.ok(['add-task', id, '--initiative', 'billing', '--title', title, '--body', `${title} body`, '--acceptance', 'Reviewed', '--blocked-by', blockedBy, ...extra, ...as]);
  await sandbox.ok(['add-gate', 'G-old', '--initiative', 'billing', '--title', 'First schema choice', '--body', 'b', '--purpose', 'Pick', ...as]);
  await task('T-schema', 'Draft invoice schema', '', ['--domain', 'backend', '--tags', 'api']);
  await task('T-api', 'Invoice API', 'T-schema,G-old', ['--domain', 'backend']);
  await sandbox.ok(['add-gate', 'G-pick', '--initiative', 'billing', '--title', 'Choose the schema', '--body', 'b', '--purpose', 'Pick', '--supersedes', 'G-old', ...as]);
  await task('T-held', 'Held work', '', ['--tags', 'ops']);
  await task('T-later', 'Later work', '');
  await sandbox.ok(['update', 'T-later', '--backlog', 'true', ...as]);
  await task('T-done', 'Finished work', '');
  await sandbox.ok(['add-task', 'T-find', '--initiative', 'search', '--title', 'Search index', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', ...as]);
  await sandbox.ok(['add-knowledge', 'K-cents', '--initiative', 'billing', '--title', 'Money is integer cents', '--body', 'Never floats', '--scope-domains', 'backend', ...as]);
  await sandbox.ok(['take', 'T-held', '--as', 'bob']);
  await sandbox.ok(['take', 'T-done', '--as', 'bob']);
  await sandbox.ok(['submit', 'T-done', '--as', 'bob', '--note', 'done']);
  await sandbox.ok(['accept', 'T-done', '--as', 'carol']);
  await sandbox.ok(['add-note', 'T-api', 'Waits for the schema decision', ...as]);
  return project_id;
}

/** What a browser spec of the board story reads: its sandbox, project, local board and page. */
export interface StoryInBrowser {
  sandbox: Sandbox;
  project: string;
  board: RunningServer;
  page: Page;
}

/**
 * Registers the hooks of a browser spec on the board story (seedBoardStory, then `more`): one
 * local board and one Chromium for the spec, a fresh page per test (script errors fail it).
 * The returned object is filled in once the hooks have run.
 */
export function storyInBrowser(more: (sandbox: Sandbox) => Promise<void> = async () => {}): StoryInBrowser {
  const story = {} as StoryInBrowser;
  let browser: Browser | undefined;
  before(async () => {
    story.sandbox = new Sandbox();
    story.project = await seedBoardStory(story.sandbox);
    await more(story.sandbox);
    story.board = await startLocalBoard(story.sandbox);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await story.board?.stop();
    story.sandbox?.remove();
  });
  freshPageEachTest(() => browser!, (page) => (story.page = page));
  return story;
}
