import { flagOf } from './args.js';

/** Who reads the guide: an agent using the command line, or one using the MCP tools. */
export type GuideFace = 'cli' | 'mcp';

type Line = string | Readonly<Record<GuideFace, string>>;

/**
 * The workflow an agent needs, written once for both faces. `[[take <id>]]` names an operation
 * with the words a command line types (the MCP face shows the tool name alone); `[[add-task.blocked_by]]`
 * names an argument (`--blocked-by` on the command line, `blocked_by` in a tool call). Every
 * reference is checked against the declarations (test/application/agent-guide.spec.ts).
 */
const GUIDE: readonly Line[] = [
  '## Working with taskdag',
  '',
  'Work in this project is coordinated in a taskdag graph: tasks, gates (decisions that work waits on) and knowledge (guidance scoped to domains, initiatives, tags or nodes).',
  {
    cli: 'Every command prints one JSON value. Say who you are once, `export TASKDAG_AGENT=<your-name>` (or `--as <your-name>` on a command): every change is recorded under that name.',
    mcp: 'Every tool answers the JSON the `taskdag` command prints. Your name was fixed when this server started (`--as` or TASKDAG_AGENT): every change is recorded under it.',
  },
  '',
  '1. Pick work: [[status --status ready]] lists the ready tasks; [[context <id>]] shows a node with its blockers, the knowledge that applies to it and your `allowed_actions`.',
  '2. Claim before you start: [[take <id>]], or let taskdag pick: [[next]] claims the best ready task and says why. ALREADY_CLAIMED means another agent holds it: pick another task. NOT_READY on a blocked task lists its `blockers`: the `open_roots` are where work can move now. If you stop, give it back with [[release <id>]].',
  '   A task that carries a `rejection` came back from review: its `reason` says what to fix before you submit again; [[history <id>]] has every earlier one.',
  '   Under a lease ([[next --lease 15m]]), renew it while you work ([[renew <id>]]) and pass the claim\'s `token` as [[submit.claim_token]]: CLAIM_FENCED means your lease was swept and the task is no longer yours; drop it and pick other work.',
  '3. Keep a trail: [[add-note <id> <text...>]] for progress, findings and links.',
  '4. Hand in with evidence: [[submit <id> --note "<evidence>"]], where the note says what changed and how it was checked (tests run, commits, files).',
  '5. Review: a reviewer other than the author checks the evidence against the task\'s acceptance and runs [[accept <id>]] or [[reject <id> --reason "<why>"]]. `newly_ready` in the answer lists the tasks that became ready: take those next.',
  '6. Decisions: when work must wait on a choice, create a gate with [[add-gate]] and name it in the waiting task\'s [[add-task.blocked_by]]; whoever decides runs [[resolve <id> --choice "<what>" --rationale "<why>"]], whose `newly_ready` lists what it unblocked.',
  '7. New work: [[add-task]], with [[add-task.blocked_by]] empty when nothing blocks it.',
  '8. Knowledge: [[search <query>]] before deciding something others may have decided; record what the next agent needs with [[add-knowledge]] (at least one scope).',
  '',
  'A failure answers `{"ok":false,"error":{"code":…,"message":…,"details":{…}}}`: act on `code` and `details`, never on the wording of `message`.',
];

const REFERENCE = /\[\[([a-z-]+)(?:\.([a-z_]+))?((?: [^\]]+)?)\]\]/g;

/** An operation the guide names, and the arguments it names with it, so a test can check they exist. */
export interface GuideReference {
  operation: string;
  /** Argument keys (`blocked_by`), whether named alone or as flags among the words (`--note`). */
  arguments: string[];
}

/** The guide as Markdown, as `taskdag onboard` prints it (an AGENTS.md section) or as the MCP prompt. */
export function agentGuide(face: GuideFace): string {
  const rendered = GUIDE.map((line) => (typeof line === 'string' ? line : line[face]).replace(REFERENCE, (_, operation, argument, words) => render(face, operation, argument, words)));
  return rendered.join('\n') + '\n';
}

/** Every operation and argument the guide names. */
export function guideReferences(): GuideReference[] {
  const text = GUIDE.map((line) => (typeof line === 'string' ? line : `${line.cli}\n${line.mcp}`)).join('\n');
  return [...text.matchAll(REFERENCE)].map(([, operation, argument, words]) => ({
    operation: operation!,
    arguments: argument ? [argument] : flagsAmong(words!).map(({ key }) => key),
  }));
}

/**
 * On the command line, the command as typed (`taskdag submit <id> --note "<evidence>"`); over
 * MCP, the tool and the arguments its flags name (`submit` with `note`), with a value when the
 * words give one rather than a placeholder (`status` with `status: "ready"`).
 */
function render(face: GuideFace, operation: string, argument: string | undefined, words: string): string {
  if (argument !== undefined) return `\`${face === 'cli' ? flagOf(argument) : argument}\``;
  if (face === 'cli') return `\`taskdag ${operation}${words}\``;
  const named = flagsAmong(words).map(({ key, value }) => `\`${value === undefined ? key : `${key}: ${JSON.stringify(value)}`}\``);
  return named.length === 0 ? `\`${operation}\`` : `\`${operation}\` with ${named.join(' and ')}`;
}

/** The flags among a command's words, by argument key, with their value unless it is a `<placeholder>`. */
function flagsAmong(words: string): { key: string; value?: string }[] {
  return [...words.matchAll(/--([a-z-]+)(?: ("[^"]*"|[^\s"]+))?/g)].map(([, flag, given]) => {
    const value = given?.replace(/^"|"$/g, '');
    return { key: flag!.replace(/-/g, '_'), ...(value === undefined || value.startsWith('<') ? {} : { value }) };
  });
}
