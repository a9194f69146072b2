import { spawnSync } from 'node:child_process';
import { ensureCommand } from './debian-package.js';

/** Installs Debian's systemd package when `systemd-analyze` is missing (the test setup's job). */
export function ensureSystemdAnalyze(): void {
  ensureCommand('systemd-analyze', 'systemd');
}

/** `systemd-analyze verify` on a unit file: its exit status and what it said. */
export function verifyUnit(unitFile: string): { status: number | null; output: string } {
  const result = spawnSync('systemd-analyze', ['verify', unitFile], { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
