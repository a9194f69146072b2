import type { Middleware } from 'koa';
import { DomainError } from '../../domain/errors.js';
import { PROTOCOL_HEADER, PROTOCOL_VERSION } from '../protocol.js';


/**
 * Every /v1 request carries `X-Taskdag-Protocol-Version: 1` (spec 9.2). A missing header or
 * another version is refused with 400 INVALID_ARGUMENT before anything else runs, naming the
 * versions this server speaks, so a client of another protocol fails loudly and changes nothing.
 */
export const requireProtocolVersion: Middleware = async (ctx, next) => {
  const received = ctx.get(PROTOCOL_HEADER);
  if (received !== PROTOCOL_VERSION) {
    const problem = received === '' ? `Missing header ${PROTOCOL_HEADER}` : `Unsupported protocol version ${JSON.stringify(received)}`;
    throw new DomainError('INVALID_ARGUMENT', `${problem}: this server speaks ${PROTOCOL_HEADER}: ${PROTOCOL_VERSION}`, {
      header: PROTOCOL_HEADER,
      received: received === '' ? null : received,
      supported: [PROTOCOL_VERSION],
    });
  }
  await next();
};
