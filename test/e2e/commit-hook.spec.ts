import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BINARY, Sandbox } from '../support/cli.js';

const REPO = path.resolve(__dirname, '../../..');
const HOOK = path.join(REPO, '.githooks', 'commit-msg');

interface Hook {
  checkSubject(subject: string): { exempt?: true; nodeId?: string; problem?: string };
  subjectOf(message: string): string;
}

describe('commit-msg hook (spec 1.2)', () => {
  describe('subject rules', () => {
    const sut = require(HOOK) as Hook;

    it('accepts <type>(<scope>)!?: <subject> [<node-id>] for every allowed type', () => {
      for (const type of ['feat', 'fix', 'docs', 'style', 'refactor', 'perf', 'test', 'build', 'ci', 'chore', 'revert']) {
        expect(sut.checkSubject(`${type}: do a thing [T-1a2b3c4d]`), type).to.deep.equal({ nodeId: 'T-1a2b3c4d' });
      }
      expect(sut.checkSubject('feat(cli): add take [T-1]')).to.deep.equal({ nodeId: 'T-1' });
      expect(sut.checkSubject('fix(store)!: change the ledger format [G-schema]')).to.deep.equal({ nodeId: 'G-schema' });
      expect(sut.checkSubject('docs!: rewrite [K-x]')).to.deep.equal({ nodeId: 'K-x' });
    });

    it('exempts merges, reverts, fixups, squashes, amends and release commits', () => {
      for (const subject of ['Merge branch main', 'Revert "feat: x [T-1]"', 'fixup! feat: x', 'squash! x', 'amend! x', 'release: v1.2.0', 'chore(release): 1.2.0']) {
        expect(sut.checkSubject(subject), subject).to.deep.equal({ exempt: true });
      }
    });

    it('rejects everything else with a problem that says what to fix', () => {
      const rejected: Record<string, RegExp> = {
        'feat: no node id': /end with .*\[<node-id>\]/,
        'feature: x [T-1]': /"feature" is not a commit type/,
        'Feat: x [T-1]': /must read/,
        'feat(): x [T-1]': /scope .* is empty/,
        'feat:  [T-1]': /subject text .* is empty/,
        'feat: x[T-1]': /must read/,
        'feat x [T-1]': /must read/,
        'feat: x [T-1].': /end with/,
        'feat: x [T 1]': /end with|must read/,
        'Merged branch [T-1]': /must read/,
        '': /empty/,
      };
      for (const [subject, problem] of Object.entries(rejected)) {
        expect(sut.checkSubject(subject).problem, JSON.stringify(subject)).to.match(problem);
      }
    });

    it('reads the subject as the first line git keeps', () => {
      expect(sut.subjectOf('# comment\n\nfeat: x [T-1]\n\nbody [T-2]\n')).to.equal('feat: x [T-1]');
    });
  });

  describe('in a git repository', () => {
    let sandbox: Sandbox;
    let repo: string;
    let bin: string;

    function git(args: string[], env: Record<string, string | undefined> = {}) {
      return spawnSync('git', args, { cwd: repo, env: gitEnv(env), encoding: 'utf8' });
    }

    /** Hermetic: no global or system git config, taskdag only through the shim on PATH. */
    function gitEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
      return { ...sandbox.env(), GIT_CONFIG_NOSYSTEM: '1', PATH: `${bin}:${process.env.PATH}`, ...extra } as NodeJS.ProcessEnv;
    }

    function commit(subject: string, env: Record<string, string | undefined> = {}) {
      return git(['commit', '--allow-empty', '-q', '-m', subject], env);
    }

    before(async () => {
      sandbox = new Sandbox();
      repo = sandbox.checkout;
      bin = path.join(sandbox.root, 'bin');
      mkdirSync(bin);
      // `taskdag` on PATH, the way an installed package provides it.
      writeFileSync(path.join(bin, 'taskdag'), `#!/bin/sh\nexec '${process.execPath}' '${BINARY}' "$@"\n`);
      chmodSync(path.join(bin, 'taskdag'), 0o755);
      mkdirSync(path.join(repo, '.githooks'), { recursive: true });
      copyFileSync(HOOK, path.join(repo, '.githooks', 'commit-msg'));
      chmodSync(path.join(repo, '.githooks', 'commit-msg'), 0o755);
      copyFileSync(path.join(REPO, 'package.json'), path.join(repo, 'package.json'));
      // The temporary repository's own config, as `npm run setup:hooks` would set it there.
      const setup = [['init', '-q'], ['config', 'user.name', 'Test'], ['config', 'user.email', 'test@example.test'], ['config', 'core.hooksPath', '.githooks']];
      for (const args of setup) {
        expect(git(args).status).to.equal(0);
      }
      await sandbox.init();
      await sandbox.ok(['add-initiative', 'core', '--as', 'alice']);
      await sandbox.ok(['add-task', 'T-1', '--initiative', 'core', '--title', 't', '--body', '', '--acceptance', 'ok', '--blocked-by', '', '--as', 'alice']);
    });
    after(() => sandbox.remove());

    it('npm run setup:hooks points core.hooksPath at .githooks; no install script does', () => {
      const scripts = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
      for (const lifecycle of ['preinstall', 'install', 'postinstall', 'prepare', 'prepublish', 'preprepare', 'postprepare']) {
        expect(scripts[lifecycle] ?? '', lifecycle).not.to.include('hooksPath');
      }
      expect(git(['config', '--unset', 'core.hooksPath']).status).to.equal(0);
      const setup = spawnSync('npm', ['run', '-s', 'setup:hooks'], { cwd: repo, env: gitEnv({}), encoding: 'utf8' });
      expect(setup.status, setup.stderr).to.equal(0);
      expect(git(['config', 'core.hooksPath']).stdout.trim()).to.equal('.githooks');
    });

    it('accepts a commit whose [node-id] resolves with taskdag show', () => {
      const result = commit('feat(cli): a real change [T-1]');
      expect(result.status, result.stderr).to.equal(0);
      expect(git(['log', '-1', '--format=%s']).stdout.trim()).to.equal('feat(cli): a real change [T-1]');
    });

    it('rejects a commit whose node is not in the project, naming it on stderr', () => {
      const head = git(['rev-parse', 'HEAD']).stdout;
      const result = commit('fix: something [T-missing]');
      expect(result.status).not.to.equal(0);
      expect(result.stderr).to.include('[T-missing] is not a node of this project');
      expect(git(['rev-parse', 'HEAD']).stdout).to.equal(head);
    });

    it('rejects a malformed subject before any lookup, even with TASKDAG_COMMIT_NO_TASK=1', () => {
      const result = commit('did some stuff', { TASKDAG_COMMIT_NO_TASK: '1' });
      expect(result.status).not.to.equal(0);
      expect(result.stderr).to.include('commit-msg: rejected').and.to.include('<type>(<scope>)!?: <subject> [<node-id>]');
    });

    it('TASKDAG_COMMIT_NO_TASK=1 skips only the lookup', () => {
      const result = commit('chore: offline work [T-not-yet-created]', { TASKDAG_COMMIT_NO_TASK: '1' });
      expect(result.status, result.stderr).to.equal(0);
    });

    it('lets exempt subjects through without a node id', () => {
      const result = commit('fixup! feat(cli): a real change [T-1]');
      expect(result.status, result.stderr).to.equal(0);
    });

    it('says how to proceed when taskdag cannot be found', () => {
      const result = commit('feat: x [T-1]', { PATH: path.dirname(process.execPath) + ':/usr/bin:/bin' });
      expect(result.status).not.to.equal(0);
      expect(result.stderr).to.include('cannot run taskdag').and.to.include('TASKDAG_COMMIT_NO_TASK=1');
    });

    it("prefers the repository's own dist/taskdag.js over taskdag on PATH", () => {
      mkdirSync(path.join(repo, 'dist'));
      symlinkSync(BINARY, path.join(repo, 'dist', 'taskdag.js'));
      const result = commit('test: with the built binary [T-1]', { PATH: path.dirname(process.execPath) + ':/usr/bin:/bin' });
      expect(result.status, result.stderr).to.equal(0);
    });
  });
});
