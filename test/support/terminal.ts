import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BINARY, checkedResult, type CliResult, type Sandbox } from './cli.js';

/**
 * Runs the binary in a real pseudo-terminal (python3's pty module, on every machine this project
 * runs on) as a person at a shell would: the child is a session leader whose controlling terminal
 * is the pty. When the terminal shows the password prompt, `password` is typed and Enter pressed.
 * The password reaches python through its stdin only, never argv or the environment. The
 * command's stdout goes to a file so the JSON is apart from what the terminal showed.
 */
const DRIVER = `
import json, os, pty, select, sys
password = sys.stdin.readline().rstrip('\\n')
argv, out_path, cwd = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.chdir(cwd)
    out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.execv(argv[0], argv)
shown = b''
typed = False
while True:
    ready, _, _ = select.select([fd], [], [], 20)
    if not ready:
        break
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    shown += data
    if not typed and b'password for' in shown:
        os.write(fd, password.encode() + b'\\r')
        typed = True
_, status = os.waitpid(pid, 0)
sys.stdout.write(shown.decode('utf8', 'replace'))
sys.exit(os.waitstatus_to_exitcode(status))
`;

export interface TerminalResult extends CliResult {
  /** Everything the terminal displayed (the prompt, and any echo there would have been). */
  terminal: string;
}

export function runInTerminal(sandbox: Sandbox, args: string[], password: string, options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<TerminalResult> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'taskdag-pty-'));
  const outFile = path.join(scratch, 'stdout');
  const cwd = options.cwd ?? sandbox.checkout;
  mkdirSync(cwd, { recursive: true });
  const spec = JSON.stringify([[process.execPath, BINARY, ...args], outFile, cwd]);
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', DRIVER, spec], { env: sandbox.env(options.env) as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let terminal = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk) => (terminal += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const stdout = readFileSync(outFile, 'utf8');
      rmSync(scratch, { recursive: true, force: true });
      try {
        resolve({ ...checkedResult(args, code, stdout, stderr), terminal });
      } catch (error) {
        reject(error);
      }
    });
    child.stdin.end(`${password}\n`);
  });
}
