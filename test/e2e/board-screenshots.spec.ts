import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Sandbox } from '../support/cli.js';

const ROOT = path.resolve(__dirname, '../../..');
const DOCS = path.join(ROOT, 'docs');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The board screenshots docs/board.md shows, by file name. */
function shownInDocs(): string[] {
  const page = readFileSync(path.join(DOCS, 'board.md'), 'utf8');
  return [...new Set([...page.matchAll(/\]\((board-[\w-]+\.png)\)/g)].map((match) => match[1]!))].sort();
}

describe('the board screenshots (scripts/board-screenshots.mjs)', function () {
  this.timeout(240_000);

  it('are made by the script, exactly those docs/board.md shows, and docs/ holds no other', async () => {
    const sandbox = new Sandbox();
    try {
      const out = path.join(sandbox.root, 'shots');
      await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/board-screenshots.mjs'), '--out', out], { timeout: 200_000 });
      const made = readdirSync(out).sort();
      expect(made).to.deep.equal(shownInDocs());
      expect(readdirSync(DOCS).filter((name) => /^board-.*\.png$/.test(name)).sort(), 'stale screenshots in docs/').to.deep.equal(made);
      for (const name of made) {
        const png = readFileSync(path.join(out, name));
        expect(png.subarray(0, 8).equals(PNG_SIGNATURE), `${name} is a PNG`).to.equal(true);
        expect([png.readUInt32BE(16), png.readUInt32BE(20)], `${name} is 1280 × 720`).to.deep.equal([1280, 720]);
      }
    } finally {
      sandbox.remove();
    }
  });
});
