import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { schemaViolations } from '../../application/contract/schema-check.js';
import { OPERATIONS } from '../../application/operations/index.js';
import { Sandbox } from '../support/cli.js';
import { projectDir, treeDigest } from '../support/durability.js';

const DOCS = path.resolve(__dirname, '../../../docs');
const SCHEMA = JSON.parse(readFileSync(path.join(DOCS, 'batch.schema.json'), 'utf8'));
const example = (name: string) => readFileSync(path.join(DOCS, 'examples', name), 'utf8');
const task = (id: string, blockedBy: string[] = []) => ({
  op: 'add-task',
  args: { id, initiative: 'core', title: id, body: '', acceptance: 'done', blocked_by: blockedBy },
});

describe('batch (docs/batch.md)', () => {
  let sandbox: Sandbox;

  beforeEach(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
  });
  afterEach(() => sandbox.remove());

  const batch = (document: unknown, flags = ['--as', 'alice']) =>
    sandbox.run(['batch', '--stdin', ...flags], { input: typeof document === 'string' ? document : JSON.stringify(document) });

  /** Runs a batch that must fail, and checks that not one byte of the state directory changed. */
  const refused = async (document: unknown, code: string, flags?: string[]) => {
    const before = treeDigest(projectDir(sandbox));
    const result = await batch(document, flags);
    expect(result.code, result.stdout).to.equal(1);
    expect(result.json.error.code).to.equal(code);
    expect(treeDigest(projectDir(sandbox))).to.deep.equal(before);
    return result.json.error;
  };

  describe('the documented examples', () => {
    it('conform to docs/batch.schema.json, which refuses what the command refuses', () => {
      for (const name of ['batch-plan.json', 'batch-failing.json']) expect(schemaViolations(SCHEMA, JSON.parse(example(name))), name).to.deep.equal([]);
      expect(schemaViolations(SCHEMA, {})).to.deep.equal(['$.operations is required']);
      expect(schemaViolations(SCHEMA, { operations: [{ op: 'add-task', extra: 1 }] })).to.deep.equal(['$.operations[0].extra is not allowed']);
      expect(schemaViolations(SCHEMA, { operations: [], expect_revision: -1 })).to.deep.equal(['$.expect_revision is below 0']);
    });

    it('batch-plan.json applies every item from a file, with each item acting as its agent', async () => {
      writeFileSync(path.join(sandbox.checkout, 'plan.json'), example('batch-plan.json'));
      const result = await sandbox.ok(['batch', '--file', 'plan.json', '--as', 'alice']);
      expect(result.results.map((item: any) => item.op)).to.deep.equal(['add-initiative', 'add-gate', 'add-task', 'add-knowledge']);
      expect(result.results[2].result.node.id).to.equal('T-invoice-api');
      const state = (await sandbox.run(['state'])).json;
      expect(result.revision).to.equal(state.revision);
      expect(Object.keys(state.nodes).sort()).to.deep.equal(['G-schema', 'K-money', 'T-invoice-api']);
      expect(state.edges).to.deep.equal([{ from: 'G-schema', to: 'T-invoice-api', type: 'BLOCKS' }]);
      expect(state.log.map((entry: any) => entry.by)).to.deep.equal(['alice', 'alice', 'alice', 'architect']);
    });

    it('batch-failing.json fails at index 3 with the inner CYCLE_DETECTED, and applies nothing', async () => {
      const error = await refused(example('batch-failing.json'), 'BATCH_OPERATION_FAILED');
      expect(error.details).to.deep.include({ index: 3, op: 'add-edge' });
      expect(error.details.error.code).to.equal('CYCLE_DETECTED');
    });
  });

  it('makes every mutating graph operation of the registry available, and nothing else', async function () {
    // One process per operation of the registry (about sixty): bound by the count, not one command.
    this.timeout(OPERATIONS.length * 3_000);
    for (const operation of OPERATIONS) {
      const result = await batch({ operations: [{ op: operation.name, args: { bogus_argument: 1 } }] });
      expect(result.json.error.code, operation.name).to.equal('BATCH_OPERATION_FAILED');
      const inner = result.json.error.details.error;
      const batchable = operation.scope === 'graph' && operation.mutates;
      expect(inner.message.includes('cannot be batched'), operation.name).to.equal(!batchable);
    }
  });

  it('checks expect_revision under the lock: STATE_REVISION_CONFLICT when it differs', async () => {
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    const error = await refused({ operations: [task('T-1')], expect_revision: 0 }, 'STATE_REVISION_CONFLICT');
    expect(error.details).to.deep.equal({ expected: 0, actual: 1 });
    expect((await batch({ operations: [task('T-1')], expect_revision: 1 })).json.revision).to.equal(2);
  });

  it('lets a later item build on an earlier one, and commits nothing when the last item fails', async () => {
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    const error = await refused({ operations: [task('T-1'), task('T-2', ['T-1']), task('T-3', ['T-404'])] }, 'BATCH_OPERATION_FAILED');
    expect(error.details).to.deep.include({ index: 2, op: 'add-task' });
    expect(error.details.error.code).to.equal('INVALID_EDGE_TARGET');
  });

  it('refuses malformed items with their index and the inner error', async () => {
    await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    const cases: [unknown, string][] = [
      ['not an item', 'INVALID_ARGUMENT'],
      [{ args: {} }, 'MISSING_FIELD'],
      [{ op: 'no-such-op' }, 'INVALID_ARGUMENT'],
      [{ op: 'add-task', args: { id: 'T-1' } }, 'MISSING_FIELD'],
      [{ op: 'add-task', args: [] }, 'INVALID_ARGUMENT'],
      [{ ...task('T-1'), as: '' }, 'INVALID_ARGUMENT'],
      [{ ...task('T-1'), when: 'now' }, 'INVALID_ARGUMENT'],
    ];
    for (const [item, code] of cases) {
      const error = await refused({ operations: [task('T-0'), item] }, 'BATCH_OPERATION_FAILED');
      expect(error.details.index, JSON.stringify(item)).to.equal(1);
      expect(error.details.error.code, JSON.stringify(item)).to.equal(code);
    }
  });

  it('refuses a batch that is not a batch, before touching the state', async () => {
    await refused({ operations: [] }, 'MISSING_AGENT', []);
    await refused('{"operations": [', 'INVALID_ARGUMENT');
    await refused('[]', 'INVALID_ARGUMENT');
    await refused({}, 'MISSING_FIELD');
    await refused({ operations: {} }, 'INVALID_ARGUMENT');
    await refused({ operations: [], extra: true }, 'INVALID_ARGUMENT');
  });

  it('takes exactly one of --file and --stdin, and a readable file', async () => {
    const run = async (args: string[], code: string) => {
      const result = await sandbox.run(['batch', ...args, '--as', 'alice']);
      expect(result.code).to.equal(1);
      expect(result.json.error.code).to.equal(code);
    };
    await run([], 'MISSING_FIELD');
    await run(['--stdin', '--file', 'plan.json'], 'INVALID_ARGUMENT');
    await run(['--file', 'missing.json'], 'INVALID_ARGUMENT');
    expect((await batch({ operations: [] })).json).to.deep.equal({ revision: 0, results: [] });
  });
});
