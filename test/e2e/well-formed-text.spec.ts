import { expect } from 'chai';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { illFormedTextMessage } from '../../domain/well-formed-text.js';
import { openProject } from '../../entrypoints/library/index.js';
import { startApiServer } from '../support/api-server.js';
import { BINARY, Sandbox } from '../support/cli.js';
import { projectDir } from '../support/durability.js';
import { request } from '../support/server-process.js';
import { expectFailuresLeaveStateUntouched } from '../support/failures.js';
import { callFails, callOk, exchangeLinesThenClose, startMcp } from '../support/mcp.js';
import { strictJsonRefusal } from '../support/strict-json.js';

/** A project the build before this check wrote (commit 256ba74): a title, a meta key, a note and an agent each holding half of a surrogate pair. */
const WRITTEN_BEFORE = path.resolve(__dirname, '../../../test/fixtures/lone-surrogates');

const WIP_LIMIT = path.resolve(__dirname, '../../../examples/plugins/wip-limit.js');

/** Why `file` is not a JSON document (or, for a ledger, a JSON value a line) that jq reads, or null. */
function unreadableByJq(file: string): string | null {
  return strictJsonRefusal(readFileSync(file), file.endsWith('.jsonl'));
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

  it('is never echoed over MCP: a tool, a prompt, an id, a refused parameter, a batch item\'s op; every line is JSON jq reads, and nothing ran', async () => {
    const sandbox = new Sandbox();
    try {
      await sandbox.init();
      await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
      const before = (await sandbox.run(['state'])).stdout;
      const call = (id: unknown, method: string, params: object) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
      const { code, answers, stdout } = await exchangeLinesThenClose(BINARY, ['mcp', '--as', 'alice'], { cwd: sandbox.checkout, env: sandbox.env() }, [
        call(2, 'tools/call', { name: `take${LONE}`, arguments: { id: 'T-1' } }),
        call(3, 'prompts/get', { name: LONE }),
        call(`id${LONE}`, 'tools/list', {}),
        call(4, 'logging/setLevel', { level: LONE }),
        call(5, 'tools/call', { name: 'batch', arguments: { operations: [{ op: `add-task${LONE}`, args: task, as: 'bob' }] } }),
      ]);
      expect(code).to.equal(0);
      expect(strictJsonRefusal(stdout, true)).to.equal(null);
      const answerTo = (id: unknown) => answers.find((answer) => answer.id === id);
      expect(answerTo(2).error).to.deep.include({ code: -32602, data: { code: 'INVALID_ARGUMENT', details: { field: 'name' } } });
      expect(answerTo(2).error.message).to.include(illFormedTextMessage('The tool name'));
      expect(answerTo(3).error).to.deep.include({ code: -32602, data: { code: 'INVALID_ARGUMENT', details: { field: 'name' } } });
      expect(answerTo(null).error).to.deep.include({ code: -32600, data: { code: 'INVALID_ARGUMENT', path: 'id' } });
      expect(answerTo(4).error).to.deep.include({ code: -32602, data: { code: 'INVALID_ARGUMENT', path: 'params.level' } });
      const batch = JSON.parse(answerTo(5).result.content[0].text);
      expect(batch.error).to.deep.include({ code: 'BATCH_OPERATION_FAILED', details: { index: 0, op: null, error: { code: 'INVALID_ARGUMENT', message: "A batch item over MCP is done as this server's agent: leave as out", details: { field: 'as' } } } });
      expect((await sandbox.run(['state'])).stdout).to.equal(before);
    } finally {
      sandbox.remove();
    }
  });

  it('is never echoed by the server: a key the body of an operation or of a push does not take (400), an operation\'s name; jq reads every answer, and nothing changed', async () => {
    const api = await startApiServer();
    try {
      expect((await api.op('p-echo', 'init', {}, null)).status).to.equal(200);
      const before = (await api.op('p-echo', 'state', {}, null)).text;
      const auth = { Authorization: `Bearer ${api.bearer}` };
      const operation = await request(api.server.origin, 'POST', '/v1/projects/p-echo/ops/add-initiative', { headers: auth, body: { args: { name: 'core' }, agent: 'alice', [`x${LONE}`]: 1 } });
      expect(operation.status).to.equal(400);
      expect(operation.json.error).to.deep.equal({ code: 'INVALID_ARGUMENT', message: illFormedTextMessage('A key of the body'), details: { path: '', key: true } });
      const { state } = (await request(api.server.origin, 'GET', '/v1/projects/p-echo/transfer', { headers: auth })).json;
      const push = await request(api.server.origin, 'PUT', '/v1/projects/p-echo/transfer', { headers: auth, body: { state, expected_revision: null, force: true, agent: 'carol', [LONE]: true } });
      expect(push.status).to.equal(400);
      expect(push.json.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { path: '', key: true } });
      // A path carries no lone surrogate (its escapes are bytes, and these are no UTF-8): the name comes back as sent.
      const named = await request(api.server.origin, 'POST', '/v1/projects/p-echo/ops/%ED%A0%80', { headers: auth, body: { args: {}, agent: 'alice' } });
      expect([named.status, named.json.error.code]).to.deep.equal([404, 'UNKNOWN_COMMAND']);
      for (const answer of [operation, push, named]) expect(strictJsonRefusal(answer.text)).to.equal(null);
      expect((await api.op('p-echo', 'state', {}, null)).text).to.equal(before);
    } finally {
      await api.close();
    }
  });

  it('is never echoed by the library: an operation named with it is INVALID_ARGUMENT, unnamed, and nothing ran', async () => {
    const sandbox = new Sandbox();
    try {
      await sandbox.init();
      const project = await openProject({ checkout: sandbox.checkout, home: path.join(sandbox.home, '.taskdag') });
      const before = (await sandbox.run(['state'])).stdout;
      const failure = await project.run(`add-initiative${LONE}` as 'add-initiative', { name: 'core' }, { agent: 'alice' }).then(
        () => null,
        (error: { code: string; message: string; details: object }) => ({ code: error.code, message: error.message, details: error.details }),
      );
      expect(failure).to.deep.equal({ code: 'INVALID_ARGUMENT', message: illFormedTextMessage('The operation name'), details: { field: 'operation' } });
      expect((await sandbox.run(['state'])).stdout).to.equal(before);
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
