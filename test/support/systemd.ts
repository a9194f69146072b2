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

/** `systemd-analyze security --offline=true` on a unit file: its overall exposure (0 safest, 10 most exposed) and the report. */
export function unitExposure(unitFile: string): { exposure: number; output: string } {
  const result = spawnSync('systemd-analyze', ['security', '--offline=true', '--no-pager', unitFile], { encoding: 'utf8', timeout: 60_000 });
  const output = `${result.stdout}${result.stderr}`;
  const overall = /Overall exposure level for \S+: (\d+(?:\.\d+)?) /.exec(output);
  if (result.status !== 0 || !overall) throw new Error(`systemd-analyze security failed (status ${result.status}): ${output}`);
  return { exposure: Number(overall[1]), output };
}
