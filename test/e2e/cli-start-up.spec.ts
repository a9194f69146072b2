import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { allCommands, commandsNamed } from '../../entrypoints/cli/commands.js';

const DIST = path.resolve(__dirname, '../../../dist');

/** What a command line pays before its command runs (BENCHMARKS.md, issue 8). */
describe('the command line start-up', () => {
  it('builds, for a command word, exactly the commands of that word, in the order of the full list', () => {
    const all = allCommands();
    const words = new Set(all.map((command) => command.paths![0]![0]!));
    for (const word of [...words, 'no-such-command', 'constructor', 'run', '']) {
      const expected = all.filter((command) => command.paths!.some((path) => path[0] === word)).map((command) => command.paths![0]!.join(' '));
      expect(commandsNamed(word).map((command) => command.paths![0]!.join(' ')), word).to.deep.equal(expected);
    }
    expect(commandsNamed('server').map((command) => command.paths![0]!.join(' '))).to.deep.equal([
      'server init',
      'server doctor',
      'server setup',
      'server credential add',
      'server credential list',
      'server credential remove',
      'server run',
    ]);
  });

  it('requires Node built-ins in the CLI bundle as they are, never through an interop copy of their exports', () => {
    const cli = readFileSync(path.join(DIST, 'taskdag-cli.js'), 'utf8');
    expect(cli).to.match(/=require\("node:path"\)/);
    expect(cli).to.match(/=require\("node:fs"\)/);
    // esbuild's default-import interop wraps the require in a call: __toESM(require("node:path")).
    expect(cli.match(/[\w$]+\(require\("node:[\w/]+"\)\)/g) ?? []).to.deep.equal([]);
  });
});
