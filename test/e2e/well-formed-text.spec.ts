import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { illFormedTextIn } from '../../domain/well-formed-text.js';
import { startApiServer } from '../support/api-server.js';
import { Sandbox } from '../support/cli.js';
import { projectDir } from '../support/durability.js';
import { request } from '../support/server-process.js';
import { expectFailuresLeaveStateUntouched } from '../support/failures.js';
import { callFails, callOk, startMcp } from '../support/mcp.js';

/** A project the build before this check wrote (commit 256ba74): a title, a meta key, a note and an agent each holding half of a surrogate pair. */
const WRITTEN_BEFORE = path.resolve(__dirname, '../../../test/fixtures/lone-surrogates');

const WIP_LIMIT = path.resolve(__dirname, '../../../examples/plugins/wip-limit.js');

const HAS_JQ = spawnSync('jq', ['--version']).status === 0;

/**
 * Why `file` is not a JSON document (or, for a ledger, a JSON value a line) that jq reads, or
 * null. Without jq on the machine: what jq refuses, strict UTF-8 and no escaped lone surrogate.
 */
function unreadableByJq(file: string): string | null {
  if (HAS_JQ) {
    const jq = spawnSync('jq', ['-e', '.', file], { encoding: 'utf8', timeout: 10_000 });
    return jq.status === 0 ? null : `jq exited ${jq.status}: ${jq.stderr.trim()}`;
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
    const documents = file.endsWith('.jsonl') ? text.split('\n').filter((line) => line.trim() !== '') : [text];
    const found = documents.map((document) => illFormedTextIn(JSON.parse(document))).find((place) => place !== null);
    return found ? `a lone surrogate escaped at ${found.path}` : null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Every JSON file of a project's state (the checkpoint, the ledger, a plugin table) is read by jq. */
function expectReadableByJq(dir: string): void {
  const files = readdirSync(dir).filter((name) => /\.jsonl?$/.test(name) && statSync(path.join(dir, name)).isFile());
  expect(files).to.include('tasks.json');
  for (const name of files) expect(unreadableByJq(path.join(dir, name)), name).to.equal(null);
}

const LONE = '\ud800';
const task = { initiative: 'core', title: 'fine', body: 'b', acceptance: 'a', blocked_by: [] };

/** docs/decisions.md "Text is well-formed Unicode": refused at every entry point, state left readable by jq. */
describe('text holding half of a surrogate pair', function () {
  this.timeout(60_000);

  it('is refused on the command line (--meta, plugin data, a batch file, a batch on stdin) and the files stay readable by jq', async () => {
    const sandbox = new Sandbox();
    try {
      await sandbox.init();
      await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
      await sandbox.ok(['add-task', 'T-1', '--initiative', 'core', '--title', 't', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice']);
      const batchFile = path.join(sandbox.root, 'batch.json');
      writeFileSync(batchFile, JSON.stringify({ operations: [{ op: 'add-task', args: task }, { op: 'add-task', args: { ...task, title: `x${LONE}` } }] }));
      const meta = (value: object) => ['add-task', '--initiative', 'core', '--title', 't', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--meta', JSON.stringify(value), '--as', 'alice'];
      await expectFailuresLeaveStateUntouched(sandbox, [
        { args: meta({ owner: { name: LONE } }), code: 'INVALID_ARGUMENT', details: { operation: 'add-task', field: 'meta', flag: '--meta', path: 'meta.owner.name' } },
        { args: meta({ [`k${LONE}`]: 1 }), code: 'INVALID_ARGUMENT', details: { field: 'meta', path: 'meta', key: true } },
        { args: ['plugin', 'add', WIP_LIMIT, '--data', JSON.stringify({ limit: 2, per_agent: { [`bob${LONE}`]: 1 } }), '--as', 'alice'], code: 'PLUGIN_DATA_INVALID', details: { plugin: 'wip-limit', path: 'per_agent' } },
        { args: ['batch', '--file', batchFile, '--as', 'alice'], code: 'BATCH_OPERATION_FAILED', details: { index: 1, op: 'add-task', error: { code: 'INVALID_ARGUMENT', message: 'args.title holds half of a surrogate pair (a lone \\uD800-\\uDFFF): text must be well-formed Unicode', details: { operation: 'add-task', path: 'args.title' } } } },
      ]);
      const before = (await sandbox.run(['state'])).stdout;
      const stdin = JSON.stringify({ operations: [{ op: 'add-note', args: { id: 'T-1', text: 'n' }, as: `bob${LONE}` }] });
      const piped = await sandbox.run(['batch', '--stdin', '--as', 'alice'], { input: stdin });
      expect(piped.code).to.equal(1);
      expect(piped.json.error).to.deep.include({ code: 'BATCH_OPERATION_FAILED' });
      expect(piped.json.error.details.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { operation: 'add-note', path: 'as' } });
      expect((await sandbox.run(['state'])).stdout).to.equal(before);
      expectReadableByJq(projectDir(sandbox));
    } finally {
      sandbox.remove();
    }
  });

  it('is refused by an MCP tool (add-task, a batch of add-note) and the files stay readable by jq', async () => {
    const sandbox = new Sandbox();
    try {
      await sandbox.init();
      await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
      const session = await startMcp(sandbox, { before: ['--as', 'alice'] });
      try {
        const created = await callOk(session, 'add-task', task);
        const before = (await sandbox.run(['state'])).stdout;
        expect(await callFails(session, 'add-task', { ...task, body: LONE })).to.deep.include({ code: 'INVALID_ARGUMENT', details: { operation: 'add-task', field: 'body', flag: '--body', path: 'body' } });
        const batch = await callFails(session, 'batch', { operations: [{ op: 'add-note', args: { id: created.node.id, text: `${LONE}!` } }] });
        expect(batch.code).to.equal('BATCH_OPERATION_FAILED');
        expect(batch.details.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { operation: 'add-note', path: 'args.text' } });
        expect((await sandbox.run(['state'])).stdout).to.equal(before);
      } finally {
        await session.close();
      }
      expectReadableByJq(projectDir(sandbox));
    } finally {
      sandbox.remove();
    }
  });

  it('is refused by the server, in the arguments, as the agent and as the agent of a push (400), and its files stay readable by jq', async () => {
    const api = await startApiServer();
    try {
      expect((await api.op('p-text', 'init', {}, null)).status).to.equal(200);
      expect((await api.op('p-text', 'add-initiative', { name: 'core' })).status).to.equal(200);
      const before = (await api.op('p-text', 'state', {}, null)).text;
      const title = await api.op('p-text', 'add-task', { ...task, title: LONE });
      expect(title.status).to.equal(400);
      expect(title.json.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { operation: 'add-task', field: 'title', flag: '--title', path: 'title' } });
      const agent = await api.op('p-text', 'add-task', task, `carol${LONE}`);
      expect(agent.status).to.equal(400);
      expect(agent.json.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { operation: 'add-task', field: 'agent', flag: '--as' } });
      const auth = { Authorization: `Bearer ${api.bearer}` };
      const { state } = (await request(api.server.origin, 'GET', '/v1/projects/p-text/transfer', { headers: auth })).json;
      const push = await request(api.server.origin, 'PUT', '/v1/projects/p-text/transfer', { headers: auth, body: { state, expected_revision: null, force: true, agent: `carol${LONE}` } });
      expect(push.status).to.equal(400);
      expect(push.json.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { field: 'agent' } });
      expect((await api.op('p-text', 'state', {}, null)).text).to.equal(before);
      expectReadableByJq(path.join(api.dataRoot, 'projects', 'p-text'));
    } finally {
      await api.close();
    }
  });

  it('a project an earlier build wrote with such text still opens, reads, changes and exports', async () => {
    const sandbox = new Sandbox();
    try {
      mkdirSync(path.join(sandbox.home, '.taskdag'), { recursive: true });
      cpSync(path.join(WRITTEN_BEFORE, 'projects'), path.join(sandbox.home, '.taskdag', 'projects'), { recursive: true });
      cpSync(path.join(WRITTEN_BEFORE, 'checkout'), sandbox.checkout, { recursive: true });
      const shown = await sandbox.ok(['show', 'T-1']);
      expect(shown.node.title).to.equal('half \ud83d of a pair');
      expect(shown.node.meta).to.deep.equal({ 'k\udc00': 'v' });
      expect(shown.node.notes.map((note: { text: string }) => note.text)).to.deep.equal(['note \ud800']);
      expect((await sandbox.ok(['show', 'T-2'])).node.claim.by).to.equal('bob\udfff');
      expect((await sandbox.ok(['history', 'T-2'])).entries.map((entry: { by: string }) => entry.by)).to.deep.equal(['alice', 'bob\udfff']);
      // The way out: rewrite the field with well-formed text.
      expect((await sandbox.ok(['update', 'T-1', '--title', 'half of a pair', '--as', 'alice'])).node.title).to.equal('half of a pair');
      const state = await sandbox.ok(['state']);
      expect(Object.keys(state.nodes)).to.deep.equal(['T-1', 'T-2']);
      expect(state.nodes['T-1'].meta).to.deep.equal({ 'k\udc00': 'v' });
    } finally {
      sandbox.remove();
    }
  });
});
