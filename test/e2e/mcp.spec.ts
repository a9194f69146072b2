import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { countTokens as cl100kTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as o200kTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentGuide } from '../../application/agent-guide.js';
import { argumentsSchema } from '../../application/contract/json-schemas.js';
import { MCP_TOOL_NAMES } from '../../application/contract/mcp-tools.js';
import { OPERATIONS } from '../../application/operations/index.js';
import { BINARY, Sandbox } from '../support/cli.js';
import { callFails, callOk, exchangeLinesThenClose, exchangeThenClose, startMcp, type McpSession } from '../support/mcp.js';
import { agentLoopOverMcp } from '../support/mcp-scenario.js';
import { loginAt, startLinkedServer, type LinkedServer } from '../support/linked-server.js';

const { version } = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string };
/** What an agent pays in context for the tool list before any work starts (issue 16). */
const TOOL_LIST_BUDGET = 3_000;

describe('taskdag mcp (an MCP server over stdio, driven by the SDK client)', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let sessions: McpSession[];
  const start = async (...args: Parameters<typeof startMcp> extends [unknown, ...infer R] ? R : never) => {
    const session = await startMcp(sandbox, ...args);
    sessions.push(session);
    return session;
  };

  beforeEach(() => {
    sandbox = new Sandbox();
    sessions = [];
  });

  afterEach(async () => {
    for (const session of sessions) await session.close();
    sandbox.remove();
  });

  agentLoopOverMcp('in a local project', (sandbox) => sandbox.init());

  // The same loop on a real `server run`: the checkout is linked and logged in, so every tool call
  // goes through the remote client to the server.
  const servers: LinkedServer[] = [];
  after(async () => Promise.all(servers.splice(0).map((server) => server.close())));
  agentLoopOverMcp('in a checkout linked to a real server run', async (sandbox) => {
    const server = await startLinkedServer();
    servers.push(server);
    await sandbox.ok(['link', server.origin]);
    await loginAt(sandbox, server.password);
    await sandbox.ok(['init']);
  });

  it(`lists the agent's tools, derived from the declarations, in at most ${TOOL_LIST_BUDGET} tokens`, async function () {
    await sandbox.init();
    const session = await start({ after: ['--as', 'alice'] });
    const { tools } = await session.client.listTools();
    expect(tools.map((tool) => tool.name)).to.deep.equal([...MCP_TOOL_NAMES]);
    for (const tool of tools) {
      const operation = OPERATIONS.find((candidate) => candidate.name === tool.name)!;
      expect(tool.description).to.equal(operation.summary);
      expect(tool.inputSchema).to.deep.equal(argumentsSchema(operation));
      expect(tool.annotations?.readOnlyHint ?? false, tool.name).to.equal(!operation.mutates);
      // In the tool's own terms: no command-line flag, nothing "printed".
      expect(JSON.stringify(tool), tool.name).not.to.match(/--[a-z]|\bprints?\b/i);
    }
    const answer = session.received.find((message) => 'result' in message && 'tools' in (message.result as object));
    const text = JSON.stringify(answer);
    const measured = { o200k_base: o200kTokens(text), cl100k_base: cl100kTokens(text) };
    // The figures show in the test's line of the report (docs/agents.md quotes them).
    this.test!.title += `: ${measured.o200k_base} (o200k_base), ${measured.cl100k_base} (cl100k_base)`;
    expect(measured.o200k_base, 'o200k_base tokens').to.be.at.most(TOOL_LIST_BUDGET);
    expect(measured.cl100k_base, 'cl100k_base tokens').to.be.at.most(TOOL_LIST_BUDGET);
  });

  it('names itself with the package version, and gives the workflow guide as instructions and as the workflow prompt', async () => {
    await sandbox.init();
    const session = await start({ after: ['--as', 'alice'] });
    expect(session.client.getServerVersion()).to.deep.include({ name: 'taskdag', version });
    expect(session.client.getInstructions()).to.equal(agentGuide('mcp'));
    expect((await session.client.listPrompts()).prompts.map((prompt) => prompt.name)).to.deep.equal(['workflow']);
    const prompt = await session.client.getPrompt({ name: 'workflow' });
    expect(prompt.messages).to.deep.equal([{ role: 'user', content: { type: 'text', text: agentGuide('mcp') } }]);
    const unknown = await session.client.getPrompt({ name: 'nope' }).then(() => null, (error: unknown) => error);
    expect(unknown).to.be.instanceOf(McpError);
  });

  it('answers a tool it does not offer with a protocol error naming UNKNOWN_COMMAND, running nothing', async () => {
    await sandbox.init();
    const before = await sandbox.ok(['state']);
    const session = await start({ after: ['--as', 'alice'] });
    const refused = await session.client.callTool({ name: 'update', arguments: { id: 'T-1', title: 'x' } }).then(() => null, (error: unknown) => error);
    expect(refused).to.be.instanceOf(McpError);
    expect((refused as McpError).code).to.equal(ErrorCode.InvalidParams);
    expect((refused as McpError).data).to.deep.equal({ code: 'UNKNOWN_COMMAND', details: { tool: 'update' } });
    expect(await sandbox.ok(['state'])).to.deep.equal(before);
  });

  it('without an identity reads work and changes fail with MISSING_AGENT', async () => {
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'billing', '--as', 'lead']);
    await sandbox.ok(['add-task', 'T-1', '--initiative', 'billing', '--title', 'One', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'lead']);
    const before = await sandbox.ok(['state']);
    const anonymous = await start();
    expect((await callOk(anonymous, 'status', {})).summary.ready).to.equal(1);
    expect(await callFails(anonymous, 'take', { id: 'T-1' })).to.deep.include({ code: 'MISSING_AGENT', details: { operation: 'take' } });
    expect(await sandbox.ok(['state'])).to.deep.equal(before);
  });

  it('finds the checkout on each call: no project is STORAGE_ERROR until init, and --project names one', async () => {
    const session = await start({ after: ['--as', 'alice'] });
    const missing = await callFails(session, 'status', {});
    expect(missing.code).to.equal('STORAGE_ERROR');
    expect(missing.details.cause).to.equal('ENOENT');
    expect(readdirSync(sandbox.root)).to.not.include('home');

    await sandbox.init();
    expect((await callOk(session, 'status', {})).summary.ready).to.equal(0);

    const elsewhere = await start({ before: ['--project', sandbox.checkout], cwd: sandbox.root, after: ['--as', 'alice'] });
    await sandbox.ok(['add-initiative', 'billing', '--as', 'lead']);
    await callOk(elsewhere, 'add-task', { id: 'T-1', initiative: 'billing', title: 'One', body: '', acceptance: 'a', blocked_by: [] });
    expect((await sandbox.ok(['state'])).nodes['T-1'].created_by).to.equal('alice');
  });

  it('runs through the composition root: a linked checkout without a login answers AUTH_INVALID and nothing is written locally', async () => {
    mkdirSync(sandbox.checkout, { recursive: true });
    const checkoutFile = path.join(sandbox.checkout, '.taskdag.json');
    writeFileSync(checkoutFile, JSON.stringify({ project_id: 'linked-1', backend: { type: 'http', url: 'http://127.0.0.1:9/' } }));
    const session = await start({ after: ['--as', 'alice'] });
    for (const [tool, args] of [['status', {}], ['add-task', { initiative: 'x', title: 't', body: '', acceptance: '', blocked_by: [] }]] as const) {
      const failure = await callFails(session, tool, args);
      expect(failure.code, tool).to.equal('AUTH_INVALID');
    }
    const home = path.join(sandbox.home, '.taskdag');
    expect(existsSync(home) ? readdirSync(home) : []).to.deep.equal([]);
  });

  it('refuses words it does not take with the INVALID_ARGUMENT envelope, starting nothing', async () => {
    const result = await sandbox.run(['mcp', 'extra', '--as', 'alice']);
    expect(result.code).to.equal(1);
    expect(result.json.error).to.deep.include({ code: 'INVALID_ARGUMENT', details: { operation: 'mcp', word: 'extra', command: 'mcp' } });
  });

  it('exits 0 when the client closes its input, its mutations durable', async () => {
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'billing', '--as', 'lead']);
    const task = { id: 'T-last', initiative: 'billing', title: 'Last', body: '', acceptance: 'a', blocked_by: [] };
    const { code, answers } = await exchangeThenClose(BINARY, ['mcp', '--as', 'alice'], { cwd: sandbox.checkout, env: sandbox.env() }, [
      { method: 'tools/call', params: { name: 'add-task', arguments: task } },
    ]);
    expect(code).to.equal(0);
    expect(answers.map((answer) => answer.id)).to.deep.equal([1, 2]);
    expect((await sandbox.ok(['state'])).nodes['T-last'].created_by).to.equal('alice');
  });
});

