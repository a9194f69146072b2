import { release as releaseTask } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { nodeSchema } from '../contract/results.js';
import { boolean, object } from '../contract/schema.js';
import { graphOperation } from '../define.js';
import { claimTokenArg } from './lease-args.js';

/** Gives a claimed task back to the pool; releasing a task nobody holds is `released: false`. */
export const release = graphOperation({
  name: 'release',
  summary: 'Give a claimed task back to the pool (the holder, orchestrator or recovery)',
  details: 'Releasing a task nobody holds succeeds with `released: false` and changes nothing. With `--claim-token` it applies only while that claim still holds the task (else CLAIM_FENCED).',
  examples: [['Hand a task back', '$0 release T-invoice-schema --as alice']],
  mutates: true,
  args: () => ({ id: required(nonEmptyText(), 'The claimed task', { positional: true }), claim_token: claimTokenArg() }),
  result: () => object({ released: boolean('Whether this call released a claim'), node: nodeSchema() }),
  run: ({ draft }, args) => releaseTask(draft, args.id, args.claim_token),
});
