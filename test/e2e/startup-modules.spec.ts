import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';

/**
 * Start-up is what an agent pays on every call. Node's heavier built-ins (child_process pulls in
 * net and stream, zlib its stream machinery, crypto some thirty modules of its own) cost
 * milliseconds to load; a local command needs
 * none of them, so one that appears here is an import that should have been lazy.
 */
const HEAVY_BUILTINS = ['child_process', 'net', 'zlib', 'http', 'https', 'tty', 'worker_threads', 'crypto'];
/** Lighter, yet needed only without TASKDAG_HOME (the home directory) or by a linked checkout (the host name). */
const ON_DEMAND_BUILTINS = ['os'];

describe('local commands load none of the heavy Node built-ins', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let probe: string;

  before(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    probe = path.join(sandbox.root, 'probe.js');
    writeFileSync(
      probe,
      "process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify(process.moduleLoadList)));\n",
    );
  });
  after(() => sandbox.remove());

  async function builtinsLoadedBy(args: string[]): Promise<string[]> {
    const out = path.join(sandbox.root, 'modules.json');
    const result = await sandbox.run(args, { env: { NODE_OPTIONS: `--require ${probe}`, PROBE_OUT: out, TASKDAG_AGENT: 'probe' } });
    expect(result.code, result.stdout).to.equal(0);
    const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
    return loaded.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice('NativeModule '.length));
  }

  it('add-task, update, take, status, show and context', async () => {
    await sandbox.ok(['add-initiative', 'probe', '--as', 'probe']);
    const added = await sandbox.ok(['add-task', '--initiative', 'probe', '--title', 'T', '--body', 'B', '--acceptance', 'A', '--blocked-by', ''], {
      env: { TASKDAG_AGENT: 'probe' },
    });
    const id = added.node.id as string;
    for (const args of [
      ['add-task', '--initiative', 'probe', '--title', 'U', '--body', 'B', '--acceptance', 'A', '--blocked-by', id],
      ['update', id, '--body', 'changed'],
      ['take', id],
      ['status'],
      ['show', id],
      ['context', id],
    ]) {
      const heavy = (await builtinsLoadedBy(args)).filter((name) => HEAVY_BUILTINS.includes(name) || ON_DEMAND_BUILTINS.includes(name));
      expect(heavy, `taskdag ${args.join(' ')}`).to.deep.equal([]);
    }
  });
});
