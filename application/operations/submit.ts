import { submit as submitTask } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { newlyReadySchema, taskSchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { claimTokenArg } from './lease-args.js';

export const submit = graphOperation({
  name: 'submit',
  summary: 'Hand in a task you hold for review, with the evidence as its note',
  details: 'Submission never unblocks anything: `newly_ready` is always empty; `accept` computes it. With `--claim-token` it applies only while that claim is still yours (else CLAIM_FENCED).',
  examples: [
    ['Submit work', '$0 submit T-refunds --note "Refund endpoint done; see PR 42" --as alice'],
    ['Submit with a pointer to the evidence', '$0 submit T-receipts --note "Receipts render; screenshots in PR 43" --as alice'],
  ],
  mutates: true,
  args: () => ({
    id: required(nonEmptyText(), 'The task you hold', { positional: true }),
    note: required(nonEmptyText(), 'Delivery evidence for the reviewer'),
    claim_token: claimTokenArg(),
  }),
  result: () => object({ node: taskSchema(), newly_ready: newlyReadySchema() }),
  run: ({ draft }, args) => submitTask(draft, args.id, args.note, args.claim_token),
});
