import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The server bench preloads this probe into `server run`; here it is preloaded into a small script
// that syncs a file as the hot store syncs its ledger (fs.fsync with a callback) and blocks its loop once.
const PROBE = path.resolve(__dirname, '../../../bench/server-probe.cjs');

const SCRIPT = `
const fs = require('node:fs');
const file = process.argv[1];
const fd = fs.openSync(file, 'w');
let left = 5;
const next = () => {
  if (left-- === 0) {
    // As the hot store installs a checkpoint written in the background.
    fs.writeFileSync(file + '.tmp', 'checkpoint');
    fs.renameSync(file + '.tmp', require('node:path').join(require('node:path').dirname(file), 'tasks.json'));
    return process.send('synced');
  }
  fs.writeSync(fd, 'x');
  fs.fsync(fd, (error) => { if (error) throw error; next(); });
};
setTimeout(() => {
  const start = Date.now();
  while (Date.now() - start < 120) {}
  next();
}, 50);
process.on('message', () => process.exit(0));
`;

describe('server bench probe (bench/server-probe.cjs)', function () {
  this.timeout(20_000);
  let scratch: string;

  beforeEach(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-probe-test-'));
  });

  afterEach(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('on SIGUSR2 reports the fsyncs made since with their p50 and p99, the checkpoints renamed in, and the event-loop delay', async () => {
    const report = path.join(scratch, 'probe.json');
    const child = spawn(process.execPath, ['--require', PROBE, '-e', SCRIPT, path.join(scratch, 'synced')], {
      env: { ...process.env, BENCH_PROBE_FILE: report },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`the script exited ${code} before syncing`)));
      });
      child.kill('SIGUSR2');
      const written = await poll(() => (existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : null));
      expect(written).to.include({ sequence: 1, fsyncs: 5, checkpoints: 1 });
      expect(written.fsync_p50_ms).to.be.a('number').and.be.at.least(0);
      expect(written.fsync_p99_ms).to.be.at.least(written.fsync_p50_ms);
      // The busy loop of 120 ms held the event loop up.
      expect(written.max_ms).to.be.at.least(100);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

async function poll<T>(read: () => T | null): Promise<T> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const value = read();
    if (value !== null) return value;
  }
  throw new Error('nothing was reported within 10 s');
}
