import { expect } from 'chai';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sandbox } from '../support/cli.js';
import { expectFailuresLeaveStateUntouched, inBatches } from '../support/failures.js';

const FOUNDATION_COMMANDS = ['init', 'add-initiative', 'add-task', 'add-gate', 'add-knowledge', 'add-node', 'add-edge', 'remove-edge', 'show', 'state'];

describe('taskdag command line (spec 1.1, 4.1)', () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = new Sandbox();
  });
  afterEach(() => sandbox.remove());

  describe('help and version', () => {
    it('--help and -h print plain-text usage listing every command, exit 0', async () => {
      for (const flag of ['--help', '-h']) {
        const result = await sandbox.run([flag]);
        expect(result.code).to.equal(0);
        expect(result.json).to.equal(undefined);
        expect(result.stdout).not.to.match(/\u001b\[/); // no terminal colors
        for (const command of FOUNDATION_COMMANDS) expect(result.stdout).to.include(`taskdag ${command}`);
      }
    });

    it('--version prints the package version as plain text, exit 0, with or without global flags', async () => {
      const { version } = require('../../../package.json') as { version: string };
      for (const args of [['--version'], ['--as', 'alice', '-v']]) {
        const result = await sandbox.run(args);
        expect(result.code).to.equal(0);
        expect(result.stdout).to.equal(`${version}\n`);
      }
    });

    it('<command> --help prints that command with its examples, exit 0, touching nothing', async () => {
      // One path serves every command's help; a few commands of each shape stand for all.
      await inBatches(['init', 'add-task', 'add-edge', 'show'], 4, async (command) => {
        const result = await sandbox.run([command, '--help']);
        expect(result.code, command).to.equal(0);
        expect(result.stdout, command).to.include(`$ taskdag ${command}`).and.to.include('Examples');
      });
      const afterFlags = await sandbox.run(['add-task', '--title', 'x', '-h']);
      expect(afterFlags.code).to.equal(0);
      expect(afterFlags.stdout).to.include('$ taskdag add-task');
      expect(existsSync(path.join(sandbox.checkout, '.taskdag.json')), 'help created a project').to.equal(false);
    });
  });

  describe('routing failures', () => {
    it('an unknown command or no command exits 2 with an UNKNOWN_COMMAND envelope', async () => {
      for (const [args, command] of [[[], null], [['frobnicate', '--as', 'x'], 'frobnicate'], [['--as', 'alice'], null]] as const) {
        const result = await sandbox.run([...args]);
        expect(result.code, args.join(' ')).to.equal(2);
        expect(result.json).to.deep.equal({
          ok: false,
          error: { code: 'UNKNOWN_COMMAND', message: result.json.error.message, details: { command } },
        });
      }
    });

    it('a flag the command does not take, or a malformed flag value, is INVALID_ARGUMENT, exit 1, nothing written', async () => {
      await sandbox.init();
      await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
      const task = ['add-task', '--initiative', 'core', '--title', 't', '--body', 'b', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice'];
      await expectFailuresLeaveStateUntouched(sandbox, [
        { args: [...task, '--colour', 'red'], code: 'INVALID_ARGUMENT', details: { command: 'add-task' } },
        { args: ['show', 'T1', 'T2'], code: 'INVALID_ARGUMENT' },
        { args: [...task, '--allow-unregistered-initiative=maybe'], code: 'INVALID_ARGUMENT', details: { flag: '--allow-unregistered-initiative' } },
        { args: [...task, '--meta', '{"points":'], code: 'INVALID_ARGUMENT', details: { flag: '--meta' } },
        { args: [...task, '--meta', '[1,2]'], code: 'INVALID_ARGUMENT', details: { flag: '--meta' } },
        { args: [...task, '--meta', '"text"'], code: 'INVALID_ARGUMENT', details: { flag: '--meta' } },
        { args: [...task, '--meta', 'null'], code: 'INVALID_ARGUMENT', details: { flag: '--meta' } },
      ]);
    });
  });

  describe('arguments as typed (repeats, positionals)', () => {
    const task = (...extra: string[]) => ['add-task', 'T-1', '--initiative', 'core', '--title', 't', '--body', 'b', '--acceptance', 'a', ...extra, '--as', 'alice'];

    beforeEach(async () => {
      await sandbox.init();
      await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
    });

    it('a missing positional is MISSING_FIELD naming the positional as typed, never a flag', async () => {
      await expectFailuresLeaveStateUntouched(sandbox, [
        { args: ['take', '--as', 'alice'], code: 'MISSING_FIELD', details: { operation: 'take', field: 'id', argument: '<id>' } },
        { args: ['add-edge', 'T-1', '--type', 'BLOCKS', '--as', 'alice'], code: 'MISSING_FIELD', details: { field: 'to', argument: '<to>' } },
        { args: ['add-note', 'T-1', '--as', 'alice'], code: 'MISSING_FIELD', details: { field: 'text', argument: '<text...>' } },
        { args: ['restore', '--as', 'alice'], code: 'MISSING_FIELD', details: { field: 'snapshot_id', argument: '<snapshot_id>' } },
      ]);
    });

    it('a single-valued flag given twice is INVALID_ARGUMENT naming the flag and both values; nothing is written', async () => {
      await expectFailuresLeaveStateUntouched(sandbox, [
        { args: task('--blocked-by', '', '--title', 'u'), code: 'INVALID_ARGUMENT', details: { flag: '--title', values: ['t', 'u'] } },
        { args: ['status', '--limit', '1', '--limit', '2'], code: 'INVALID_ARGUMENT', details: { flag: '--limit' } },
        { args: ['status', '--all', '--all=false'], code: 'INVALID_ARGUMENT', details: { flag: '--all' } },
      ]);
    });

    it('a list flag given twice adds up its values, and items are trimmed the same as in a batch', async () => {
      await sandbox.ok(['add-task', 'T-0', '--initiative', 'core', '--title', 'z', '--body', '', '--acceptance', 'a', '--blocked-by', '', '--as', 'alice']);
      await sandbox.ok(['add-gate', 'G-0', '--initiative', 'core', '--title', 'g', '--body', '', '--purpose', 'p', '--as', 'alice']);
      const { node } = await sandbox.ok(task('--blocked-by', 'T-0', '--blocked-by', ' G-0', '--tags', 'a, b', '--tags', 'c,,'));
      expect(node.tags).to.deep.equal(['a', 'b', 'c']);
      const state = await sandbox.ok(['state']);
      expect(state.edges.filter((edge: any) => edge.to === 'T-1').map((edge: any) => edge.from).sort()).to.deep.equal(['G-0', 'T-0']);
      const plan = { operations: [{ op: 'add-task', args: { id: 'T-2', initiative: 'core', title: 't', body: '', acceptance: 'a', blocked_by: [' T-0 ', ''], tags: [' a', 'b '] } }] };
      const batch = await sandbox.ok(['batch', '--stdin', '--as', 'alice'], { input: JSON.stringify(plan) });
      expect(batch.results[0].result.node.tags).to.deep.equal(['a', 'b']);
      expect((await sandbox.ok(['context', 'T-2'])).blocking.map((entry: any) => entry.node.id)).to.deep.equal(['T-0']);
    });
  });

  describe('agent identity (--as, then TASKDAG_AGENT, else MISSING_AGENT)', () => {
    const addTask = (id: string) => ['add-task', id, '--initiative', 'core', '--title', id, '--body', '', '--acceptance', 'ok', '--blocked-by', ''];

    it('the per-command --as wins over the global --as, which wins over TASKDAG_AGENT', async () => {
      await sandbox.init();
      await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
      const env = { TASKDAG_AGENT: 'env-agent' };
      const [fromEnv, fromGlobal, fromCommand] = await Promise.all([
        sandbox.ok(addTask('T-env'), { env }),
        sandbox.ok(['--as', 'global-agent', ...addTask('T-global')], { env }),
        sandbox.ok(['--as', 'global-agent', ...addTask('T-command'), '--as', 'command-agent'], { env }),
      ]);
      expect([fromEnv.node.created_by, fromGlobal.node.created_by, fromCommand.node.created_by]).to.deep.equal([
        'env-agent',
        'global-agent',
        'command-agent',
      ]);
      const state = await sandbox.ok(['state']);
      expect(state.log.find((entry: any) => entry.node === 'T-command').by).to.equal('command-agent');
    });

    it('every mutating command without --as or TASKDAG_AGENT fails with MISSING_AGENT and writes nothing', async () => {
      await sandbox.init();
      await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
      await sandbox.ok([...addTask('T1'), '--as', 'alice']);
      await sandbox.ok([...addTask('T2'), '--as', 'alice']);
      const missing = (args: string[], env: Record<string, string> = {}) => ({ args, env, code: 'MISSING_AGENT' });
      await expectFailuresLeaveStateUntouched(sandbox, [
        missing(['add-initiative', 'other']),
        missing(addTask('T3')),
        missing(['add-gate', '--initiative', 'core', '--title', 'g', '--body', 'b', '--purpose', 'p']),
        missing(['add-knowledge', '--initiative', 'core', '--title', 'k', '--body', 'b', '--scope-tags', 'x']),
        missing(['add-node', 'T4', '--kind', 'resolvable', '--subkind', 'task', '--title', 't', '--initiative', 'core']),
        missing(['add-edge', 'T1', 'T2', '--type', 'BLOCKS']),
        missing(['remove-edge', 'T1', 'T2', '--type', 'BLOCKS']),
        missing(['add-initiative', 'blank', '--as', ''], { TASKDAG_AGENT: '' }),
      ]);
    });

    it('read commands and init need no agent', async () => {
      await sandbox.init();
      expect((await sandbox.run(['state'])).code).to.equal(0);
    });
  });

  describe('global flags', () => {
    it('--project before the command selects the checkout, from any working directory', async () => {
      const elsewhere = path.join(sandbox.root, 'elsewhere');
      mkdirSync(elsewhere);
      const init = await sandbox.ok(['--project', '../checkout', 'init'], { cwd: elsewhere });
      expect(init.checkout).to.equal(sandbox.checkout);
      await sandbox.ok(['--project', sandbox.checkout, 'add-initiative', 'core', '--as', 'alice'], { cwd: elsewhere });
      const state = await sandbox.ok(['--project=../checkout', 'state'], { cwd: elsewhere });
      expect(Object.keys(state.initiatives)).to.deep.equal(['core']);
    });

    it('--no-warnings is accepted before or after the command and changes nothing else', async () => {
      await sandbox.init();
      const before = await sandbox.ok(['--no-warnings', 'add-initiative', 'one', '--as', 'alice']);
      const after = await sandbox.ok(['add-initiative', 'two', '--as', 'alice', '--no-warnings']);
      expect(before).to.have.keys('initiative');
      expect(after.initiative).to.include({ name: 'two', desc: '' });
    });
  });

  describe('storage failures', () => {
    it('a command outside any project is STORAGE_ERROR telling to run init', async () => {
      const result = await sandbox.run(['state']);
      expect(result.code).to.equal(1);
      expect(result.json.error).to.deep.include({ code: 'STORAGE_ERROR' });
      expect(result.json.error.message).to.include('taskdag init');
      expect(result.json.error.details.cause).to.equal('ENOENT');
    });

    it('a corrupt state or .taskdag.json is STORAGE_ERROR with the cause in details, never a stack trace', async () => {
      const init = await sandbox.init();
      writeFileSync(path.join(init.state_dir, 'tasks.json'), '{"version":1,');
      for (const args of [['state'], ['show', 'T1'], ['add-initiative', 'x', '--as', 'alice']]) {
        const result = await sandbox.run(args);
        expect(result.code, args[0]).to.equal(1);
        expect(result.json.error.code).to.equal('STORAGE_ERROR');
        expect(result.json.error.details).to.include({ cause: 'EINVALID', path: path.join(init.state_dir, 'tasks.json') });
        expect(result.stdout + result.stderr).not.to.match(/\n\s+at /);
      }
      writeFileSync(path.join(sandbox.checkout, '.taskdag.json'), 'not json');
      const badCheckout = await sandbox.run(['state']);
      expect(badCheckout.json.error).to.deep.include({ code: 'STORAGE_ERROR' });
      expect(badCheckout.json.error.details.cause).to.equal('EINVALID');
    });
  });
});
