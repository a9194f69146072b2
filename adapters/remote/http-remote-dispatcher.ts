import type http from 'node:http';
import { onFirstUse } from '../lazy-builtin.js';
import { CHECKOUT_HEADER, OWNER_HEADER, PROTOCOL_HEADER, PROTOCOL_VERSION, REQUEST_ID_HEADER } from '../protocol.js';
import type { OwnerRoutes } from './owner-routes.js';
import { loginAnswerSchema, transferAnswerSchema, transferStateSchema } from '../../application/contract/results.js';
import type { Schema } from '../../application/contract/schema.js';
import { schemaViolations } from '../../application/contract/schema-check.js';
import { openToAdditions } from '../../application/contract/schema-open.js';
import { schemaTest } from '../../application/contract/schema-test.js';
import type { OperationRequest } from '../../application/operation.js';
import type { OperationRegistry } from '../../application/registry.js';
import { bearerProblem } from '../../application/remote/bearer.js';
import type { LoginAnswer, RemoteServer, TransferAnswer, TransferredState, TransferUpload } from '../../application/ports/remote-server.js';
import { DomainError, ERROR_CODES, type ErrorCode } from '../../domain/errors.js';
import type { State } from '../../domain/model.js';
import { transferredTableProblem, withoutModules, type TransferredPluginTable } from '../../domain/plugins.js';

const httpModule = onFirstUse(() => require('node:http') as typeof import('node:http'));
const httpsModule = onFirstUse(() => require('node:https') as typeof import('node:https'));
const cryptoModule = onFirstUse(() => require('node:crypto') as typeof import('node:crypto'));

/** How long one request may take before it counts as failed (docs/remote.md). */
export const DEFAULT_REMOTE_TIMEOUT_MS = 30_000;

/**
 * The largest answer read from a server (docs/remote.md): 256 MiB, over three times `state` of
 * the 50k-node bench project with its 200k-entry log (77 MB), the largest answer measured.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** How many times a request whose answer was lost is sent again (docs/remote.md, "Retries"). */
export const DEFAULT_REMOTE_RETRIES = 3;

/** The wait before retry n (1, 2, ...) doubles from this: 250, 500, 1000 ms. */
const FIRST_RETRY_DELAY_MS = 250;

/**
 * Failures after which the request may not have reached the server, or its answer may have
 * been lost on the way back: the connection was refused, reset or cut, or the deadline passed.
 * Anything else (an answer that is not ours, too large, a taskdag error) is an answer, never retried.
 */
const RETRIED_CAUSES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT']);

export interface RemoteOptions {
  /** The server origin, `http(s)://host:port`, with any base path. */
  origin: string;
  bearer: string | null;
  /** The checkout the requests come from, `<host>:<directory>` (CHECKOUT_HEADER); null or absent for none. */
  checkout?: string | null;
  /** The operations whose declared result schemas every answer must match. */
  operations: Pick<OperationRegistry, 'get'>;
  timeoutMs?: number;
  maxAnswerBytes?: number;
  /** How many times an operation whose answer was lost is sent again (DEFAULT_REMOTE_RETRIES). */
  retries?: number;
  /** Waits before a retry (a test's clock can make it instant). */
  sleep?: (ms: number) => Promise<void>;
  /** Absent: every request goes to `origin`. Present: a project's requests go to the owner its server named, when the user trusts that address (docs/scaling.md). */
  owners?: OwnerRoutes;
}

/**
 * Runs operations on a taskdag server (docs/http-api.md): `POST /v1/projects/:project/ops/:name`
 * with `{args, agent}` and the bearer; logs in and moves whole states for push and pull. The
 * server's failure envelope comes back as the same DomainError a local run throws; anything else
 * that goes wrong (refused, reset, timed out, not our JSON, an answer larger than the cap or
 * outside its published schema) is REMOTE_REQUEST_FAILED with the cause in `details`. Never a
 * local fallback.
 */
export class HttpRemoteDispatcher implements RemoteServer {
  /** A keep-alive agent per scheme: a trusted owner may be reached over another scheme than the origin. */
  private readonly agents = new Map<string, http.Agent>();

  constructor(private readonly options: RemoteOptions) {}

  private agentFor(protocol: string): http.Agent {
    let agent = this.agents.get(protocol);
    if (!agent) {
      agent = protocol === 'https:' ? new (httpsModule().Agent)({ keepAlive: true }) : new (httpModule().Agent)({ keepAlive: true });
      this.agents.set(protocol, agent);
    }
    return agent;
  }

