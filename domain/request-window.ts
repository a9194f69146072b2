import { timestampBefore, type Timestamp } from './clock.js';
import { DomainError } from './errors.js';

/**
 * What identifies one logical remote mutation (docs/remote.md, "Retries"): the id its client
 * chose (the `Idempotency-Key` header) and a fingerprint of what it asked (operation, arguments,
 * agent), so that the id sent again with another request is told apart from a retry.
 */
export interface RequestKey {
  id: string;
  fingerprint: string;
}

/** A committed request and the answer it got, remembered so that its retry gets that answer again. */
export interface RememberedRequest extends RequestKey {
  at: Timestamp;
  answer: unknown;
}

/**
 * How long a request id is remembered, per project: whichever bound forgets it first. Ten minutes
 * is over four times the longest a client retries (4 attempts of at most 30 s, plus backoff); the
 * count bounds the memory and the checkpoint a busy project spends on answers (docs/remote.md).
 */
export const REQUEST_WINDOW = { maxIds: 10_000, maxAgeMs: 10 * 60 * 1000 } as const;

/**
 * The requests a project committed recently, oldest first, within REQUEST_WINDOW. It is part of
 * the project's state in memory (project-state.ts): changed by the drafts of transactions and by
 * the change sets a store replays (each carries the requests it answered), and saved with the
 * checkpoint, so an id is remembered exactly when its commit is durable.
 */
export class RequestWindow {
  private byId = new Map<string, RememberedRequest>();

  constructor(remembered: readonly RememberedRequest[] = []) {
    for (const request of remembered) this.remember(request);
  }

  /** Remembers `request` (as of its own time) and forgets what falls out of the window; returns how to undo that. */
  remember(request: RememberedRequest): () => void {
    const replaced = this.byId.get(request.id);
    this.byId.delete(request.id);
    this.byId.set(request.id, request);
    const forgotten: [string, RememberedRequest][] = [];
    const oldest = timestampBefore(request.at, REQUEST_WINDOW.maxAgeMs);
    for (const [id, kept] of this.byId) {
      if (this.byId.size <= REQUEST_WINDOW.maxIds && kept.at > oldest) break;
      this.byId.delete(id);
      forgotten.push([id, kept]);
    }
    return () => {
      this.byId.delete(request.id);
      // What was forgotten was the oldest, and an id is remembered again only once it has expired: both go first.
      if (replaced) forgotten.unshift([request.id, replaced]);
      if (forgotten.length > 0) this.byId = new Map([...forgotten, ...this.byId]);
    };
  }

  /** The request remembered under `id`, if it is still within the window at `now`. */
  recall(id: string, now: Timestamp): RememberedRequest | undefined {
    const request = this.byId.get(id);
    return request && request.at > timestampBefore(now, REQUEST_WINDOW.maxAgeMs) ? request : undefined;
  }

  /** Every request remembered, oldest first (what a checkpoint saves). */
  entries(): RememberedRequest[] {
    return [...this.byId.values()];
  }
}

/**
 * The answer `key`'s request already got, if its id is remembered at `now`; null when it is not
 * (the request runs). The id remembered with another request is REQUEST_ID_REUSED: answering it
 * with the first request's answer would tell its sender that what it asked was done.
 */
export function earlierAnswer(window: RequestWindow, key: RequestKey, now: Timestamp): { answer: unknown } | null {
  const remembered = window.recall(key.id, now);
  if (!remembered) return null;
  if (remembered.fingerprint !== key.fingerprint) {
    throw new DomainError('REQUEST_ID_REUSED', `Request id ${key.id} was already used for another request: a retry must send the same request again, and a new request needs a new id`, {
      request_id: key.id,
      first_at: remembered.at,
    });
  }
  return { answer: remembered.answer };
}

/** A remembered request as read from a file or a row: its shape checked, its answer taken as it is. */
export function isRememberedRequest(value: unknown): value is RememberedRequest {
  const request = value as Partial<RememberedRequest> | null;
  return (
    typeof request === 'object' &&
    request !== null &&
    typeof request.id === 'string' &&
    typeof request.fingerprint === 'string' &&
    typeof request.at === 'string' &&
    'answer' in request
  );
}
