import { resolve as resolveGate } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { gateSchema, newlyReadySchema } from '../contract/results.js';
import { object } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const resolve = graphOperation({
  name: 'resolve',
  summary: 'Decide an open gate; the tasks it unblocked are listed in newly_ready',
  examples: [['Record a decision', '$0 resolve G-schema-v2 --choice "JSON columns" --rationale "Fewer migrations" --as bob']],
  mutates: true,
  args: () => ({
    id: required(nonEmptyText(), 'The open gate', { positional: true }),
    choice: required(nonEmptyText(), 'What was decided'),
    rationale: required(nonEmptyText(), 'Why'),
  }),
  result: () => object({ node: gateSchema(), newly_ready: newlyReadySchema() }),
  run: ({ draft }, args) => resolveGate(draft, args.id, args.choice, args.rationale),
});
