import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { MCP_TOOL_NAMES } from '../../application/contract/mcp-tools.js';
import { UNIT_VISIBLE_BASE, UNIT_VISIBLE_CHECKOUT } from '../support/cli.js';
import { exchangeThenClose } from '../support/mcp.js';

const ROOT = path.resolve(__dirname, '../../..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The library example of docs/library.md, exactly as a newcomer would copy it. */
function readmeExample(): string {
  const page = readFileSync(path.join(ROOT, 'docs', 'library.md'), 'utf8');
  const match = /<!-- library-example[^>]*-->\n```js\n([\s\S]*?)```/.exec(page);
  if (!match) throw new Error('docs/library.md has no library-example block');
  return match[1]!;
}

/**
 * The published package as a user gets it: `npm pack`, installed into a fresh project (from the
 * npm cache the install of this repository filled), then docs/library.md's example runs against it
 * and a TypeScript file type-checks against its declarations.
 */
describe('the library, from the packed package (npm pack + install)', function () {
  this.timeout(240_000);
  let dir: string;
  let env: NodeJS.ProcessEnv;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'taskdag-package-'));
    env = { ...process.env, TASKDAG_HOME: path.join(dir, 'home'), npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
    for (const key of Object.keys(env)) if (key.startsWith('TASKDAG_') && key !== 'TASKDAG_HOME') delete env[key];
    const packed = JSON.parse(execFileSync(NPM, ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', env }))[0];
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'uses-taskdag', private: true, allowScripts: { 'fs-ext': true } }));
    execFileSync(NPM, ['install', '--prefer-offline', '--no-save', path.join(dir, packed.filename)], { cwd: dir, env, stdio: 'pipe' });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('ships the built program, the library with its types, schemas/ and the example plugins, nothing else of the sources', () => {
    const installed = path.join(dir, 'node_modules', 'taskdag');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.exports['.']).to.deep.equal({ types: './dist/types/entrypoints/library/index.d.ts', default: './dist/library.js' });
    expect(() => readFileSync(path.join(installed, 'schemas', 'take.output.json'))).not.to.throw();
    for (const plugin of ['restore-guard.js', 'wip-limit.js']) expect(() => readFileSync(path.join(installed, 'examples', 'plugins', plugin))).not.to.throw();
    expect(() => readFileSync(path.join(installed, 'domain', 'model.ts'))).to.throw();
  });

  it("runs docs/library.md's example against the installed package", () => {
    const checkout = path.join(dir, 'checkout');
    execFileSync('mkdir', ['-p', checkout]);
    writeFileSync(path.join(dir, 'example.js'), readmeExample());
    const run = spawnSync(process.execPath, [path.join(dir, 'example.js')], { cwd: checkout, env, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.equal('in_progress true\nALREADY_CLAIMED alice\n');
  });

  it('serves taskdag mcp from its own bundle: the MCP SDK is not installed with the package', async () => {
    expect(existsSync(path.join(dir, 'node_modules', '@modelcontextprotocol'))).to.equal(false);
    const checkout = path.join(dir, 'checkout');
    execFileSync('mkdir', ['-p', checkout]);
    const binary = path.join(dir, 'node_modules', 'taskdag', 'dist', 'taskdag.js');
    const { code, answers } = await exchangeThenClose(binary, ['mcp', '--as', 'alice'], { cwd: checkout, env }, [{ method: 'tools/list', params: {} }]);
    expect(code).to.equal(0);
    expect(answers[1].result.tools.map((tool: { name: string }) => tool.name)).to.deep.equal([...MCP_TOOL_NAMES]);
  });

  it('types every operation: names, arguments and results; a wrong call does not compile', () => {
    writeFileSync(
      path.join(dir, 'typed.ts'),
      [
        "import { openProject, type ResultOf } from 'taskdag';",
        'export async function typed(): Promise<boolean> {',
        "  const project = await openProject({ checkout: '.' });",
        "  const taken: ResultOf<'take'> = await project.run('take', { id: 'T-1' }, { agent: 'alice' });",
        "  const status = await project.run('status', { limit: 5 });",
        '  const count: number = status.summary.ready + taken.context.blocking.length;',
        "  // @ts-expect-error: take has no argument idx",
        "  await project.run('take', { idx: 'T-1' });",
        "  // @ts-expect-error: no such operation",
        "  await project.run('frobnicate', {});",
        '  return taken.freshly_claimed && count >= 0;',
        '}',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: true, types: [], typeRoots: [path.join(ROOT, 'node_modules', '@types')] }, files: ['typed.ts'] }),
    );
    const check = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8', timeout: 120_000 });
    expect(check.status, check.stdout + check.stderr).to.equal(0);
  });
});

describe('the library, from dist/', function () {
  this.timeout(60_000);

  it("writes a server unit that starts the package's own executable, not the script that embeds the library", () => {
    mkdirSync(UNIT_VISIBLE_BASE, { recursive: true });
    const dir = mkdtempSync(path.join(UNIT_VISIBLE_BASE, 'taskdag-library-'));
    try {
      const root = path.join(dir, 'srv');
      const script = path.join(dir, 'embeds-taskdag.js');
      writeFileSync(
        script,
        `require(${JSON.stringify(path.join(UNIT_VISIBLE_CHECKOUT, 'dist', 'library.js'))}).openProject({ checkout: ${JSON.stringify(dir)}, home: ${JSON.stringify(path.join(dir, 'home'))} })` +
          `.then((project) => project.run('server init', { root: ${JSON.stringify(root)} }))` +
          '.then(() => undefined, (error) => { console.error(error.code, error.message); process.exitCode = 1; });',
      );
      const run = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
      expect(run.status, run.stderr).to.equal(0);
      const unit = readFileSync(path.join(root, 'taskdag-server.service'), 'utf8');
      expect(unit).to.include(`\nExecStart=${process.execPath} ${realpathSync(path.join(UNIT_VISIBLE_CHECKOUT, 'dist', 'taskdag.js'))} server run `);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
