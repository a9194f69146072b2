import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/** Runs `npm test`'s runner on one spec file, as its only layer, with a short grace for what is left running. */
function runTests(spec: string): { status: number | null; lines: string[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'taskdag-runner-'));
  try {
    writeFileSync(path.join(dir, 'probe.spec.js'), spec);
    const layer = path.relative(path.join(ROOT, 'build/test'), dir);
    const result = spawnSync(process.execPath, ['scripts/run-tests.mjs', layer], {
      cwd: ROOT,
      env: { ...process.env, MOCHA_REPORTER: 'dot', TEST_DRAIN_GRACE_MS: '300' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { status: result.status, lines: result.stdout.trimEnd().split('\n') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the test runner (scripts/run-tests.mjs, what npm test and CI run)', function () {
  this.timeout(30_000);

  it('ends with the summary line and exits as soon as the last test is done', () => {
    const { status, lines } = runTests(`it('passes', () => {});`);
    expect(status).to.equal(0);
    expect(lines.at(-1)).to.equal('1 passed, 0 failed');
  });

  it('names a server a test left listening, counts it as a failure and exits instead of waiting on it', () => {
    const { status, lines } = runTests(`
      const net = require('node:net');
      it('leaves a server behind', (done) => { net.createServer().listen(0, '127.0.0.1', done); });
    `);
    expect(status).to.equal(1);
    expect(lines.join('\n')).to.match(/left 1 thing\(s\) running[\s\S]*a server listening on 127\.0\.0\.1:\d+/);
    expect(lines.at(-1)).to.equal('1 passed, 1 failed');
  });
});
