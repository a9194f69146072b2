import type { ActivityPage, CatalogEntry, NodeDetail, Snapshot } from './types';

const PROTOCOL = { 'X-Taskdag-Protocol-Version': '1' };
/** The bearer lives in this tab's session storage only: never in a URL, gone with the tab. */
const BEARER_KEY = 'taskdag.bearer';

/** A failure as the server answers it: the command line's envelope, with its HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function bearer(): string | null {
  return sessionStorage.getItem(BEARER_KEY);
}

export function forgetBearer(): void {
  sessionStorage.removeItem(BEARER_KEY);
}

/** The headers of every /v1 request: the protocol, and the bearer when there is one. */
export function headers(extra: Record<string, string> = {}): Record<string, string> {
  const token = bearer();
  return { ...PROTOCOL, ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra };
}

/** Fired when the server stops taking the bearer (expired, rotated): the board shows its login gate. */
export const UNAUTHORIZED = 'taskdag:unauthorized';

async function failure(response: Response): Promise<ApiError> {
  if (response.status === 401 && bearer() !== null) {
    forgetBearer();
    window.dispatchEvent(new Event(UNAUTHORIZED));
  }
  try {
    const { error } = (await response.json()) as { error: { code: string; message: string; details?: Record<string, unknown> } };
    return new ApiError(response.status, error.code, error.message, error.details);
  } catch {
    return new ApiError(response.status, 'REMOTE_REQUEST_FAILED', `The server answered ${response.status} ${response.statusText}`);
  }
}

async function request(path: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(path, { cache: 'no-store', ...init, headers: headers(init.headers as Record<string, string> | undefined) });
  } catch (error) {
    throw new ApiError(0, 'REMOTE_REQUEST_FAILED', `The board's server cannot be reached (${(error as Error).message})`);
  }
}

async function json<T>(path: string): Promise<T> {
  const response = await request(path);
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

const projectPath = (project: string) => `/v1/projects/${encodeURIComponent(project)}`;

/**
 * The one probe (spec 4.7): 200 means no login is needed (the local board, or a bearer that is
 * still good); 401 means the login gate; anything else is an error to show.
 */
export async function probe(): Promise<{ authenticated: true; projects: CatalogEntry[] } | { authenticated: false }> {
  const response = await request('/v1/projects');
  if (response.status === 401) {
    forgetBearer();
    return { authenticated: false };
  }
  if (!response.ok) throw await failure(response);
  return { authenticated: true, projects: ((await response.json()) as { projects: CatalogEntry[] }).projects };
}

export async function login(password: string): Promise<void> {
  const response = await request('/v1/auth/login', { method: 'POST', body: JSON.stringify({ password }), headers: { 'Content-Type': 'application/json' } });
  if (!response.ok) throw await failure(response);
  const { bearer: token } = (await response.json()) as { bearer: string };
  sessionStorage.setItem(BEARER_KEY, token);
}

/**
 * Logs this tab out: the bearer leaves its session storage, as `taskdag logout` forgets the
 * machine's (the server keeps the session until it expires or the password is rotated).
 */
export function logout(): void {
  forgetBearer();
  window.dispatchEvent(new Event(UNAUTHORIZED));
}

export async function catalog(): Promise<CatalogEntry[]> {
  return (await json<{ projects: CatalogEntry[] }>('/v1/projects')).projects;
}

/** The snapshot, revalidated with its ETag: null when the one in hand is still current (304). */
export async function snapshot(project: string, etag: string | null): Promise<{ etag: string; snapshot: Snapshot } | null> {
  const response = await request(`${projectPath(project)}/ui/snapshot`, etag ? { headers: { 'If-None-Match': etag } } : {});
  if (response.status === 304) return null;
  if (!response.ok) throw await failure(response);
  return { etag: response.headers.get('ETag') ?? '', snapshot: (await response.json()) as Snapshot };
}

/** The snapshot asked for as the page loads, beside the login probe rather than after it. */
let early: { project: string; answer: Promise<{ etag: string; snapshot: Snapshot } | null> } | null = null;

/**
 * Asks for `project`'s snapshot now, before the probe has said whether a login is needed: at 10k
 * nodes it is most of the wait, and a bearer kept by this tab is usually still good. A refusal
 * is dropped here (the probe answers for it, and the view asks again after a login).
 */
export function requestSnapshotEarly(project: string): void {
  early = { project, answer: snapshot(project, null).catch(() => null) };
}

/** The early snapshot of `project`, once (null: none was asked for, or it failed). */
export async function earlySnapshot(project: string): Promise<{ etag: string; snapshot: Snapshot } | null> {
  const taken = early?.project === project ? early.answer : null;
  early = null;
  return taken;
}

export function nodeDetail(project: string, id: string): Promise<NodeDetail> {
  return json(`${projectPath(project)}/ui/nodes/${encodeURIComponent(id)}`);
}

export function activity(project: string, before: number | null, limit = 50): Promise<ActivityPage> {
  return json(`${projectPath(project)}/ui/activity?limit=${limit}${before === null ? '' : `&before=${before}`}`);
}

export function eventsUrl(project: string): string {
  return `${projectPath(project)}/ui/events`;
}

export { failure as errorOf };
