import http from 'node:http';
import { isOwnedElsewhere, type ProjectOwners } from '../../application/ports/project-owners.js';
import { DomainError } from '../../domain/errors.js';
import { OWNER_HEADER, PROTOCOL_HEADER, PROTOCOL_VERSION, REQUEST_ID_HEADER } from '../protocol.js';

/** Marks a request one server process forwarded to another: it is served there or refused, never forwarded again. */
export const FORWARDED_HEADER = 'X-Taskdag-Forwarded';

/** The headers of the owner's answer that say something to the client (a refused bearer's challenge, when to try again, the owner's address), relayed with it. */
const RELAYED_HEADERS = ['www-authenticate', 'retry-after', OWNER_HEADER.toLowerCase()];

/** Between two tries at an owner that still holds its lease but did not answer. */
const RETRY_MS = 100;

/**
 * The share of a lease a read relayed to its project's owner waits for the answer before this
 * process serves it itself (2 s with the default lease): any process can serve a read, so a slow
 * or paused owner costs a read this much, not a lease. A share, not a fixed time, so that a
 * longer lease (an owner known to answer slowly: under a profiler, say) waits longer too.
 */
const READ_PATIENCE_SHARE = 0.2;

/** A mutation as the owner is to receive it: the same route, body, bearer and request id. */
export interface ForwardedRequest {
  project: string;
  path: string;
  body: string;
  authorization: string;
  /** Always one for a mutation: a forwarded mutation tried again after its owner died applies once. None for a read. */
  requestId?: string;
  /** How long the owner may hold it waiting for work (`next --wait`), on top of the usual bounds. */
  waitMs?: number;
  /** Aborted when the client has gone: the forward is cut (the owner then ends a wait it holds) and not tried again. */
  signal?: AbortSignal;
}

/** How the owner's answer starts: what is relayed before its body. */
interface AnswerHead {
  status: number;
  contentType: string;
  /** The headers of RELAYED_HEADERS it carried, by lower-case name. */
  headers: Record<string, string>;
}

/** The owner's answer, read whole (a mutation's: whether the owner refused it as moved is in its body). */
export interface OwnerAnswer extends AnswerHead {
  text: string;
}

/**
 * The owner's answer to a read, its body still arriving: relayed as it comes, so that a large
 * answer (a whole `state`) is not held here as well as at the owner. `length` is its declared
 * Content-Length, if any. A body cut off at the owner ends in an error, not an end.
 */
export interface OwnerStream extends AnswerHead {
  length: number | undefined;
  body: http.IncomingMessage;
}

/**
 * Hands mutations and reads of projects another server process owns to that process
 * (docs/scaling.md, "Failover"), over HTTP with keep-alive connections, and keeps trying within a bound when the
 * owner does not answer: after each failure the owner is asked of the database again, which takes
 * the project over when its owner is gone (then the request is served here, `serveHere`).
 * Every forwarded mutation carries a request id, so one that reached an owner which died before
 * answering is answered from its commit when tried again, not applied twice.
 */
export class OwnerForwarding {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  /**
   * `answerWithinMs`: how long one try waits for the owner's answer; `giveUpAfterMs`: how long a
   * request keeps trying before it fails with STORAGE_ERROR (cause EOWNER_UNREACHABLE).
   */
  constructor(
    private readonly owners: ProjectOwners,
    private readonly answerWithinMs: number,
    private readonly giveUpAfterMs: number,
  ) {}

  async forward<T>(request: ForwardedRequest, owner: string | null, serveHere: () => Promise<T>): Promise<{ answer: OwnerAnswer } | { served: T }> {
    const deadline = Date.now() + this.giveUpAfterMs + (request.waitMs ?? 0);
    let address = owner ?? (await this.owners.ownerAfter(request.project, null));
    for (;;) {
      if (address === null) {
        try {
          return { served: await serveHere() };
        } catch (error) {
          // Taken over again meanwhile: the new owner serves it.
          if (!isOwnedElsewhere(error)) throw error;
          address = error.owner ?? (await this.owners.ownerAfter(request.project, null));
          continue;
        }
      }
      const answer = await this.send(address, request).catch(() => null);
      if (answer && !ownerMoved(answer)) return { answer };
      if (request.signal?.aborted) throw clientGone(request.project);
      if (Date.now() > deadline) throw ownerUnreachable(request.project);
      const next = await this.owners.ownerAfter(request.project, address);
      // The owner still holds its lease: it is slow, or cut off until its lease runs out.
      if (next === address) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      address = next;
    }
  }

