import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

const ENSURE = path.resolve(__dirname, '../../../scripts/ensure-systemd.sh');

/** Installs Debian's systemd package when `systemd-analyze` is missing (the test setup's job). */
export function ensureSystemdAnalyze(): void {
  execFileSync('/bin/sh', [ENSURE], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 540_000 });
}

/** `systemd-analyze verify` on a unit file: its exit status and what it said. */
export function verifyUnit(unitFile: string): { status: number | null; output: string } {
  const result = spawnSync('systemd-analyze', ['verify', unitFile], { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
