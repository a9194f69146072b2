import { expect } from 'chai';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { Sandbox } from '../support/cli.js';
import { expectFailuresLeaveStateUntouched } from '../support/failures.js';
import { callFails, startMcp } from '../support/mcp.js';

/** A task's arguments with the initiative flag misspelt, as a batch item, an HTTP body and an MCP call carry them. */
const MISSPELT_TASK = { id: 'T-new', intiative: 'billing', title: 't', body: 'b', acceptance: 'a', blocked_by: [] };
const MISSPELT_ERROR = {
  code: 'INVALID_ARGUMENT',
  message: 'add-task does not take --intiative: did you mean --initiative?',
  details: { operation: 'add-task', field: 'intiative', flag: '--intiative', suggestions: ['--initiative'] },
};
const WRONG_CASE_ERROR = {
  code: 'NODE_NOT_FOUND',
  message: 'No node with id t-abc: did you mean T-Abc?',
  details: { id: 't-abc', suggestions: ['T-Abc'] },
};

describe('errors that teach (closest command, flag, value or id; every word not taken named)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'billing', '--as', 'alice']);
    await sandbox.ok(['add-task', 'T-Abc', '--initiative', 'billing', '--title', 't', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice']);
  });
  afterEach(() => sandbox.remove());

  it('the command line suggests the closest command, flag, value and id, exit 2 for a command, 1 otherwise, writing nothing', async () => {
    const task = ['add-task', 'T-new', '--title', 't', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice'];
    await expectFailuresLeaveStateUntouched(sandbox, [
      { args: ['tkae', 'T-Abc', '--as', 'alice'], code: 'UNKNOWN_COMMAND', exit: 2, details: { command: 'tkae', suggestions: ['take'] } },
      { args: ['stauts'], code: 'UNKNOWN_COMMAND', exit: 2, details: { command: 'stauts', suggestions: ['status', 'state'] } },
      { args: ['server', 'rnu', 'srv/server.json'], code: 'UNKNOWN_COMMAND', exit: 2, details: { command: 'server rnu', suggestions: ['server run', 'server init'] } },
      { args: [...task, '--intiative', 'billing'], code: 'INVALID_ARGUMENT', details: { ...MISSPELT_ERROR.details, command: 'add-task' } },
      { args: ['take', 't-abc', '--as', 'alice'], code: 'NODE_NOT_FOUND', details: WRONG_CASE_ERROR.details },
      { args: ['status', '--kind', 'tsk'], code: 'INVALID_ARGUMENT', details: { flag: '--kind', suggestions: ['task'] } },
      { args: [...task, '--initiative', 'biling'], code: 'INITIATIVE_NOT_FOUND', details: { initiative: 'biling', suggestions: ['billing'] } },
    ]);
    const misspelt = await sandbox.run([...task, '--intiative', 'billing']);
    expect(misspelt.json.error.message).to.equal(MISSPELT_ERROR.message);
    expect((await sandbox.run(['take', 't-abc', '--as', 'alice'])).json.error.message).to.equal(WRONG_CASE_ERROR.message);
    const kind = await sandbox.run(['status', '--kind', 'tsk']);
    expect(kind.json.error.message).to.equal('Invalid --kind: Expected one of "task", "gate", or "knowledge" (got "tsk"): did you mean task?');
    expect(kind.json.error.details.errors).to.deep.equal(['Expected one of "task", "gate", or "knowledge" (got "tsk")']);
  });

  it('names every option or word a command does not take, and an option missing its value', async () => {
    await expectFailuresLeaveStateUntouched(sandbox, [
      { args: ['status', '--colour', 'red'], code: 'INVALID_ARGUMENT', details: { operation: 'status', flag: '--colour', command: 'status' } },
      { args: ['add-task', 'T-new', '--supersedes', 'T-Abc', '--as', 'alice'], code: 'INVALID_ARGUMENT', details: { flag: '--supersedes' } },
      { args: ['state', '-x'], code: 'INVALID_ARGUMENT', details: { flag: '-x', command: 'state' } },
      { args: ['show', 'T-Abc', 'T-other'], code: 'INVALID_ARGUMENT', details: { operation: 'show', word: 'T-other' } },
      { args: ['onboard', '--bogus'], code: 'INVALID_ARGUMENT', details: { flag: '--bogus', command: 'onboard' } },
      { args: ['add-task', 'T-new', '--title'], code: 'INVALID_ARGUMENT', details: { flag: '--title' } },
      { args: ['status', '--all', 'false'], code: 'INVALID_ARGUMENT', details: { flag: '--all', word: 'false' } },
      { args: ['batch', '--fil', 'plan.json', '--as', 'alice'], code: 'INVALID_ARGUMENT', details: { flag: '--fil', suggestions: ['--file'] } },
    ]);
    for (const [args, named] of [
      [['status', '--colour', 'red'], '--colour'],
      [['show', 'T-Abc', 'T-other'], '"T-other"'],
      [['add-task', 'T-new', '--title'], '--title needs a value'],
      [['status', '--all', 'false'], 'write --all=false'],
    ] as const) {
      const { json } = await sandbox.run([...args]);
      expect(json.error.message, args.join(' ')).to.include(named).and.not.to.include('an unknown option, an extra positional');
    }
  });

  it('a batch item answers the same error and suggestions as the command line, inside BATCH_OPERATION_FAILED', async () => {
    const before = await sandbox.run(['state']);
    const batch = (operations: unknown[]) => sandbox.run(['batch', '--stdin', '--as', 'alice'], { input: JSON.stringify({ operations }) });
    const misspelt = await batch([{ op: 'add-task', args: MISSPELT_TASK }]);
    expect(misspelt.code).to.equal(1);
    expect(misspelt.json.error.code).to.equal('BATCH_OPERATION_FAILED');
    expect(misspelt.json.error.details.error).to.deep.equal(MISSPELT_ERROR);
    const wrongCase = await batch([{ op: 'add-note', args: { id: 't-abc', text: 'x' } }]);
    expect(wrongCase.json.error.details.error).to.deep.equal(WRONG_CASE_ERROR);
    const unknownOp = await batch([{ op: 'ad-task', args: {} }]);
    expect(unknownOp.json.error.details.error.details).to.deep.include({ op: 'ad-task', suggestions: ['add-task'] });
    expect((await sandbox.run(['state'])).stdout).to.equal(before.stdout);
  });

  it('an MCP tool call answers the same error and suggestions as the command line', async () => {
    const session = await startMcp(sandbox, { after: ['--as', 'alice'] });
    try {
      // The message speaks in the tool's terms (its parameters by name); code and details are the same.
      const message = 'add-task does not take intiative: did you mean initiative?';
      expect(await callFails(session, 'add-task', MISSPELT_TASK)).to.deep.equal({ ...MISSPELT_ERROR, message });
      expect(await callFails(session, 'take', { id: 't-abc' })).to.deep.equal(WRONG_CASE_ERROR);
    } finally {
      await session.close();
    }
  });

  describe('over HTTP', () => {
    let api: ApiServer;
    before(async () => {
      api = await startApiServer();
      await api.op('p-teach', 'init', {});
      await api.op('p-teach', 'add-initiative', { name: 'billing' });
      await api.op('p-teach', 'add-task', { id: 'T-Abc', initiative: 'billing', title: 't', body: 'b', acceptance: 'a', blocked_by: [] });
    });
    after(() => api.close());

    it('a server answers the same error and suggestions as the command line', async () => {
      const misspelt = await api.op('p-teach', 'add-task', MISSPELT_TASK);
      expect(misspelt.status).to.equal(400);
      expect(misspelt.json.error).to.deep.equal(MISSPELT_ERROR);
      const wrongCase = await api.op('p-teach', 'take', { id: 't-abc' });
      expect(wrongCase.status).to.equal(404);
      expect(wrongCase.json.error).to.deep.equal(WRONG_CASE_ERROR);
      const unknown = await api.op('p-teach', 'stauts', {});
      expect(unknown.json.error).to.deep.include({ code: 'UNKNOWN_COMMAND', details: { operation: 'stauts', suggestions: ['status', 'state'] } });
    });
  });
});
