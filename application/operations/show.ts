import { nodeType } from '../../domain/model.js';
import { nonEmptyText, required } from '../args.js';
import { graphOperation } from '../define.js';

export const show = graphOperation({
  name: 'show',
  mutates: false,
  args: { id: required(nonEmptyText(), { positional: true }) },
  run: ({ draft }, args) => {
    const node = draft.requireNode(args.id);
    return { type: nodeType(node), node };
  },
});
