import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientRequestSchema, ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { illFormedTextIn, illFormedTextMessage, isWellFormedText } from '../../domain/well-formed-text.js';

/**
 * The largest message `taskdag mcp` reads: 16 MiB, what a taskdag server takes in one request body
 * by default (TASKDAG_SERVER_MAX_BODY_BYTES). A tool call carries one operation's arguments.
 */
export const MAX_MCP_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The request schema of each method a client may call, from the SDK's own list. */
const REQUESTS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

type RequestId = string | number | null;

/**
 * MCP over stdio (one JSON-RPC message a line) answering what JSON-RPC 2.0 says a server answers,
 * where the SDK's StdioServerTransport stays silent: a line that is not JSON is a parse error
 * (-32700, id null), JSON that is not a JSON-RPC 2.0 message an invalid request (-32600, with its
 * id when it has a usable one), a request whose params its method refuses invalid params
 * (-32602). A message past `maxMessageBytes` is answered -32600 with `data.code`
 * REQUEST_TOO_LARGE, and the session ends (`endedTooLarge`): the rest of that line cannot be
 * told from the next message. Everything else goes to the MCP server as the SDK's transport
 * hands it.
 */
export class JsonRpcLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Whether the session ended on a message past the size cap (not on the client closing its input). */
  endedTooLarge = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream,
    /** Standard output: the command line's synchronous descriptor writer, or a stream that may ask to wait for 'drain'. */
    private readonly stdout: { write(text: string): boolean; once?(event: 'drain', listener: () => void): unknown },
    private readonly maxMessageBytes = MAX_MCP_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.stdout.write(`${JSON.stringify(message)}\n`) || !this.stdout.once) return;
    await new Promise<void>((resolve) => this.stdout.once!('drain', resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.pause();
    this.pending = [];
    this.onclose?.();
  }

  private readonly onEnd = () => void this.close();

  private readonly onData = (chunk: Buffer | string) => {
    let rest = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (!this.closed) {
      const end = rest.indexOf(0x0a);
      const partBytes = end === -1 ? rest.length : end;
      if (this.pendingBytes + partBytes > this.maxMessageBytes) return void this.tooLarge();
      if (end === -1) {
        this.pending.push(rest);
        this.pendingBytes += rest.length;
        return;
      }
      const line = Buffer.concat([...this.pending, rest.subarray(0, end)]).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
      rest = rest.subarray(end + 1);
      this.receive(line);
    }
  };

  private receive(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      return this.answerError(null, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`);
    }
    if (Array.isArray(value)) return this.answerError(null, ErrorCode.InvalidRequest, 'Invalid Request: MCP takes one JSON-RPC message a line, not a batch');
    const message = JSONRPCMessageSchema.safeParse(value);
    if (!message.success) return this.answerError(usableId(value), ErrorCode.InvalidRequest, `Invalid Request: ${invalidReason(value)}`);
    const request = message.data as { id?: RequestId; method?: string; params?: unknown };
    // Every answer repeats the id: one holding half of a surrogate pair cannot be repeated in JSON a strict reader takes.
    if (typeof request.id === 'string' && !isWellFormedText(request.id)) {
      return this.answerError(null, ErrorCode.InvalidRequest, `Invalid Request: ${illFormedTextMessage('id')}`, { code: 'INVALID_ARGUMENT', path: 'id' });
    }
    const schema = request.id !== undefined && request.method !== undefined ? REQUESTS.get(request.method) : undefined;
    const params = schema?.safeParse({ method: request.method, params: request.params });
    if (params && !params.success) {
      // The schema's issues may quote a value (an enum's), so ill-formed text is told by its place alone.
      const illFormed = illFormedTextIn(request.params, 'params');
      if (illFormed) {
        const where = illFormed.key ? `A key in ${illFormed.path}` : illFormed.path;
        return this.answerError(request.id!, ErrorCode.InvalidParams, `Invalid params for ${request.method}: ${illFormedTextMessage(where)}`, {
          code: 'INVALID_ARGUMENT',
          path: illFormed.path,
          ...(illFormed.key ? { key: true } : {}),
        });
      }
      return this.answerError(request.id!, ErrorCode.InvalidParams, `Invalid params for ${request.method}`, { issues: issuesOf(params.error) });
    }
    this.onmessage?.(message.data);
  }

  private tooLarge(): void {
    this.endedTooLarge = true;
    this.answerError(null, ErrorCode.InvalidRequest, `Invalid Request: a message is larger than ${this.maxMessageBytes} bytes`, {
      code: 'REQUEST_TOO_LARGE',
      limit_bytes: this.maxMessageBytes,
    });
    void this.close();
  }

  private answerError(id: RequestId, code: number, message: string, data?: Record<string, unknown>): void {
    void this.send({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } } as unknown as JSONRPCMessage);
  }
}

/** The id of a message that is not valid otherwise, when it is one JSON-RPC allows; null when it is not. */
function usableId(value: unknown): RequestId {
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Why a JSON value is not a JSON-RPC 2.0 message, in the terms of the JSON-RPC spec. */
function invalidReason(value: unknown): string {
  if (typeof value !== 'object' || value === null) return 'a message is a JSON object';
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if ('id' in message && usableId(message) === null) return 'id must be a string or a number';
  if ('method' in message) return typeof message.method === 'string' ? 'a request or notification has only jsonrpc, id, method and params (an object)' : 'method must be a string';
  if ('result' in message || 'error' in message) return 'a response has jsonrpc, id, and one of result (an object) or error ({code, message})';
  return 'a message has a method (a request or a notification) or a result or an error (a response)';
}

function issuesOf(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string[] {
  return error.issues.slice(0, 5).map((issue) => `${issue.path.map(String).join('.') || '(message)'}: ${issue.message}`);
}