describe('taskdag mcp answers malformed JSON-RPC as JSON-RPC 2.0 says', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = new Sandbox();
    await sandbox.init();
    await sandbox.ok(['add-initiative', 'billing', '--as', 'lead']);
  });
  const addTask = (id: number, task: string, body = '') =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add-task', arguments: { id: task, initiative: 'billing', title: task, body, acceptance: 'a', blocked_by: [] } } });
  afterEach(() => sandbox.remove());
  const exchange = (lines: string[]) => exchangeLinesThenClose(BINARY, ['mcp', '--as', 'alice'], { cwd: sandbox.checkout, env: sandbox.env() }, lines);
  const errorOf = (answers: any[], id: unknown) => answers.filter((answer) => answer.id === id).map((answer) => answer.error?.code);

  it('parse error -32700 (id null), invalid request -32600, invalid params -32602, and goes on serving', async () => {
    const { code, answers, stderr } = await exchange([
      'not json',
      '{"jsonrpc": "2.0", "id": 2, "method": "tools/list"',
      '[]',
      '[{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}]',
      '42',
      '{"jsonrpc": "2.0", "id": 4}',
      '{"jsonrpc": "1.0", "id": 5, "method": "tools/list"}',
      '{"jsonrpc": "2.0", "id": {"no": 1}, "method": "tools/list"}',
      '{"jsonrpc": "2.0", "id": 6, "method": 7}',
      '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "status", "arguments": 5}}',
      '{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {}}',
      '{"jsonrpc": "2.0", "id": 9, "method": "no/such/method"}',
      '',
      addTask(10, 'T-after'),
    ]);
    expect(code).to.equal(0);
    expect(stderr).to.equal('');
    const nullErrors = answers.filter((answer) => answer.id === null).map((answer) => answer.error.code);
    // not JSON, cut-off JSON, an empty and a non-empty batch, a number, an id that is no id
    expect(nullErrors).to.deep.equal([-32700, -32700, -32600, -32600, -32600, -32600]);
    expect(errorOf(answers, 4)).to.deep.equal([-32600]);
    expect(errorOf(answers, 5)).to.deep.equal([-32600]);
    expect(errorOf(answers, 6)).to.deep.equal([-32600]);
    expect(errorOf(answers, 7)).to.deep.equal([-32602]);
    expect(answers.find((answer) => answer.id === 7).error.data.issues[0]).to.match(/^params\.arguments: /);
    expect(errorOf(answers, 8)).to.deep.equal([-32602]);
    expect(errorOf(answers, 9)).to.deep.equal([-32601]);
    for (const answer of answers) expect(answer.jsonrpc).to.equal('2.0');
    // The session went on: the call after every malformed line ran, and only it changed the project.
    expect(Object.keys((await sandbox.ok(['state'])).nodes)).to.deep.equal(['T-after']);
  });

  it('a message past 16 MiB is answered -32600 REQUEST_TOO_LARGE, said on stderr, and ends the session with status 1, running nothing', async () => {
    const { code, answers, stderr } = await exchange([addTask(2, 'T-huge', 'x'.repeat(16 * 1024 * 1024)), addTask(3, 'T-after')]);
    expect(code).to.equal(1);
    const refusal = answers.find((answer) => answer.id === null);
    expect(refusal.error).to.deep.include({ code: -32600, data: { code: 'REQUEST_TOO_LARGE', limit_bytes: 16 * 1024 * 1024 } });
    expect(answers.map((answer) => answer.id)).not.to.include.members([2, 3]);
    expect(stderr).to.include('larger than 16777216 bytes');
    expect((await sandbox.ok(['state'])).nodes).to.deep.equal({});
  });
});

