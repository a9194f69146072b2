import { resolve as resolveGate } from '../../domain/lifecycle.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

export const resolve = graphOperation({
  name: 'resolve',
  mutates: true,
  args: { id: required(nonEmptyText()), choice: required(nonEmptyText()), rationale: required(nonEmptyText()) },
  run: ({ draft }, args) => resolveGate(draft, args.id, args.choice, args.rationale),
});
