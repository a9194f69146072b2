// Edits to clipanion's source for the CLI bundle (scripts/build.mjs); test/e2e/clipanion-patches.spec.ts
// checks that the patched parser compiler builds the same machines as the original.
import { readFile } from 'node:fs/promises';

/**
 * Two costs clipanion puts on every command, removed from the CLI bundle by patching its source
 * (the build fails if clipanion's code no longer has the expected shape):
 * - It fills a default context when it loads by reading process.stdin, stdout and stderr and a
 *   terminal's color depth, which sets up three streams and loads tty, net and stream code: a few
 *   milliseconds, for defaults taskdag always overrides (main.ts passes its own stdio and turns
 *   colors off). Those defaults are left out and tty is loaded only if asked for.
 * - Its parser compiler (simplifyMachine) checks each transition it copies against every
 *   transition already on the state with a linear scan, quadratic in the options of a command:
 *   about 3 ms of `update`'s or `add-task`'s start-up. The patch finds duplicates through a Map of
 *   sets instead; the machine it builds is the same, transition for transition, in the same order.
 */
export const CLIPANION_PATCHES = [
  {
    file: /[\\/]clipanion[\\/]lib[\\/]advanced[\\/]Cli\.js$/,
    edits: [{ from: /Cli\.defaultContext = \{\s*env: process\.env,\s*stdin: process\.stdin,\s*stdout: process\.stdout,\s*stderr: process\.stderr,\s*colorDepth: platform\.getDefaultColorDepth\(\),\s*\};/, to: 'Cli.defaultContext = { env: process.env, colorDepth: 1 };' }],
  },
  {
    file: /[\\/]clipanion[\\/]lib[\\/]platform[\\/]node\.js$/,
    edits: [{ from: "var tty = require('tty');", to: "var tty = { get default() { return require('tty'); } };" }],
  },
  {
    file: /[\\/]clipanion[\\/]lib[\\/]core\.js$/,
    edits: [
      {
        from: 'function simplifyMachine(input) {\n    const visited = new Set();\n',
        to: 'function simplifyMachine(input) {\n    const visited = new Set();\n    const knownDynamics = new Map();\n',
      },
      {
        from: `            for (const [test, transition] of toDef.dynamics)
                if (!nodeDef.dynamics.some(([otherTest, { to }]) => test === otherTest && transition.to === to))
                    nodeDef.dynamics.push([test, transition]);`,
        to: `            let known = knownDynamics.get(nodeDef);
            if (known === undefined) {
                knownDynamics.set(nodeDef, known = new Map());
                for (const [test, { to }] of nodeDef.dynamics) {
                    if (!known.has(test)) known.set(test, new Set());
                    known.get(test).add(to);
                }
            }
            for (const [test, transition] of toDef.dynamics) {
                if (!known.has(test)) known.set(test, new Set());
                const targets = known.get(test);
                if (!targets.has(transition.to)) {
                    targets.add(transition.to);
                    nodeDef.dynamics.push([test, transition]);
                }
            }`,
      },
    ],
  },
];

/** The esbuild plugin that applies CLIPANION_PATCHES to the CLI bundle. */
export const clipanionPatched = {
  name: 'clipanion-patched',
  setup(build) {
    for (const { file, edits } of CLIPANION_PATCHES) {
      build.onLoad({ filter: file }, async ({ path }) => {
        return { contents: patchedSource(path, await readFile(path, 'utf8'), edits), loader: 'js' };
      });
    }
  },
};

/** `source` with every edit applied; throws when one no longer matches (clipanion changed shape). */
export function patchedSource(path, source, edits) {
  let contents = source;
  for (const edit of edits) {
    const patched = contents.replace(edit.from, edit.to);
    if (patched === contents) throw new Error(`build: ${path} changed shape; review CLIPANION_PATCHES in scripts/clipanion-patches.mjs`);
    contents = patched;
  }
  return contents;
}