  /**
   * A read relayed to the owner this process knows of, answered as the owner answers it (the
   * owner proves its state current as any process does, so the answer sees every commit
   * acknowledged before the request arrived), its body still arriving (OwnerStream). Null when
   * the owner's answer did not start within READ_PATIENCE_SHARE of a try's bound: any process
   * serves a read, so the caller serves it here; the address is
   * then forgotten, so the next reads are served here too and the next mutation asks the
   * database who owns the project (taking it over if its owner is gone).
   */
  async relayRead(request: ForwardedRequest, owner: string): Promise<OwnerStream | null> {
    const answer = await this.open(owner, request, READ_PATIENCE_SHARE * this.answerWithinMs).catch(() => null);
    if (answer !== null) return answer;
    if (request.signal?.aborted) throw clientGone(request.project);
    this.owners.unreachable(request.project, owner);
    return null;
  }

  close(): void {
    this.agent.destroy();
  }

  private async send(address: string, request: ForwardedRequest): Promise<OwnerAnswer> {
    const { body, length: _length, ...head } = await this.open(address, request, this.answerWithinMs);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return { ...head, text: Buffer.concat(chunks).toString('utf8') };
  }

  /**
   * Sends `request` to the owner at `address`; resolves once its answer's status and headers
   * have come, within `answerWithinMs`. From then on the owner may go quiet for a whole try's
   * bound before it is cut off (a reader of the body applying back-pressure holds it too).
   */
  private open(address: string, request: ForwardedRequest, answerWithinMs: number): Promise<OwnerStream> {
    const headers = {
      [PROTOCOL_HEADER]: PROTOCOL_VERSION,
      ...(request.requestId === undefined ? {} : { [REQUEST_ID_HEADER]: request.requestId }),
      [FORWARDED_HEADER]: '1',
      Authorization: request.authorization,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(request.body)),
    };
    const waitMs = request.waitMs ?? 0;
    return new Promise((resolve, reject) => {
      const outgoing = http.request(`${address}${request.path}`, { method: 'POST', headers, agent: this.agent, timeout: answerWithinMs + waitMs, ...(request.signal ? { signal: request.signal } : {}) }, (response) => {
        outgoing.setTimeout(this.answerWithinMs + waitMs);
        const declared = response.headers['content-length'];
        resolve({
          status: response.statusCode!,
          contentType: response.headers['content-type'] ?? 'application/json',
          headers: relayedHeaders(response.headers),
          length: declared === undefined ? undefined : Number(declared),
          body: response,
        });
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error('the owner did not answer in time')));
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });
  }
}

function relayedHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const relayed: Record<string, string> = {};
  for (const name of RELAYED_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') relayed[name] = value;
  }
  return relayed;
}

/** Refused by a process the request was forwarded to, which no longer owns the project. */
export function ownerMovedError(project: string): DomainError {
  return new DomainError('STORAGE_ERROR', `This server process no longer owns project ${project}: try again`, { cause: 'EOWNER_MOVED', project });
}

function ownerMoved(answer: OwnerAnswer): boolean {
  if (answer.status !== 500) return false;
  try {
    return (JSON.parse(answer.text) as { error?: { details?: { cause?: unknown } } }).error?.details?.cause === 'EOWNER_MOVED';
  } catch {
    return false;
  }
}

/** The client went away while its request was forwarded: nobody is left to answer (the error is never seen). */
function clientGone(project: string): DomainError {
  return new DomainError('STORAGE_ERROR', `The client of a request to project ${project} went away before the owner answered`, { cause: 'ECLIENT_GONE', project });
}

function ownerUnreachable(project: string): DomainError {
  return new DomainError('STORAGE_ERROR', `The server process that owns project ${project} does not answer and still holds its lease: try again`, {
    cause: 'EOWNER_UNREACHABLE',
    project,
  });
}
