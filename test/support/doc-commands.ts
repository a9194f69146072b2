import { readFileSync } from 'node:fs';

export interface DocStep {
  /** The line as a reader types it, without the `$ `. */
  readonly command: string;
  /**
   * The error code the page shows it answering with, else null: an output line `{"ok":false,...}`
   * right under it in its block, or, for its block's last line, an output block after the block.
   */
  readonly failsWith: string | null;
}

/** The part of a page from the heading `from` (included) to the heading `to` (excluded); the whole page without them. */
export interface DocSection {
  readonly from: string;
  readonly to?: string;
}

/** Every `$ ` line of a Markdown page's sh blocks, in order, with the failure the page shows for it. */
export function docSteps(file: string, section?: DocSection): DocStep[] {
  let text = readFileSync(file, 'utf8');
  if (section) text = text.slice(text.indexOf(`\n${section.from}\n`), section.to ? text.indexOf(`\n${section.to}\n`) : undefined);
  return [...text.matchAll(/```sh\n([\s\S]*?)```(?:\n```jsonc?\n([\s\S]*?)```)?/g)].flatMap((match) => {
    const lines = match[1]!.split('\n');
    const steps: DocStep[] = [];
    lines.forEach((line, index) => {
      if (!line.startsWith('$ ')) return;
      const next = lines.slice(index + 1).findIndex((later) => later.startsWith('$ '));
      const below = next < 0 ? [...lines.slice(index + 1), match[2] ?? ''].join('\n') : lines.slice(index + 1, index + 1 + next).join('\n');
      steps.push({ command: line.slice(2), failsWith: refusalShown(below) });
    });
    return steps;
  });
}

function refusalShown(output: string): string | null {
  return /"ok":\s*false/.test(output) ? (/"code":\s*"([A-Z_]+)"/.exec(output)?.[1] ?? null) : null;
}

/** Every `$ ` line of a Markdown page's sh blocks, in order, without the `$ `: the commands a reader types. */
export function docCommands(file: string): string[] {
  return docSteps(file).map((step) => step.command);
}
