/**
 * Every failure the product reports carries one of these codes. They are the machine contract
 * (spec section 7): a code never changes once published; consumers never parse the message.
 */
export const ERROR_CODES = [
  'MISSING_FIELD',
  'MISSING_AGENT',
  'INVALID_ARGUMENT',
  'NODE_NOT_FOUND',
  'INITIATIVE_NOT_FOUND',
  'ID_CONFLICT',
  'INVALID_EDGE_TARGET',
  'INVALID_EDGE_KIND',
  'INVALID_EDGE_TYPE',
  'SELF_EDGE',
  'DUPLICATE_EDGE',
  'CYCLE_DETECTED',
  'REVISION_CONFLICT',
  'STATE_REVISION_CONFLICT',
  'BATCH_OPERATION_FAILED',
  'NOT_READY',
  'NOT_CLAIMABLE',
  'ALREADY_CLAIMED',
  'NOT_OWNER',
  'INVALID_STATUS',
  'STORAGE_ERROR',
  'CLI_INTERNAL_ERROR',
  'PLUGIN_DATA_INVALID',
  'PLUGIN_API_INCOMPATIBLE',
  'PLUGIN_RUNTIME_UNAVAILABLE',
  'PLUGIN_REFUSED',
  'PLUGIN_NOT_ALLOWED',
  'REMOTE_CONFIG_OUTDATED',
  'AUTH_INVALID',
  'REMOTE_REQUEST_FAILED',
  'REMOTE_UNSUPPORTED_OPERATION',
  'SERVER_ALREADY_RUNNING',
  'UNKNOWN_COMMAND',
  'SERVER_SETUP_CONFLICT',
  'SERVER_PREFLIGHT_FAILED',
  'SERVER_BIND_FAILED',
  'REQUEST_TOO_LARGE',
  'PROJECT_NOT_FOUND',
  'UI_UNAVAILABLE',
  'AGENT_NOT_ALLOWED',
  'SERVER_PASSWORD_STALE',
  'INDEPENDENT_REVIEW_REQUIRED',
  'CLAIM_FENCED',
  'REQUEST_ID_REUSED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorDetails = Record<string, unknown>;

export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }
}

/**
 * Recognised by name and code as well as by class: the server's runtime is a bundle of its own
 * (scripts/build.mjs) with its own copy of this class, and the code is the contract anyway.
 */
export function isDomainError(value: unknown): value is DomainError {
  if (value instanceof DomainError) return true;
  const candidate = value as Partial<DomainError> | null;
  return (
    value instanceof Error &&
    candidate!.name === 'DomainError' &&
    (ERROR_CODES as readonly unknown[]).includes(candidate!.code) &&
    typeof candidate!.details === 'object' &&
    candidate!.details !== null
  );
}
