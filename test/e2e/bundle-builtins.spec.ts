import { expect } from 'chai';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeAllSync } from '../../entrypoints/cli/fd-writer.js';

const DIST = path.resolve(__dirname, '../../../dist');

describe('what every command line loads first (start-up)', () => {
  it('requires Node built-ins as they are in the executable and every program, never through an interop copy of their exports', () => {
    for (const bundle of ['taskdag.js', 'taskdag-reads.js', 'taskdag-point.js', 'taskdag-cli.js']) {
      const code = readFileSync(path.join(DIST, bundle), 'utf8');
      expect(code, bundle).to.match(/=require\("node:path"\)/);
      // esbuild's default-import interop wraps the require in a call: __toESM(require("node:path")).
      expect(code.match(/[\w$]+\(require\("node:[\w/]+"\)\)/g) ?? [], bundle).to.deep.equal([]);
    }
  });

  it('holds none of the --help text in the executable, as Node reads the whole executable before every command', () => {
    const executable = readFileSync(path.join(DIST, 'taskdag.js'), 'utf8');
    const help = execFileSync(process.execPath, [path.join(DIST, 'taskdag.js'), '--help'], { encoding: 'utf8', timeout: 20_000 }).split('\n');
    expect(help[0]).to.match(/^taskdag /);
    // Once, three times before that: the help is a file beside the executable, read for --help only.
    expect(help.filter((line) => line.length > 20 && executable.includes(line.trim()))).to.deep.equal([]);
  });

  it('writes the whole answer to a full non-blocking pipe, waiting for the reader', async function () {
    this.timeout(20_000);
    // The reader starts reading only after the writer has filled the pipe (64 KiB on Linux).
    const reader = spawn(process.execPath, ['-e', "setTimeout(() => { let n = 0; process.stdin.on('data', (c) => (n += c.length)).on('end', () => process.stdout.write(String(n))); }, 300)"]);
    let counted = '';
    reader.stdout.on('data', (chunk) => (counted += chunk));
    const closed = new Promise((resolve) => reader.on('close', resolve));
    const fd = (reader.stdin as unknown as { _handle: { fd: number } })._handle.fd;
    const text = 'x'.repeat(1_000_000);
    writeAllSync(fd, text);
    reader.stdin.end();
    await closed;
    expect(Number(counted)).to.equal(text.length);
  });
});
