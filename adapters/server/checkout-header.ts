import type { Context } from 'koa';
import { checkoutLabelProblem } from '../../application/board/checkouts.js';
import { CHECKOUT_HEADER } from '../protocol.js';

/** What a project route tells of the checkout a request comes from. */
export interface CheckoutNotes {
  seen(project: string, label: string): void;
}

/**
 * Notes the checkout a linked client's request names (CHECKOUT_HEADER) as one of `project`'s,
 * once the project is known to exist. A request naming none, or something that is not a label,
 * is served all the same: the label is a guide for the board's readers, never a condition.
 */
export function noteCheckout(ctx: Context, notes: CheckoutNotes | undefined, project: string): void {
  const raw = ctx.get(CHECKOUT_HEADER);
  if (!notes || raw === '') return;
  let label: string;
  try {
    label = decodeURIComponent(raw);
  } catch {
    return;
  }
  if (checkoutLabelProblem(label) === null) notes.seen(project, label);
}
