import type { Context, Middleware } from 'koa';
import { wellFormedAnswerText } from '../../application/contract/well-formed-answer.js';

/**
 * Outermost: every JSON answer (a route's value or JSON text, a failure's envelope) is JSON every
 * strict reader takes. Stored text holding half of a surrogate pair, which a state an earlier
 * build wrote may hold, is shown as U+FFFD with the answer's warning (wellFormedAnswerText).
 * A transfer's answer is the exception (`carryAsIs`): a pull carries a state as it is stored.
 * Streams (a read relayed from its owner, already made so there) and files pass untouched.
 */
export const wellFormedAnswers: Middleware = async (ctx, next) => {
  await next();
  const body: unknown = ctx.body;
  if ((ctx.state as { answerAsIs?: true }).answerAsIs === true || body === null || body === undefined) return;
  if (typeof body === 'string') {
    if (ctx.response.is('json')) ctx.body = wellFormedAnswerText(body, { warn: true });
  } else if (typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function') {
    ctx.body = wellFormedAnswerText(JSON.stringify(body), { warn: true });
  }
};

/** Says that this request's JSON answer is sent exactly as it is (a transfer's state). */
export function carryAsIs(ctx: Context): void {
  (ctx.state as { answerAsIs?: true }).answerAsIs = true;
}
