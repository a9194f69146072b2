import { expect } from 'chai';
import { agentGuide } from '../../application/agent-guide.js';
import { Sandbox } from '../support/cli.js';

describe('taskdag onboard', () => {
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = new Sandbox()));
  afterEach(() => sandbox.remove());

  it('prints the workflow guide as an AGENTS.md section, in any directory', async () => {
    const result = await sandbox.run(['onboard']);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.equal(agentGuide('cli'));
    expect(result.stdout).to.match(/^## Working with taskdag\n/);
    expect(result.stdout).to.include('`taskdag take <id>`');
  });

  it('answers a flag it does not take with the INVALID_ARGUMENT envelope', async () => {
    const result = await sandbox.run(['onboard', '--bogus']);
    expect(result.code).to.equal(1);
    expect(result.json.error.code).to.equal('INVALID_ARGUMENT');
  });
});
