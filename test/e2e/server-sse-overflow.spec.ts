import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { ensureCommand } from '../support/debian-package.js';

const PROBE = path.resolve(__dirname, '../support/sse-overflow-probe.js');
const COMMITS = 800;

/**
 * Runs the probe in a user and network namespace of its own (`unshare -rn`), with loopback up and
 * TCP buffers of 4 KiB, so that a subscriber that stops reading pushes back after a few hundred
 * events instead of the megabyte the host's loopback absorbs.
 */
function runProbeWithSmallSocketBuffers(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const setup = [
    'ip link set lo up',
    'echo "4096 4096 4096" > /proc/sys/net/ipv4/tcp_wmem',
    'echo "4096 4096 4096" > /proc/sys/net/ipv4/tcp_rmem',
    `exec "${process.execPath}" "${PROBE}" ${COMMITS}`,
  ].join(' && ');
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['--user', '--map-root-user', '--net', 'sh', '-c', setup], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('live events: a subscriber that falls behind (spec 4.7)', function () {
  this.timeout(120_000);

  before(() => {
    ensureCommand('unshare', 'util-linux');
    ensureCommand('ip', 'iproute2');
  });

  it('gets one refresh instead of an unbounded buffer, and its stream goes on; a reading subscriber misses nothing', async () => {
    const run = await runProbeWithSmallSocketBuffers();
    expect(run.code, `probe failed: ${run.stderr}`).to.equal(0);
    const outcome = JSON.parse(run.stdout.trim().split('\n').at(-1)!);

    const stalled: string[] = outcome.stalled.events;
    expect(stalled.filter((name) => name === 'refresh')).to.have.length(1);
    expect(stalled.at(-1)).to.equal('refresh');
    // What it was sent before the refresh is bounded by socket buffers plus the hub's 64, far below every commit.
    expect(stalled.filter((name) => name === 'revision').length).to.be.below(COMMITS / 2);
    expect(outcome.stalled.continued).to.equal(true);

    const ids: number[] = outcome.reader.revision_ids;
    expect(outcome.reader.refreshes).to.equal(0);
    expect(ids.at(-1)).to.equal(outcome.last_revision);
    expect(ids.slice(1)).to.deep.equal(ids.slice(0, -1).map((id) => id + 1));
  });
});
