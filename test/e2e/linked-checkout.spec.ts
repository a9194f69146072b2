import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';

/**
 * A checkout linked to a server (`backend` in .taskdag.json) never touches local state: every
 * command, `init` included, fails with a structured error until the remote client exists, and
 * nothing appears under TASKDAG_HOME.
 */
describe('a linked checkout (spec 1, 4.5)', () => {
  let sandbox: Sandbox;
  const checkoutFile = () => path.join(sandbox.checkout, '.taskdag.json');
  beforeEach(() => {
    sandbox = new Sandbox();
    mkdirSync(sandbox.checkout, { recursive: true });
    writeFileSync(checkoutFile(), JSON.stringify({ project_id: 'linked-1', backend: { type: 'http', url: 'http://127.0.0.1:9/' } }));
  });
  afterEach(() => sandbox.remove());

  it('init, reads and mutations fail with REMOTE_UNSUPPORTED_OPERATION and create nothing locally', async () => {
    const before = readFileSync(checkoutFile(), 'utf8');
    for (const args of [['init'], ['init', '--force', '--as', 'alice'], ['status'], ['add-initiative', 'core', '--as', 'alice'], ['snapshots']]) {
      const result = await sandbox.run(args);
      expect(result.code, args.join(' ')).to.equal(1);
      expect(result.json.error.code, args.join(' ')).to.equal('REMOTE_UNSUPPORTED_OPERATION');
      expect(result.json.error.details.backend).to.deep.equal({ type: 'http', url: 'http://127.0.0.1:9/' });
    }
    const home = path.join(sandbox.home, '.taskdag');
    expect(existsSync(home) ? readdirSync(home) : []).to.deep.equal([]);
    expect(readFileSync(checkoutFile(), 'utf8')).to.equal(before);
  });
});
