import { Command, type CommandClass, type Usage } from 'clipanion';
import { flag, optional, required, text, type ArgsSpec } from '../../application/args.js';
import type { Declaration } from '../../application/operation.js';
import type { TaskdagContext } from './context.js';

/**
 * What a command of the command line declares, an operation's declaration or a process
 * command's (`server run`, `mcp`, `onboard`): its help page and the diagnosis of words it does
 * not take are both derived from it.
 */
export type CommandDeclaration = Pick<Declaration, 'name' | 'summary' | 'details' | 'examples' | 'args' | 'needsAgent' | 'usesAgent' | 'argsFromDocument'>;

/**
 * A clipanion command class that carries the declaration it was made from; an operation's command
 * also reads plain words itself (`fromPlainWords`, null when they need clipanion's parser).
 */
export type DeclaredCommand = CommandClass<TaskdagContext> & {
  readonly declaration: CommandDeclaration;
  fromPlainWords?(words: readonly string[], context: TaskdagContext): Command<TaskdagContext> | null;
};

/** The flags of a command whose arguments are one JSON document (a batch). */
export const DOCUMENT_ARGS = {
  file: optional(text(), 'Path of a JSON file holding the arguments', { placeholder: 'path' }),
  stdin: optional(flag(), 'Read the JSON arguments from standard input', { standalone: true }),
} satisfies ArgsSpec;

const AGENT = 'Agent identity (falls back to the global --as, then TASKDAG_AGENT)';

/**
 * The arguments as typed on the command line: the declared ones (or `--file`/`--stdin` for a
 * document), then `--as` where the command needs or uses an agent. Every command accepts `--as`
 * (it is also a global flag, and scripts pass it everywhere), but only these show it.
 */
export function commandLineArgs(declaration: CommandDeclaration): ArgsSpec {
  const own: ArgsSpec = declaration.argsFromDocument ? DOCUMENT_ARGS : declaration.args;
  if (declaration.needsAgent) return { ...own, as: required(text(), AGENT, { placeholder: 'agent' }) };
  if (declaration.usesAgent) return { ...own, as: optional(text(), AGENT, { placeholder: 'agent' }) };
  return own;
}

/** Clipanion's usage of a declared command (what its examples are read from). */
export function usageOf(declaration: CommandDeclaration): Usage {
  return Command.Usage({
    description: declaration.summary,
    ...(declaration.details === undefined ? {} : { details: declaration.details }),
    examples: declaration.examples.map(([label, line]) => [label, line] as [string, string]),
  });
}
