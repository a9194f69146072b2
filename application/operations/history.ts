import { DEFAULT_HISTORY_LIMIT, historyOf } from '../../domain/history.js';
import { nonEmptyText, optional, positiveInteger, required } from '../args.js';
import { graphOperation } from '../define.js';

export const history = graphOperation({
  name: 'history',
  mutates: false,
  needsLog: true,
  args: { id: required(nonEmptyText()), limit: optional(positiveInteger()) },
  run: ({ draft, log }, args) => {
    draft.requireNode(args.id);
    return historyOf(log, args.id, args.limit ?? DEFAULT_HISTORY_LIMIT);
  },
});
