import { expect } from 'chai';
import { ACTIONS, type Action } from '../../domain/permissions.js';
import { actionArgs } from '../support/actions.js';
import { Sandbox } from '../support/cli.js';
import { copySandbox, inBatches } from '../support/expectations.js';

const REFUSALS = ['NOT_READY', 'NOT_CLAIMABLE', 'ALREADY_CLAIMED', 'NOT_OWNER', 'INVALID_STATUS'];

/**
 * One node per kind and status, and the agent whose view of it is checked (alice works, bob
 * reviews). Every agent of every state is checked in-process by test/domain/permissions.spec.ts;
 * this suite proves the same through the built binary, where each command is a process.
 */
const CASES: [state: string, id: string, agent: string][] = [
  ['task ready', 'X-ready', 'alice'],
  ['task blocked', 'X-blocked', 'orchestrator'],
  ['task backlog', 'X-backlog', 'alice'],
  ['task in_progress', 'X-progress', 'alice'],
  ['task submitted', 'X-submitted', 'bob'],
  ['task done', 'X-done', 'alice'],
  ['task archived', 'X-archived', 'alice'],
  ['task canceled', 'X-canceled', 'recovery'],
  ['gate open', 'X-gate-open', 'orchestrator'],
  ['gate resolved', 'X-gate-resolved', 'bob'],
  ['gate superseded', 'X-gate-superseded', 'alice'],
  ['gate canceled', 'X-gate-canceled', 'alice'],
  ['knowledge active', 'X-knowledge-active', 'carol'],
  ['knowledge deprecated', 'X-knowledge-deprecated', 'carol'],
];

describe('e2e: context allowed_actions matches what the agent may really do', function () {
  let project: Sandbox;

  before(async function () {
    project = new Sandbox();
    const run = (...args: string[]) => project.ok(args);
    const common = ['--initiative', 'demo', '--body', 'b'];
    const task = (id: string, ...extra: string[]) => run('add-task', id, '--title', id, ...common, '--acceptance', 'a', '--blocked-by', '', ...extra, '--as', 'planner');
    const gate = (id: string, ...extra: string[]) => run('add-gate', id, '--title', id, ...common, '--purpose', 'p', ...extra, '--as', 'planner');
    const knowledge = (id: string) => run('add-knowledge', id, '--title', id, ...common, '--scope-initiatives', 'demo', '--as', 'planner');
    await project.init();
    await run('add-initiative', 'demo', '--as', 'planner');
    await task('X-ready');
    await gate('G-wait');
    await task('X-blocked', '--blocked-by', 'G-wait');
    await task('X-backlog');
    await run('update', 'X-backlog', '--backlog', 'true', '--as', 'planner');
    for (const id of ['X-progress', 'X-submitted', 'X-done']) {
      await task(id);
      await run('take', id, '--as', 'alice');
    }
    for (const id of ['X-submitted', 'X-done']) await run('submit', id, '--note', 'evidence', '--as', 'alice');
    await run('accept', 'X-done', '--as', 'bob');
    await run('add-node', 'X-archived', '--kind', 'resolvable', '--subkind', 'task', '--title', 't', '--initiative', 'demo', '--status', 'archived', '--as', 'planner');
    await task('X-canceled');
    await run('cancel', 'X-canceled', '--reason', 'r', '--as', 'orchestrator');
    for (const id of ['X-gate-open', 'X-gate-resolved', 'X-gate-superseded', 'X-gate-canceled']) await gate(id);
    await run('resolve', 'X-gate-resolved', '--choice', 'a', '--rationale', 'b', '--as', 'bob');
    await gate('G-successor', '--supersedes', 'X-gate-superseded');
    await run('cancel', 'X-gate-canceled', '--reason', 'r', '--as', 'orchestrator');
    await knowledge('X-knowledge-active');
    await knowledge('X-knowledge-deprecated');
    await run('deprecate-knowledge', 'X-knowledge-deprecated', '--reason', 'r', '--as', 'bob');
  });
  after(() => project.remove());

  for (const [state, id, agent] of CASES) {
    it(`${state}, as ${agent}`, async () => {
      const context = await project.ok(['context', id, '--as', agent]);
      const listed: Action[] = context.allowed_actions;
      expect(listed).to.include.members(['add-note', 'update']);
      expect(context.can_claim).to.equal(listed.includes('take'));

      // Unlisted actions run against the shared project: each must be refused (or be one of the two
      // documented no-ops), so the project's state must come out byte-for-byte unchanged.
      const before = (await project.run(['state'])).stdout;
      const unlisted = ACTIONS.filter((action) => !listed.includes(action));
      const outcomes = await inBatches(unlisted, 4, async (action) => ({ action, result: await project.run([...actionArgs(action, id), '--as', agent]) }));
      for (const { action, result } of outcomes) {
        const noOp = (action === 'release' && context.node.subkind === 'task' && context.claim === null) || (action === 'take' && context.claim?.by === agent);
        if (noOp) {
          expect(result.code, `${action} is an idempotent no-op: ${result.stdout}`).to.equal(0);
        } else {
          expect(result.code, `${action} is not listed, so it must fail: ${result.stdout}`).to.equal(1);
          expect(REFUSALS, `${action}: ${result.stdout}`).to.include(result.json.error.code);
        }
      }
      expect((await project.run(['state'])).stdout).to.equal(before);

      // Listed actions each run on a copy of the project, and must succeed and change the node.
      await inBatches(listed, 4, async (action) => {
        const copy = copySandbox(project);
        try {
          const result = await copy.run([...actionArgs(action, id), '--as', agent]);
          expect(result.code, `${action} is listed, so it must succeed: ${result.stdout}`).to.equal(0);
          expect(result.json.node.revision, `${action} changes the node`).to.equal(context.revision + 1);
        } finally {
          copy.remove();
        }
      });
    });
  }
});
