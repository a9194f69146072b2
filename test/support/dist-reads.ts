import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Sandbox } from './cli.js';

const DIST = path.resolve(__dirname, '../../../dist');

/** What a command line read of dist/ besides the executable, in order; the bundles among them; its exit status and answer. */
export interface DistReads {
  code: number | null;
  json: any;
  read: string[];
  programs: string[];
}

/**
 * A probe of what a command line loads from dist/. Every program the executable loads is read with
 * fs.readFileSync and every code cache opened with fs.openSync (entrypoints/cli/code-cache.ts), so
 * a script preloaded with `--require` that records those names them. The probe is written into the
 * sandbox.
 */
export function distReadsProbe(sandbox: Sandbox): (args: string[]) => Promise<DistReads> {
  const probe = path.join(sandbox.root, 'dist-reads-probe.js');
  writeFileSync(
    probe,
    [
      "const fs = require('node:fs');",
      'const read = fs.readFileSync;',
      'const open = fs.openSync;',
      'const files = [];',
      'let reading = false;',
      'fs.readFileSync = function (file, ...rest) { files.push(String(file)); reading = true; try { return read.call(this, file, ...rest); } finally { reading = false; } };',
      // A code cache is read through a descriptor, straight into the memory its checksum reads (entrypoints/cli/code-cache.ts).
      'fs.openSync = function (file, ...rest) { if (!reading) files.push(String(file)); return open.call(this, file, ...rest); };',
      "process.on('exit', () => fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify(files)));",
    ].join('\n'),
  );
  return async (args) => {
    const out = path.join(sandbox.root, 'dist-reads.json');
    const result = await sandbox.run(args, { env: { NODE_OPTIONS: `--require ${probe}`, PROBE_OUT: out } });
    const read = (JSON.parse(readFileSync(out, 'utf8')) as string[])
      .filter((file) => path.dirname(file) === DIST)
      .map((file) => path.basename(file))
      .filter((file) => file !== 'taskdag.js');
    return { code: result.code, json: result.json, read, programs: read.filter((file) => file.endsWith('.js')) };
  };
}
