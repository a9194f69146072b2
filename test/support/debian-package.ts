import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ENSURE = path.resolve(__dirname, '../../../scripts/ensure-package.sh');

/** Installs the Debian package that provides `command` when it is missing (the test setup's job). */
export function ensureCommand(command: string, debianPackage: string): void {
  execFileSync('/bin/sh', [ENSURE, command, debianPackage], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 540_000 });
}
