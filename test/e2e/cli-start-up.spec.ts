import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { allCommands, commandAt } from '../../entrypoints/cli/commands.js';

const DIST = path.resolve(__dirname, '../../../dist');
const APPLICATION = path.resolve(__dirname, '../../application');

/**
 * How many times the function `builder` of the module `module` runs while a fresh Node loads
 * every operation (the compiled build/application/operations/index.js) and then runs `after`.
 */
function buildsOnLoad(module: string, builder: string, after = ''): number {
  const script = `
    const builders = require(${JSON.stringify(module)});
    let calls = 0;
    const real = builders[${JSON.stringify(builder)}];
    builders[${JSON.stringify(builder)}] = (...args) => (calls++, real(...args));
    const { OPERATIONS } = require(${JSON.stringify(path.join(APPLICATION, 'operations/index.js'))});
    ${after}
    process.stdout.write(String(calls));`;
  return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 }));
}

/** What a command line pays before its command runs (BENCHMARKS.md, issue 8). */
describe('the command line start-up', () => {
  it('builds, for the words of a command line, exactly the command they name', () => {
    for (const command of allCommands()) {
      const path = command.paths![0]!;
      const built = commandAt([...path, 'T-1', '--title', 'x']);
      expect(built?.paths, path.join(' ')).to.deep.equal([path]);
      expect(built?.declaration).to.equal(command.declaration);
    }
    for (const words of [['no-such-command'], ['constructor'], ['run'], [''], ['server'], ['server', 'rnu'], ['plugin', 'list-all'], []]) {
      expect(commandAt(words), words.join(' ')).to.equal(null);
    }
  });

  it('builds no result schema while loading the operations, only the one a command reads', () => {
    const schema = path.join(APPLICATION, 'contract/schema.js');
    expect(buildsOnLoad(schema, 'object')).to.equal(0);
    expect(buildsOnLoad(schema, 'object', "OPERATIONS.find((operation) => operation.name === 'show').result;")).to.be.greaterThan(0);
  });

  it('builds no argument validator while loading the operations, only those of the arguments a command checks', () => {
    expect(buildsOnLoad('typanion', 'isString')).to.equal(0);
    expect(buildsOnLoad('typanion', 'isString', "OPERATIONS.find((operation) => operation.name === 'show').parse({ id: 'T-1' });")).to.be.greaterThan(0);
  });

  it('leaves the executable naming no source map, whose map is still written beside it', () => {
    // Node's loader compiles its source-map code for a main file that names a map, on every command.
    expect(readFileSync(path.join(DIST, 'taskdag.js'), 'utf8')).not.to.match(/sourceMappingURL/);
    expect(JSON.parse(readFileSync(path.join(DIST, 'taskdag.js.map'), 'utf8')).sources).to.include('../entrypoints/cli/bin.ts');
  });

  it('requires Node built-ins in the CLI bundle as they are, never through an interop copy of their exports', () => {
    const cli = readFileSync(path.join(DIST, 'taskdag-cli.js'), 'utf8');
    expect(cli).to.match(/=require\("node:path"\)/);
    expect(cli).to.match(/=require\("node:fs"\)/);
    // esbuild's default-import interop wraps the require in a call: __toESM(require("node:path")).
    expect(cli.match(/[\w$]+\(require\("node:[\w/]+"\)\)/g) ?? []).to.deep.equal([]);
  });
});
