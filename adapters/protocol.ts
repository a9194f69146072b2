/** Remote v1 (spec 9.2): the header every /v1 request carries, and the one version spoken. */
export const PROTOCOL_HEADER = 'X-Taskdag-Protocol-Version';
export const PROTOCOL_VERSION = '1';

/** The header naming one logical mutation, the same on each of its retries (docs/remote.md, "Retries"). */
export const REQUEST_ID_HEADER = 'Idempotency-Key';

/** The header naming the linked checkout a request comes from (`<host>:<directory>`, URI-encoded), for the board's catalog. */
export const CHECKOUT_HEADER = 'X-Taskdag-Checkout';
