/** Remote v1 (spec 9.2): the header every /v1 request carries, and the one version spoken. */
export const PROTOCOL_HEADER = 'X-Taskdag-Protocol-Version';
export const PROTOCOL_VERSION = '1';

/** The header naming one logical mutation, the same on each of its retries (docs/remote.md, "Retries"). */
export const REQUEST_ID_HEADER = 'Idempotency-Key';

/**
 * On the answers of a project's operations with PostgreSQL (docs/scaling.md): the address of the
 * process that owns the project's writes, as the answering process knows it. A client that can
 * reach it may send the project's next requests there, so none is forwarded; it is a hint only.
 */
export const OWNER_HEADER = 'X-Taskdag-Owner';

/** The header naming the linked checkout a request comes from (`<host>:<directory>`, URI-encoded), for the board's catalog. */
export const CHECKOUT_HEADER = 'X-Taskdag-Checkout';
