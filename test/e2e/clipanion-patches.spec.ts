import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import { Cli } from 'clipanion';
import { allCommands } from '../../entrypoints/cli/commands.js';

const PATCHES = path.resolve(__dirname, '../../../scripts/clipanion-patches.mjs');
const requireHere = Module.createRequire(__filename);
const CORE = requireHere.resolve('clipanion/lib/core.js');

interface Core {
  makeAnyOfMachine(machines: unknown[]): unknown;
  simplifyMachine(machine: unknown): void;
}

/** clipanion's core module compiled from the patched source, beside the original so its requires resolve. */
async function patchedCore(): Promise<Core> {
  const { CLIPANION_PATCHES, patchedSource } = await import(PATCHES);
  const patch = CLIPANION_PATCHES.find(({ file }: { file: RegExp }) => file.test(CORE));
  const module = new Module(CORE) as Module & { _compile(source: string, file: string): void };
  module.filename = CORE;
  module.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(CORE));
  module._compile(patchedSource(CORE, readFileSync(CORE, 'utf8'), patch.edits), CORE);
  return module.exports as Core;
}

/** The machine clipanion compiles for one command, before simplification. */
function unsimplifiedMachine(core: Core, command: ReturnType<typeof allCommands>[number]): unknown {
  const cli = new Cli();
  cli.register(command);
  const builders = (cli as unknown as { builder: { builders: Array<{ compile(): { machine: unknown } }> } }).builder.builders;
  return core.makeAnyOfMachine(builders.map((builder) => builder.compile().machine));
}

describe('the CLI bundle\'s patched clipanion parser compiler (scripts/clipanion-patches.mjs)', function () {
  this.timeout(30_000);

  it('builds, for every command, the same machine as clipanion\'s own', async () => {
    const original = requireHere(CORE) as Core;
    const patched = await patchedCore();
    for (const command of allCommands()) {
      const machine = unsimplifiedMachine(original, command);
      // structuredClone keeps shared references shared: the compiler dedupes transitions by identity.
      const copy = structuredClone(machine);
      original.simplifyMachine(machine);
      patched.simplifyMachine(copy);
      expect(copy, String(command.paths)).to.deep.equal(machine);
    }
  });

  it('refuses to build when clipanion no longer has the shape the patch expects', async () => {
    const { patchedSource } = await import(PATCHES);
    expect(() => patchedSource('core.js', 'function other() {}', [{ from: 'x', to: 'y' }])).to.throw(/changed shape/);
  });
});
