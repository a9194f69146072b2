import { initiativesReport } from '../../domain/initiative-report.js';
import { flag, optional } from '../args.js';
import { graphOperation } from '../define.js';

export const initiatives = graphOperation({
  name: 'initiatives',
  mutates: false,
  args: { all: optional(flag()) },
  run: ({ draft }, args) => initiativesReport(draft.graph, args.all ?? false),
});
