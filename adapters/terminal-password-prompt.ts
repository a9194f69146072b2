import fs from 'graceful-fs';
import type tty from 'node:tty';
import { onFirstUse } from './lazy-builtin.js';
import { DomainError } from '../domain/errors.js';
import type { PasswordPrompt } from '../application/ports/password-prompt.js';

const ttyModule = onFirstUse(() => require('node:tty') as typeof import('node:tty'));

const ENTER = new Set(['\r', '\n']);
const CANCEL = new Set(['\u0003', '\u0004']); // Ctrl-C, Ctrl-D
const ERASE = new Set(['\u007f', '\b']);

/**
 * Reads a password at the controlling terminal (`/dev/tty`), in raw mode so nothing is echoed,
 * whatever stdin, stdout and stderr are connected to. Without a controlling terminal (a job, a
 * pipe-only CI step) it fails with MISSING_FIELD rather than read anything else.
 */
export class TerminalPasswordPrompt implements PasswordPrompt {
  constructor(private readonly device = '/dev/tty') {}

  async ask(question: string): Promise<string> {
    const fd = this.open();
    const input = new (ttyModule().ReadStream)(fd);
    try {
      input.setRawMode(true);
      fs.writeSync(fd, question);
      return await readLine(input);
    } finally {
      input.setRawMode(false);
      fs.writeSync(fd, '\n');
      input.destroy(); // closes fd
    }
  }

  private open(): number {
    try {
      const fd = fs.openSync(this.device, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
      if (ttyModule().isatty(fd)) return fd;
      fs.closeSync(fd);
    } catch {
      // No controlling terminal: reported below, whatever the errno.
    }
    throw new DomainError('MISSING_FIELD', 'login reads the password from a terminal, and this process has none: run it in an interactive shell', {
      field: 'password',
      source: 'terminal',
    });
  }
}

function readLine(input: tty.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error: Error | null) => {
      input.off('data', onData);
      input.pause();
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (ENTER.has(char)) return finish(null);
        if (CANCEL.has(char)) return finish(new DomainError('MISSING_FIELD', 'login was cancelled at the password prompt', { field: 'password', source: 'terminal' }));
        if (ERASE.has(char)) typed = [...typed].slice(0, -1).join('');
        else typed += char;
      }
    };
    input.on('data', onData);
    input.resume();
  });
}
