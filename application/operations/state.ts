import { plainGraph } from '../../domain/node-map.js';
import { projectState } from '../../domain/projection.js';
import { stateSchema } from '../contract/results.js';
import { graphOperation } from '../define.js';

/** The deterministic core projection: the same state always prints the same bytes. */
export const state = graphOperation({
  name: 'state',
  summary: 'Print the whole state (schema 1): the same state always prints the same bytes',
  examples: [['Dump the state', '$0 state']],
  mutates: false,
  needsLog: true,
  args: () => ({}),
  result: () => stateSchema(),
  run: ({ draft, log }) => projectState({ ...plainGraph(draft.graph), log }),
});
