import { readFileSync } from 'node:fs';

export interface DocStep {
  /** The line as a reader types it, without the `$ `. */
  readonly command: string;
  /** The error code the page shows it answering with (its block's last line, followed by an output block with `"ok": false`), else null. */
  readonly failsWith: string | null;
}

/** Every `$ ` line of a Markdown page's sh blocks, in order, with the failure the page shows for it. */
export function docSteps(file: string): DocStep[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/```sh\n([\s\S]*?)```\n(?:```jsonc?\n([\s\S]*?)```)?/g)].flatMap((match) => {
    const commands = match[1]!.split('\n').filter((line) => line.startsWith('$ ')).map((line) => line.slice(2));
    const shown = match[2] ?? '';
    const failsWith = /"ok":\s*false/.test(shown) ? (/"code":\s*"([A-Z_]+)"/.exec(shown)?.[1] ?? null) : null;
    return commands.map((command, index) => ({ command, failsWith: index === commands.length - 1 ? failsWith : null }));
  });
}

/** Every `$ ` line of a Markdown page's sh blocks, in order, without the `$ `: the commands a reader types. */
export function docCommands(file: string): string[] {
  return docSteps(file).map((step) => step.command);
}
