import type { GlobalFlags } from './context.js';

/**
 * Takes the global flags off the front of argv (`--project`, `--as`, `--no-warnings`), and
 * `--no-warnings` from anywhere before a `--`, leaving the command and its own flags.
 */
export function splitGlobalFlags(argv: readonly string[]): { globals: GlobalFlags; rest: string[] } {
  const globals: GlobalFlags = { noWarnings: false };
  let index = 0;
  for (; index < argv.length; index++) {
    const [flag, inline] = splitInline(argv[index]!);
    if (flag === '--no-warnings' && inline === undefined) {
      globals.noWarnings = true;
    } else if (flag === '--project' || flag === '--as') {
      const value = inline ?? argv[++index];
      if (value === undefined) break;
      globals[flag === '--project' ? 'project' : 'as'] = value;
    } else {
      break;
    }
  }
  const rest: string[] = [];
  let terminated = false;
  for (const arg of argv.slice(index)) {
    if (arg === '--') terminated = true;
    if (!terminated && arg === '--no-warnings') globals.noWarnings = true;
    else rest.push(arg);
  }
  return { globals, rest };
}

function splitInline(arg: string): [string, string | undefined] {
  const at = arg.indexOf('=');
  return arg.startsWith('--') && at > 0 ? [arg.slice(0, at), arg.slice(at + 1)] : [arg, undefined];
}
