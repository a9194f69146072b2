import { readFileSync } from 'node:fs';

/** Every `$ ` line of a Markdown page's sh blocks, in order, without the `$ `: the commands a reader types. */
export function docCommands(file: string): string[] {
  const blocks = [...readFileSync(file, 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks.flatMap((block) => block.split('\n').filter((line) => line.startsWith('$ ')).map((line) => line.slice(2)));
}
