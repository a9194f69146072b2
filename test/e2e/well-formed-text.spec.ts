import { expect } from 'chai';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { illFormedTextMessage } from '../../domain/well-formed-text.js';
import { openProject } from '../../entrypoints/library/index.js';
import { startApiServer } from '../support/api-server.js';
import { BINARY, Sandbox } from '../support/cli.js';
import { projectDir, treeDigest } from '../support/durability.js';
import { request } from '../support/server-process.js';
import { expectFailuresLeaveStateUntouched } from '../support/failures.js';
import { seedSession } from '../support/linked-server.js';
import { answerOf, callFails, callOk, exchangeLinesThenClose, startMcp } from '../support/mcp.js';
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

/** What an answer shows for half of a surrogate pair (docs/decisions.md). */
const SHOWN = '\ufffd';

/** A sandbox holding the project WRITTEN_BEFORE, its checkout and its storage root. */
function sandboxWrittenBefore(): Sandbox {
  const sandbox = new Sandbox();
  mkdirSync(path.join(sandbox.home, '.taskdag'), { recursive: true });
  cpSync(path.join(WRITTEN_BEFORE, 'projects'), path.join(sandbox.home, '.taskdag', 'projects'), { recursive: true });
  cpSync(path.join(WRITTEN_BEFORE, 'checkout'), sandbox.checkout, { recursive: true });
  return sandbox;
}

/** The digests of the state's own files (the checkpoint and the ledger); reads may add indexes beside them. */
function storedFiles(sandbox: Sandbox): Record<string, string> {
  return Object.fromEntries(Object.entries(treeDigest(projectDir(sandbox))).filter(([name]) => /^(tasks\.json|ledger\.\d+\.jsonl)$/.test(name)));
}

