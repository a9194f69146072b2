import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { agentGuide } from '../../application/agent-guide.js';
import { checkMcpBatch, inToolTerms, mcpTools } from '../../application/contract/mcp-tools.js';
import { wellFormedAnswerText } from '../../application/contract/well-formed-answer.js';
import { OPERATIONS } from '../../application/operations/index.js';
import { OperationRegistry } from '../../application/registry.js';
import type { AgentName } from '../../domain/model.js';
import { closestTo, didYouMean } from '../../domain/suggestions.js';
import { illFormedTextMessage, isWellFormedText } from '../../domain/well-formed-text.js';
import { KeptStates } from '../../adapters/fs-project-store.js';
import { runInCheckout, type Environment } from '../compose.js';
import { errorEnvelope } from '../envelope.js';
import { mcpHostPorts } from './host-ports.js';
import { JsonRpcLineTransport, MAX_MCP_MESSAGE_BYTES } from './json-rpc-lines.js';

declare const TASKDAG_VERSION: string;
const VERSION = typeof TASKDAG_VERSION === 'string' ? TASKDAG_VERSION : '0.0.0-dev';

const WORKFLOW_PROMPT = 'workflow';

export interface McpOptions {
  /** Where checkouts are found (`cwd`, `--project`) and the storage root (`env`), as for any command. */
  environment: Environment;
  /** The one identity of every call, fixed at start (docs/agents.md: no per-call override). */
  agent: AgentName | null;
  stdin: NodeJS.ReadableStream;
  stdout: { write(text: string): boolean; once?(event: 'drain', listener: () => void): unknown };
  /** Where the end of a session on an over-size message is said: stdout carries only JSON-RPC. */
  stderr: { write(text: string): boolean };
}

/**
 * `taskdag mcp`: an MCP server over stdio whose tools are the agent's loop (mcp-tools.ts). Each
 * call runs through the composition root as a command does, so a tool answers exactly what its
 * command prints, in a local checkout and a linked one alike; the checkout is resolved per call,
 * as a command would. Resolves to the exit status: 0 when the client closes standard input, 1
 * when the session ended on a message past the size cap (said on stderr).
 */
export async function serveMcp(options: McpOptions): Promise<number> {
  const registry = new OperationRegistry(OPERATIONS);
  const tools = mcpTools(registry);
  // The client closing standard input ends the session (MCP's stdio shutdown): a call still waiting
  // for work (`next` with `wait`) stops and claims nothing more, for a client that is gone.
  const ending = new AbortController();
  const offered = new Set(tools.map((tool) => tool.name));
  const guide = agentGuide('mcp');
  // The session's calls each start from the state its last transaction left (KeptStates): an
  // agent's claim catches up with the others' commits instead of loading and ranking afresh.
  const kept = new KeptStates();
  const server = new Server(
    { name: 'taskdag', version: VERSION },
    { capabilities: { tools: {}, prompts: {} }, instructions: guide },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }): Promise<CallToolResult> => {
    if (!offered.has(params.name)) {
      if (!isWellFormedText(params.name)) throw illFormedName('tool');
      const suggestions = closestTo(params.name, offered);
      const guess = suggestions.length > 0 ? `${didYouMean(suggestions)} ` : ': ';
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${params.name}${guess}taskdag offers ${[...offered].join(', ')}`, {
        code: 'UNKNOWN_COMMAND',
        details: { tool: params.name, ...(suggestions.length > 0 ? { suggestions } : {}) },
      });
    }
    try {
      if (params.name === 'batch') checkMcpBatch(params.arguments);
      const result = await runInCheckout(options.environment, { operation: params.name, args: params.arguments ?? {}, agent: options.agent, signal: ending.signal }, mcpHostPorts, kept);
      return textResult(result, false);
    } catch (error) {
      const itemTool = (name: string) => (offered.has(name) ? registry.get(name) : undefined);
      return textResult(inToolTerms(errorEnvelope(error), registry.get(params.name), itemTool), true);
    }
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: [{ name: WORKFLOW_PROMPT, description: 'How to work in a taskdag project: pick, claim, hand in with evidence, review, decide gates, record knowledge' }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, ({ params }) => {
    if (params.name !== WORKFLOW_PROMPT) {
      if (!isWellFormedText(params.name)) throw illFormedName('prompt');
      throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${params.name}: taskdag offers ${WORKFLOW_PROMPT}`);
    }
    return { description: 'The taskdag workflow', messages: [{ role: 'user', content: { type: 'text', text: guide } }] };
  });

  const transport = new JsonRpcLineTransport(options.stdin, options.stdout);
  const closed = new Promise<void>(
    (resolve) =>
      (server.onclose = () => {
        ending.abort();
        resolve();
      }),
  );
  await server.connect(transport);
  await closed;
  if (!transport.endedTooLarge) return 0;
  options.stderr.write(`taskdag mcp: a message was larger than ${MAX_MCP_MESSAGE_BYTES} bytes; answered -32600 (REQUEST_TOO_LARGE) and stopped\n`);
  return 1;
}

/** The one JSON value a command would print, as the text of a tool result; a failure is its envelope. */
function textResult(value: unknown, isError: boolean): CallToolResult {
  return { content: [{ type: 'text', text: wellFormedAnswerText(JSON.stringify(value), { warn: true }) }], ...(isError ? { isError: true } : {}) };
}

/**
 * A tool or prompt name holding half of a surrogate pair: refused as any ill-formed text is
 * (INVALID_ARGUMENT), unnamed, since no answer a strict JSON reader takes could carry it.
 */
function illFormedName(kind: 'tool' | 'prompt'): McpError {
  return new McpError(ErrorCode.InvalidParams, illFormedTextMessage(`The ${kind} name`), { code: 'INVALID_ARGUMENT', details: { field: 'name' } });
}