describe('taskdag mcp loads the MCP SDK only when it runs', function () {
  this.timeout(30_000);
  let sandbox: Sandbox;
  beforeEach(() => (sandbox = new Sandbox()));
  afterEach(() => sandbox.remove());

  /** Runs the binary with a preload that reports, at exit, whether the MCP bundle was loaded. */
  function loadsMcpBundle(args: string[], input: string): Promise<boolean> {
    const probe = path.join(sandbox.root, 'probe.js');
    writeFileSync(probe, `process.on('exit', () => process.stderr.write('mcp-bundle:' + Object.keys(require.cache).some((file) => file.endsWith('taskdag-mcp.js'))));`);
    const child = spawn(process.execPath, ['--require', probe, BINARY, ...args], { cwd: sandbox.checkout, env: sandbox.env() as NodeJS.ProcessEnv });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.end(input);
    return new Promise((resolve) => child.on('close', () => resolve(/mcp-bundle:true/.test(stderr))));
  }

  it('a command does not load it; taskdag mcp does', async () => {
    await sandbox.init();
    expect(await loadsMcpBundle(['status'], '')).to.equal(false);
    expect(await loadsMcpBundle(['onboard'], '')).to.equal(false);
    expect(await loadsMcpBundle(['mcp', '--as', 'alice'], '')).to.equal(true);
  });
});
