import { DEFAULT_HISTORY_LIMIT, historyOf } from '../../domain/history.js';
import { nonEmptyText, optional, positiveInteger, required } from '../args.js';
import { logEntrySchema } from '../contract/results.js';
import { array, object, string } from '../contract/schema.js';
import { graphOperation } from '../define.js';

export const history = graphOperation({
  name: 'history',
  summary: 'Log entries about a node: its own, and those whose note names it',
  details: '`--limit N` (default 100) keeps the N most recent entries, still in log order.',
  examples: [['The last five events of a task', '$0 history T-invoice-api --limit 5']],
  mutates: false,
  needsLog: true,
  // Entries about the node alone: its `node`, or its id in a note.
  logNaming: (args) => args.id,
  args: () => ({
    id: required(nonEmptyText(), 'The node', { positional: true }),
    limit: optional(positiveInteger(), 'Most recent entries to keep (default 100)'),
  }),
  result: () => object({ id: string(), entries: array(logEntrySchema(), 'Oldest first') }),
  run: ({ draft, log }, args) => {
    draft.requireNode(args.id);
    return historyOf(log, args.id, args.limit ?? DEFAULT_HISTORY_LIMIT);
  },
});
