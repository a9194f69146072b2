import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { allCommands, commandAt } from '../../entrypoints/cli/commands.js';

const DIST = path.resolve(__dirname, '../../../dist');

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

  it('requires Node built-ins in the CLI bundle as they are, never through an interop copy of their exports', () => {
    const cli = readFileSync(path.join(DIST, 'taskdag-cli.js'), 'utf8');
    expect(cli).to.match(/=require\("node:path"\)/);
    expect(cli).to.match(/=require\("node:fs"\)/);
    // esbuild's default-import interop wraps the require in a call: __toESM(require("node:path")).
    expect(cli.match(/[\w$]+\(require\("node:[\w/]+"\)\)/g) ?? []).to.deep.equal([]);
  });
});
