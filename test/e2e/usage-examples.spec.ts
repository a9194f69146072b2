import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATIONS } from '../../application/operations/index.js';
import { BINARY, Sandbox } from '../support/cli.js';

/**
 * Every example in every command's `--help` is a line that runs. The examples of all registered
 * commands, taken in registration order, form one story in one project: `init`, the initiative
 * `billing`, tasks `T-invoice-schema` and `T-invoice-api` (blocked by the first), gate `G-schema`
 * and its successor, and so on. A new command's examples continue that story.
 */
describe('usage examples (every example in --help runs)', () => {
  let sandbox: Sandbox;
  before(() => {
    sandbox = new Sandbox();
    mkdirSync(sandbox.checkout, { recursive: true });
    // The batch examples apply a plan file the user wrote; this is the one the story uses.
    const plan = { operations: [{ op: 'add-note', args: { id: 'T-invoice-api', text: 'Noted from plan.json' } }] };
    writeFileSync(path.join(sandbox.checkout, 'plan.json'), JSON.stringify(plan));
  });
  after(() => sandbox.remove());

  it('every command has at least one example', () => {
    const bare = OPERATIONS.filter((operation) => operation.examples.length === 0).map((operation) => operation.name);
    expect(bare).to.deep.equal([]);
  });

  it('the README shows every command with an example', () => {
    const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
    const undocumented = OPERATIONS.map((operation) => operation.name).filter((name) => !readme.includes(`$ taskdag ${name}`));
    expect(undocumented).to.deep.equal([]);
  });

  it('runs every example, in registration order, with exit 0 and one JSON value', () => {
    const taskdag = `'${process.execPath}' '${BINARY}'`;
    for (const operation of OPERATIONS) {
      for (const [label, line] of operation.examples) {
        // Examples are shell lines (quotes, JSON in single quotes), so a shell runs them.
        const result = spawnSync('/bin/sh', ['-c', line.replace(/\$0 /g, `${taskdag} `)], {
          cwd: sandbox.checkout,
          env: sandbox.env() as NodeJS.ProcessEnv,
          encoding: 'utf8',
          timeout: 20_000,
        });
        const where = `${operation.name} example "${label}": ${line}\n${result.stdout}${result.stderr}`;
        expect(result.status, where).to.equal(0);
        expect(() => JSON.parse(result.stdout), where).not.to.throw();
      }
    }
  });
});
