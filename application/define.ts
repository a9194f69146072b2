import { parseArgs, type ArgsSpec } from './args.js';
import type { GraphContext, GraphOperation } from './operation.js';

type ArgsOf<S extends ArgsSpec> = ReturnType<typeof parseArgs<S>>;

/** Declares a graph operation from its argument spec and its rule. */
export function graphOperation<S extends ArgsSpec, R>(definition: {
  name: string;
  mutates: boolean;
  needsLog?: boolean;
  args: S;
  run(context: GraphContext, args: ArgsOf<S>): R;
}): GraphOperation<ArgsOf<S>, R> {
  return {
    scope: 'graph',
    name: definition.name,
    mutates: definition.mutates,
    needsLog: definition.needsLog ?? false,
    parse: (raw) => parseArgs(definition.name, raw, definition.args),
    run: definition.run,
  };
}