/** Where an answer's ill-formed-text warning says it showed U+FFFD. */
function pathsWarnedOf(answer: { warnings?: { kind: string; texts?: { path: string }[] }[] }): string[] {
  return (answer.warnings ?? []).filter((warning) => warning.kind === 'ill-formed-text').flatMap((warning) => warning.texts!.map((text) => text.path));
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

  it('a project an earlier build wrote with such text still opens, reads and changes: every answer is JSON jq reads, each half shown as U+FFFD and said in warnings, and nothing stored changes', async () => {
    const sandbox = sandboxWrittenBefore();
    try {
      const stored = storedFiles(sandbox);
      const answer = async (args: string[], code = 0) => {
        const result = await sandbox.run(args);
        expect(result.code, args.join(' ')).to.equal(code);
        expect(strictJsonRefusal(result.stdout), args.join(' ')).to.equal(null);
        return result.json;
      };
      const shown = await answer(['show', 'T-1']);
      expect([shown.node.title, shown.node.meta, shown.node.notes.map((note: { text: string }) => note.text)]).to.deep.equal([`half ${SHOWN} of a pair`, { [`k${SHOWN}`]: 'v' }, [`note ${SHOWN}`]]);
      expect(shown.warnings).to.have.length(1);
      expect(shown.warnings[0]).to.deep.include({
        kind: 'ill-formed-text',
        severity: 'warning',
        texts: [
          { path: 'node.title', halves: [{ at: 5, code_unit: 'D83D' }] },
          { path: `node.meta.k${SHOWN}`, key: true, halves: [{ at: 1, code_unit: 'DC00' }] },
          { path: 'node.notes[0].text', halves: [{ at: 5, code_unit: 'D800' }] },
        ],
      });
      const history = await answer(['history', 'T-2']);
      expect(history.entries.map((entry: { by: string }) => entry.by)).to.deep.equal(['alice', `bob${SHOWN}`]);
      expect(history.warnings[0].texts).to.deep.equal([{ path: 'entries[1].by', halves: [{ at: 3, code_unit: 'DFFF' }] }]);
      expect(pathsWarnedOf(await answer(['show', 'T-2']))).to.deep.equal(['node.claim.by']);
      expect(pathsWarnedOf(await answer(['context', 'T-2']))).to.deep.equal(['node.claim.by', 'claim.by', 'alerts[0].claimed_by', 'alerts[0].message']);
      expect(pathsWarnedOf(await answer(['status', '--all']))).to.deep.equal(['tasks.ready[0].title', 'tasks.in_progress[0].claim.by', 'alerts[0].claimed_by', 'alerts[0].message']);
      expect(pathsWarnedOf(await answer(['state']))).to.deep.equal(['nodes.T-1.title', `nodes.T-1.meta.k${SHOWN}`, 'nodes.T-1.notes[0].text', 'nodes.T-2.claim.by', 'log[3].note', 'log[4].by']);
      expect((await answer(['search', 'half', '--all'])).warnings).to.equal(undefined);
      // A failure quoting stored text: the envelope says it too.
      const refused = await answer(['take', 'T-2', '--as', 'carol'], 1);
      expect([refused.error.code, refused.error.details.claimed_by]).to.deep.equal(['ALREADY_CLAIMED', `bob${SHOWN}`]);
      expect(pathsWarnedOf(refused)).to.deep.equal(['error.message', 'error.details.claimed_by']);
      // --no-warnings drops the warning, as every warning; the answer stays JSON jq reads.
      const quiet = await answer(['--no-warnings', 'show', 'T-1']);
      expect([quiet.warnings, quiet.node.title]).to.deep.equal([undefined, `half ${SHOWN} of a pair`]);
      expect(storedFiles(sandbox), 'nothing stored changed').to.deep.equal(stored);
      // The way out: rewrite the field with well-formed text. What is stored is the earlier build's until then.
      const project = await openProject({ checkout: sandbox.checkout, home: path.join(sandbox.home, '.taskdag') });
      expect((await project.run('show', { id: 'T-1' })).node.meta).to.deep.equal({ 'k\udc00': 'v' });
      const updated = await answer(['update', 'T-1', '--title', 'half of a pair', '--as', 'alice']);
      expect(updated.node.title).to.equal('half of a pair');
      expect(pathsWarnedOf(updated)).to.deep.equal([`node.meta.k${SHOWN}`, 'node.notes[0].text']);
      expect(Object.keys((await answer(['state'])).nodes)).to.deep.equal(['T-1', 'T-2']);
    } finally {
      sandbox.remove();
    }
  });

  it('a project an earlier build wrote with such text, on a server: its answers over HTTP, to a linked checkout and over MCP are JSON jq reads with the warning; a pull carries the state as it is', async () => {
    const api = await startApiServer();
    const written = sandboxWrittenBefore();
    const client = new Sandbox();
    try {
      const stored = await (await openProject({ checkout: written.checkout, home: path.join(written.home, '.taskdag') })).run('state', {});
      await client.ok(['link', api.server.origin]);
      seedSession(client, api.server.origin, api.bearer);
      const { project_id } = await client.ok(['init']);
      const auth = { Authorization: `Bearer ${api.bearer}` };
      const transfer = `/v1/projects/${project_id}/transfer`;
      expect((await request(api.server.origin, 'PUT', transfer, { headers: auth, body: { state: stored, expected_revision: null, force: true, agent: 'carol' } })).status).to.equal(200);
      const over = {
        http: await api.op(project_id, 'show', { id: 'T-1' }, null),
        board: await api.get(`/v1/projects/${project_id}/ui/nodes/T-1`),
        refusal: await api.op(project_id, 'take', { id: 'T-2' }, 'carol'),
      };
      for (const [face, answer] of Object.entries(over)) expect(strictJsonRefusal(answer.text), face).to.equal(null);
      expect([over.http.status, over.http.json.node.title, pathsWarnedOf(over.http.json)]).to.deep.equal([200, `half ${SHOWN} of a pair`, ['node.title', `node.meta.k${SHOWN}`, 'node.notes[0].text']]);
      expect(pathsWarnedOf(over.board.json)).to.include('context.node.title');
      expect([over.refusal.status, over.refusal.json.error.code, pathsWarnedOf(over.refusal.json)]).to.deep.equal([409, 'ALREADY_CLAIMED', ['error.message', 'error.details.claimed_by']]);
      // The linked checkout prints what the server answered, its warnings included, a failure's too.
      const shown = await client.run(['show', 'T-1']);
      expect([shown.code, strictJsonRefusal(shown.stdout), pathsWarnedOf(shown.json)]).to.deep.equal([0, null, ['node.title', `node.meta.k${SHOWN}`, 'node.notes[0].text']]);
      const refused = await client.run(['take', 'T-2', '--as', 'carol']);
      expect([refused.code, strictJsonRefusal(refused.stdout), refused.json.error.code, pathsWarnedOf(refused.json)]).to.deep.equal([1, null, 'ALREADY_CLAIMED', ['error.message', 'error.details.claimed_by']]);
      // A pull carries the state exactly as stored: the halves themselves, for the checkout to keep.
      const pulled = await request(api.server.origin, 'GET', transfer, { headers: auth });
      expect(pulled.json.state.nodes['T-1'].title).to.equal('half \ud83d of a pair');
      // MCP, in the checkout written before: a tool's answer is JSON jq reads, with the warning.
      const session = await startMcp(written);
      try {
        const result = (await session.client.callTool({ name: 'show', arguments: { id: 'T-1' } })) as { content: { text: string }[] };
        expect(strictJsonRefusal(result.content[0]!.text)).to.equal(null);
        expect(pathsWarnedOf(answerOf('show', result as never))).to.deep.equal(['node.title', `node.meta.k${SHOWN}`, 'node.notes[0].text']);
      } finally {
        await session.close();
      }
    } finally {
      client.remove();
      written.remove();
      await api.close();
    }
  });
});
