import { projectState } from '../../domain/projection.js';
import { graphOperation } from '../define.js';

/** The deterministic core projection: the same state always prints the same bytes. */
export const state = graphOperation({
  name: 'state',
  mutates: false,
  needsLog: true,
  args: {},
  run: ({ draft, log }) => projectState({ ...draft.graph, log }),
});
