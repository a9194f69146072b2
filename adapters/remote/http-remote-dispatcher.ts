import type http from 'node:http';
import { onFirstUse } from '../lazy-builtin.js';
import { PROTOCOL_HEADER, PROTOCOL_VERSION } from '../protocol.js';
import type { OperationRequest } from '../../application/operation.js';
import { bearerProblem } from '../../application/remote/bearer.js';
import type { LoginAnswer, RemoteServer, TransferAnswer, TransferredState, TransferUpload } from '../../application/ports/remote-server.js';
import { DomainError, ERROR_CODES, type ErrorCode } from '../../domain/errors.js';
import type { State } from '../../domain/model.js';
import { pluginTableProblem, type PluginTable } from '../../domain/plugins.js';

const httpModule = onFirstUse(() => require('node:http') as typeof import('node:http'));
const httpsModule = onFirstUse(() => require('node:https') as typeof import('node:https'));

/** How long one request may take before it counts as failed (docs/remote.md). */
export const DEFAULT_REMOTE_TIMEOUT_MS = 30_000;

export interface RemoteOptions {
  /** The server origin, `http(s)://host:port`, with any base path. */
  origin: string;
  bearer: string | null;
  timeoutMs?: number;
}

/**
 * Runs operations on a taskdag server (docs/http-api.md): `POST /v1/projects/:project/ops/:name`
 * with `{args, agent}` and the bearer; logs in and moves whole states for push and pull. The
 * server's failure envelope comes back as the same DomainError a local run throws; anything else
 * that goes wrong (refused, reset, timed out, not our JSON) is REMOTE_REQUEST_FAILED with the
 * cause in `details`. Never a local fallback.
 */
export class HttpRemoteDispatcher implements RemoteServer {
  private readonly agent: http.Agent;

  constructor(private readonly options: RemoteOptions) {
    const secure = new URL(options.origin).protocol === 'https:';
    this.agent = secure ? new (httpsModule().Agent)({ keepAlive: true }) : new (httpModule().Agent)({ keepAlive: true });
  }

  async dispatch(request: OperationRequest): Promise<unknown> {
    if (request.project === null) {
      throw new DomainError('REMOTE_UNSUPPORTED_OPERATION', `${request.operation} runs on this machine, not on a server`, { operation: request.operation });
    }
    const route = `/v1/projects/${encodeURIComponent(request.project)}/ops/${encodeURIComponent(request.operation)}`;
    return this.post(route, { args: request.args, agent: request.agent });
  }

  async login(password: string): Promise<LoginAnswer> {
    const answer = (await this.post('/v1/auth/login', { password })) as Partial<LoginAnswer>;
    if (typeof answer?.bearer !== 'string' || answer.bearer === '') {
      throw failed('The server answered the login without a bearer', { cause: 'EBADRESPONSE', origin: this.options.origin });
    }
    const problem = bearerProblem(answer.bearer);
    if (problem !== null) {
      throw failed(`The server answered the login with a bearer that ${problem}: it is not stored`, { cause: 'EBADRESPONSE', origin: this.options.origin, problem });
    }
    return { bearer: answer.bearer, expires_at: typeof answer.expires_at === 'string' ? answer.expires_at : null };
  }

  async download(project: string): Promise<TransferredState> {
    const answer = (await this.call('GET', transferRoute(project), null)) as { state?: State; plugins?: unknown };
    if (typeof answer?.state !== 'object' || answer.state === null) {
      throw failed('The server answered the transfer without a state', { cause: 'EBADRESPONSE', origin: this.options.origin });
    }
    const plugins = answer.plugins ?? {};
    const problem = pluginTableProblem(plugins);
    if (problem) throw failed(`The server answered the transfer with an invalid plugin table: ${problem}`, { cause: 'EBADRESPONSE', origin: this.options.origin });
    return { state: answer.state, plugins: plugins as PluginTable };
  }