  async dispatch(request: OperationRequest): Promise<unknown> {
    if (request.project === null) {
      throw new DomainError('REMOTE_UNSUPPORTED_OPERATION', `${request.operation} runs on this machine, not on a server`, { operation: request.operation });
    }
    const operation = this.options.operations.get(request.operation);
    const { result, mutates } = operation;
    // A call that may wait for work on the server (`next --wait`) gets that long on top of the timeout.
    const waitMs = operation.scope === 'graph' ? (operation.waiting?.ms(request.args as Parameters<NonNullable<typeof operation.waiting>['ms']>[0]) ?? 0) : 0;
    const route = `/v1/projects/${encodeURIComponent(request.project)}/ops/${encodeURIComponent(request.operation)}`;
    // One id for the logical request, sent on every attempt: the server applies it once (docs/remote.md).
    const requestId = mutates ? cryptoModule().randomUUID() : null;
    const headers: Record<string, string> = requestId ? { [REQUEST_ID_HEADER]: requestId } : {};
    const retries = this.options.retries ?? DEFAULT_REMOTE_RETRIES;
    const project = request.project;
    const owners = this.options.owners;
    // The project's owner, when the user trusts the address its server named: nothing is forwarded.
    let target = owners?.owner(this.options.origin, project);
    const heard = owners ? (owner: string | undefined) => this.heardOwner(owners, project, owner) : undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.call('POST', route, { args: request.args, agent: request.agent }, openToAdditions(result), headers, waitMs, request.signal, target, heard);
      } catch (error) {
        // A caller gone (an MCP session its client closed) cut the request: the server ends a wait it held; nothing is tried again.
        if (request.signal?.aborted) throw error;
        if (target !== undefined && (isLostAnswer(error) || isNotServingProject(error))) {
          // The owner is gone, cannot be reached from here, or no longer serves this project for
          // this bearer: the linked origin serves it (taking the project over if need be), with the same request id.
          owners!.remember(this.options.origin, project, null);
          target = undefined;
          attempt -= 1;
          continue;
        }
        if (!isLostAnswer(error)) throw error;
        if (attempt > retries) throw withAttempts(error, attempt, requestId);
        await (this.options.sleep ?? delay)(FIRST_RETRY_DELAY_MS * 2 ** (attempt - 1));
      }
    }
  }

  async login(password: string): Promise<LoginAnswer> {
    const answer = await this.call('POST', '/v1/auth/login', { password }, loginAnswerSchema());
    const problem = bearerProblem(answer.bearer);
    if (problem !== null) {
      throw failed(`The server answered the login with a bearer that ${problem}: it is not stored`, { cause: 'EBADRESPONSE', origin: this.options.origin, problem });
    }
    return answer;
  }

  async download(project: string): Promise<TransferredState> {
    const { state, plugins } = await this.call('GET', transferRoute(project), null, transferStateSchema());
    const problem = transferredTableProblem(plugins);
    if (problem) throw failed(`The server answered the transfer with an invalid plugin table: ${problem}`, { cause: 'EBADRESPONSE', origin: this.options.origin });
    // A module path the server sends (one from before plugins travelled by name) is never used here.
    return { state: state as State, plugins: withoutModules(plugins as TransferredPluginTable) };
  }

  async upload(project: string, upload: TransferUpload): Promise<TransferAnswer> {
    const { revision, replaced_revision } = await this.call('PUT', transferRoute(project), upload, transferAnswerSchema());
    return { revision, replaced_revision };
  }

  /** Remembers the owner an answer named when the user trusts its address; an untrusted one is never contacted nor kept. */
  private heardOwner(owners: OwnerRoutes, project: string, advertised: string | undefined): void {
    if (advertised === undefined) return;
    const trusted = owners.trusted(advertised);
    if (trusted !== null) owners.remember(this.options.origin, project, trusted);
  }

  /**
   * One JSON request to `target` (the linked origin when absent); resolves to the body of a 2xx
   * answer that matches `expected`, throws the envelope of any other. `heard` is told the owner
   * an answer names (X-Taskdag-Owner), a refusal's included.
   */
  private async call<T>(
    method: string,
    route: string,
    body: unknown,
    expected: Schema<T>,
    extraHeaders: Record<string, string> = {},
    waitMs = 0,
    signal?: AbortSignal,
    target?: string,
    heard?: (owner: string | undefined) => void,
  ): Promise<T> {
    const { status, text, owner } = await this.send(method, route, body === null ? '' : JSON.stringify(body), extraHeaders, waitMs, signal, target);
    heard?.(owner);
    const answer = this.answer(route, status, text);
    // A fresh process makes one call: the generated test is cheap on its first run, the walk is
    // not, so the walk runs only to say what is wrong with an answer the test refused.
    if (schemaTest(expected)(answer)) return answer as T;
    const violations = schemaViolations(expected, answer, 5);
    if (violations.length > 0) {
      throw failed(`The server answered ${route} with JSON outside its published schema: ${violations[0]}`, {
        cause: 'EBADRESPONSE',
        origin: this.options.origin,
        route,
        violations,
      });
    }
    return answer as T;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
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
      const failure = new DomainError(error.code as ErrorCode, error.message, isObject(error.details) ? error.details : {});
      // Its warnings (text the server showed as U+FFFD) are printed with it, as a local failure's are.
      const { warnings } = json as { warnings?: unknown };
      throw Array.isArray(warnings) ? Object.assign(failure, { warnings }) : failure;
    }
    throw failed(`The server answered ${route} with HTTP ${status} and no taskdag error`, { cause: 'EBADRESPONSE', status });
  }

  private send(
    method: string,
    route: string,
    body: string,
    extraHeaders: Record<string, string>,
    waitMs: number,
    signal?: AbortSignal,
    target = this.options.origin,
  ): Promise<{ status: number; text: string; owner: string | undefined }> {
    const url = new URL(route.replace(/^\//, ''), target.endsWith('/') ? target : `${target}/`);
    const timeoutMs = (this.options.timeoutMs ?? DEFAULT_REMOTE_TIMEOUT_MS) + waitMs;
    const maxAnswerBytes = this.options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    const headers: Record<string, string> = {
      [PROTOCOL_HEADER]: PROTOCOL_VERSION,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
      ...extraHeaders,
    };
    if (this.options.bearer) headers.Authorization = `Bearer ${this.options.bearer}`;
    // URI-encoded: a header carries Latin-1 only, a path may hold any character.
    if (this.options.checkout) headers[CHECKOUT_HEADER] = encodeURIComponent(this.options.checkout);
    const transport = url.protocol === 'https:' ? httpsModule() : httpModule();
    return new Promise((resolve, reject) => {
      let deadline: NodeJS.Timeout | undefined;
      const settle = <T>(settler: (value: T) => void) => (value: T) => {
        clearTimeout(deadline);
        settler(value);
      };
      let outgoing: http.ClientRequest;
      try {
        outgoing = transport.request(url, { method, headers, agent: this.agentFor(url.protocol), ...(signal ? { signal } : {}) }, (response) => {
          // Refused on its declared length before reading, or cut off as soon as it passes the cap: never held whole past it.
          const tooLarge = () => {
            settle(reject)(failed(`The answer from ${url.origin} is larger than ${maxAnswerBytes} bytes (TASKDAG_REMOTE_MAX_ANSWER_BYTES)`, { cause: 'ETOOLARGE', origin: url.origin, limit_bytes: maxAnswerBytes }));
            outgoing.destroy();
          };
          if (Number(response.headers['content-length'] ?? 0) > maxAnswerBytes) return tooLarge();
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxAnswerBytes) return tooLarge();
            chunks.push(chunk);
          });
          const owner = response.headers[OWNER_HEADER.toLowerCase()];
          response.on('end', () => settle(resolve)({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), owner: typeof owner === 'string' ? owner : undefined }));
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

/** A failure after which the server may or may not have the request: what a retry is for. */
function isLostAnswer(error: unknown): error is DomainError {
  return error instanceof DomainError && error.code === 'REMOTE_REQUEST_FAILED' && RETRIED_CAUSES.has(String(error.details.cause));
}

/**
 * An answer showing that its address is not, or no longer, a server of the project for this
 * client: it holds no such project (another database), refuses the bearer (AUTH_INVALID: every
 * process of one deployment takes the same bearers), or is not a taskdag server at all (an error
 * status without taskdag's envelope). A server refuses an absent project or an unknown bearer
 * before the operation runs, and the request id sent again covers whatever a foreign error page
 * (a proxy's, say) may hide: a deployment applies one id once. A 403 (AGENT_NOT_ALLOWED) does
 * not qualify: it is given only to a bearer the address knows, so the address is of this
 * deployment and the origin would say the same. Nor does an error of the operation itself
 * (NODE_NOT_FOUND, ALREADY_CLAIMED, ...): it is the owner's answer, passed on as it is. Sending
 * it to the origin could not apply a mutation twice (the origin forwards it to the same owner,
 * which answers the request id from its record), but it would cost a request and answer no
 * differently.
 */
function isNotServingProject(error: unknown): boolean {
  if (!(error instanceof DomainError)) return false;
  if (error.code === 'PROJECT_NOT_FOUND' || error.code === 'AUTH_INVALID') return true;
  const status = Number(error.details.status);
  return error.code === 'REMOTE_REQUEST_FAILED' && error.details.cause === 'EBADRESPONSE' && status >= 300;
}

/** The last attempt's failure, saying how many were made and under which request id. */
function withAttempts(error: DomainError, attempts: number, requestId: string | null): DomainError {
  const tried = attempts > 1 ? ` (${attempts} attempts)` : '';
  return new DomainError('REMOTE_REQUEST_FAILED', `${error.message}${tried}`, { ...error.details, attempts, ...(requestId ? { request_id: requestId } : {}) });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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
