import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { BINARY, type Sandbox } from './cli.js';
import { outputViolation } from './output-schemas.js';

/** A client of a running `taskdag mcp`, with every message the server sent, as it sent it. */
export interface McpSession {
  client: Client;
  received: JSONRPCMessage[];
  close(): Promise<void>;
}

export interface McpStart {
  /** Words before `mcp` (global flags) and after it. */
  before?: string[];
  after?: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** Starts the built binary's `taskdag mcp` in the sandbox and connects the SDK's own client over stdio. */
export async function startMcp(sandbox: Sandbox, start: McpStart = {}): Promise<McpSession> {
  const cwd = start.cwd ?? sandbox.checkout;
  mkdirSync(cwd, { recursive: true });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BINARY, ...(start.before ?? []), 'mcp', ...(start.after ?? [])],
    cwd,
    env: definedOnly(sandbox.env(start.env)),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'taskdag-tests', version: '1.0.0' });
  const received: JSONRPCMessage[] = [];
  const connecting = client.connect(transport);
  // The client installs its handler on connect; wrapping it records each answer before parsing.
  const handle = transport.onmessage!;
  transport.onmessage = (message) => {
    received.push(message);
    handle(message);
  };
  await connecting;
  return { client, received, close: () => client.close() };
}

/** The JSON value a tool answered, held to the operation's published schema (or the envelope's). */
export function answerOf(tool: string, result: CallToolResult): any {
  const [content] = result.content;
  if (result.content.length !== 1 || content?.type !== 'text') throw new Error(`${tool} answered ${JSON.stringify(result.content)}`);
  const value = JSON.parse(content.text);
  const violation = outputViolation(tool, value);
  if (violation) throw new Error(`${tool} answered JSON outside ${violation}`);
  return value;
}

/** Calls a tool that must succeed; its result is the JSON the command prints. */
export async function callOk(session: McpSession, tool: string, args: Record<string, unknown>): Promise<any> {
  const result = (await session.client.callTool({ name: tool, arguments: args })) as CallToolResult;
  const value = answerOf(tool, result);
  if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(value)}`);
  return value;
}

/** Calls a tool that must fail; resolves to the envelope's `error` ({ code, message, details }). */
export async function callFails(session: McpSession, tool: string, args: Record<string, unknown>): Promise<any> {
  const result = (await session.client.callTool({ name: tool, arguments: args })) as CallToolResult;
  const value = answerOf(tool, result);
  if (result.isError !== true || value.ok !== false) throw new Error(`${tool} succeeded: ${JSON.stringify(value)}`);
  return value.error;
}

/**
 * Without the SDK: starts `node <binary> <args>`, initializes, sends each request, then closes its
 * input at once. Resolves to the exit status and every answer line, as sent. The answers are
 * numbered from 1 (initialize), then 2, 3... for the requests.
 */
export async function exchangeThenClose(
  binary: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
  requests: { method: string; params: object }[],
): Promise<{ code: number | null; answers: any[] }> {
  return exchangeLinesThenClose(binary, args, options, requests.map((request, index) => JSON.stringify({ jsonrpc: '2.0', id: index + 2, ...request })));
}

/**
 * Like exchangeThenClose, with `lines` sent as they are, one a line (malformed ones included),
 * after initialize. Resolves to the exit status, every answer line parsed, stderr, and stdout as sent; a server
 * still running after 30 s is killed (the status is then null).
 */
export function exchangeLinesThenClose(
  binary: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
  lines: string[],
): Promise<{ code: number | null; answers: any[]; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [binary, ...args], { cwd: options.cwd, env: definedOnly(options.env) });
  let stdout = '';
  let stderr = '';
  // Decoded as one stream each (cli.ts): a character split across two reads of the pipe stays whole.
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (stdout += chunk));
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  // A server that stops reading (an over-size message) closes the pipe under what is still being written.
  child.stdin.on('error', () => undefined);
  const line = (message: object) => JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n';
  child.stdin.write(line({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
  child.stdin.write(line({ method: 'notifications/initialized' }));
  child.stdin.end(lines.map((text) => `${text}\n`).join(''));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, answers: stdout.trim().split('\n').filter(Boolean).map((text) => JSON.parse(text)), stderr, stdout });
    });
  });
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