  async upload(project: string, upload: TransferUpload): Promise<TransferAnswer> {
    const answer = (await this.call('PUT', transferRoute(project), upload)) as Partial<TransferAnswer>;
    if (!Number.isSafeInteger(answer?.revision) || !Number.isSafeInteger(answer?.replaced_revision)) {
      throw failed('The server answered the transfer without its revisions', { cause: 'EBADRESPONSE', origin: this.options.origin });
    }
    return answer as TransferAnswer;
  }

  /** One JSON request; resolves to the body of a 2xx answer, throws the envelope of any other. */
  async post(route: string, body: unknown): Promise<unknown> {
    return this.call('POST', route, body);
  }

  private async call(method: string, route: string, body: unknown): Promise<unknown> {
    const { status, text } = await this.send(method, route, body === null ? '' : JSON.stringify(body));
    return this.answer(route, status, text);
  }

  close(): void {
    this.agent.destroy();
  }

  private answer(route: string, status: number, text: string): unknown {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw failed(`The server answered ${route} with something that is not JSON (HTTP ${status})`, { cause: 'EBADRESPONSE', status });
    }
    if (status >= 200 && status < 300) return json;
    const error = (json as { ok?: unknown; error?: { code?: unknown; message?: unknown; details?: unknown } }).error;
    if ((json as { ok?: unknown }).ok === false && error && ERROR_CODES.includes(error.code as ErrorCode) && typeof error.message === 'string') {
      throw new DomainError(error.code as ErrorCode, error.message, isObject(error.details) ? error.details : {});
    }
    throw failed(`The server answered ${route} with HTTP ${status} and no taskdag error`, { cause: 'EBADRESPONSE', status });
  }

  private send(method: string, route: string, body: string): Promise<{ status: number; text: string }> {
    const url = new URL(route.replace(/^\//, ''), this.options.origin.endsWith('/') ? this.options.origin : `${this.options.origin}/`);
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS;
    const headers: Record<string, string> = {
      [PROTOCOL_HEADER]: PROTOCOL_VERSION,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
    };
    if (this.options.bearer) headers.Authorization = `Bearer ${this.options.bearer}`;
    const transport = url.protocol === 'https:' ? httpsModule() : httpModule();
    return new Promise((resolve, reject) => {
      let deadline: NodeJS.Timeout | undefined;
      const settle = <T>(settler: (value: T) => void) => (value: T) => {
        clearTimeout(deadline);
        settler(value);
      };
      let outgoing: http.ClientRequest;
      try {
        outgoing = transport.request(url, { method, headers, agent: this.agent }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => settle(resolve)({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          response.on('error', (error) =>
            settle(reject)(failed(`The answer from ${url.origin} was cut off: ${error.message}`, { cause: causeOf(error), origin: url.origin, timeout_ms: timeoutMs })),
          );
        });
      } catch (error) {
        // Node checks the headers before anything is sent; the deadline is armed only once there is a request to stop.
        reject(failed(`Cannot send a request to ${url.origin}: ${(error as Error).message}`, { cause: causeOf(error as Error), origin: url.origin }));
        return;
      }
      // A whole-request deadline, not an idle timer: a server that trickles bytes is cut off too.
      deadline = setTimeout(
        () => outgoing.destroy(Object.assign(new Error(`no complete answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })),
        timeoutMs,
      );
      outgoing.on('error', (error) =>
        settle(reject)(failed(`Cannot reach the taskdag server at ${url.origin}: ${error.message}`, { cause: causeOf(error), origin: url.origin, timeout_ms: timeoutMs })),
      );
      outgoing.end(body);
    });
  }
}

function transferRoute(project: string): string {
  return `/v1/projects/${encodeURIComponent(project)}/transfer`;
}

function failed(message: string, details: Record<string, unknown>): DomainError {
  return new DomainError('REMOTE_REQUEST_FAILED', message, details);
}

function causeOf(error: Error): string {
  return (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
