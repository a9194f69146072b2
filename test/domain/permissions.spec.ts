import { expect } from 'chai';
import { GraphDraft } from '../../domain/draft.js';
import { isDomainError } from '../../domain/errors.js';
import { ACTIONS, allowedActions, isAdministrator, judge, type Action } from '../../domain/permissions.js';
import { performAction } from '../support/actions.js';
import { nodeInState, STATES, type StateName } from '../support/graph-fixture.js';

const AGENTS = ['alice', 'bob', 'carol', 'orchestrator', 'recovery'] as const;
type Agent = (typeof AGENTS)[number];

const EVERYONE: Action[] = ['add-note', 'update'];

/**
 * What each agent may do to node X in each state (see nodeInState: alice works, bob reviews and
 * resolves, carol stands by). This is the permission table of docs/lifecycle.md.
 */
const EXPECTED: Record<StateName, Partial<Record<Agent, Action[]>> & { default: Action[] }> = {
  'task ready': { default: ['take', ...EVERYONE], orchestrator: ['take', 'cancel', ...EVERYONE], recovery: ['take', 'cancel', ...EVERYONE] },
  'task blocked': { default: EVERYONE, orchestrator: ['cancel', ...EVERYONE], recovery: ['cancel', ...EVERYONE] },
  'task backlog': { default: EVERYONE, orchestrator: ['cancel', ...EVERYONE], recovery: ['cancel', ...EVERYONE] },
  'task in_progress': {
    default: EVERYONE,
    alice: ['release', 'submit', 'cancel', ...EVERYONE],
    orchestrator: ['take', 'release', 'cancel', ...EVERYONE],
    recovery: ['release', 'cancel', ...EVERYONE],
  },
  'task submitted': {
    default: ['accept', 'reject', ...EVERYONE],
    alice: ['accept', 'reject', 'cancel', ...EVERYONE],
    orchestrator: ['accept', 'reject', 'cancel', ...EVERYONE],
    recovery: ['accept', 'reject', 'cancel', ...EVERYONE],
  },
  'task done': { default: EVERYONE, alice: ['reopen', ...EVERYONE], orchestrator: ['reopen', ...EVERYONE], recovery: ['reopen', ...EVERYONE] },
  'task archived': { default: EVERYONE },
  'task canceled': { default: EVERYONE },
  'gate open': { default: ['resolve', ...EVERYONE], orchestrator: ['resolve', 'cancel', ...EVERYONE], recovery: ['resolve', 'cancel', ...EVERYONE] },
  'gate resolved': { default: EVERYONE, bob: ['reopen', ...EVERYONE], orchestrator: ['reopen', ...EVERYONE], recovery: ['reopen', ...EVERYONE] },
  'gate superseded': { default: EVERYONE },
  'gate canceled': { default: EVERYONE },
  'knowledge active': { default: ['deprecate-knowledge', ...EVERYONE] },
  'knowledge deprecated': { default: EVERYONE },
};

/** The two idempotent no-ops: they succeed, change nothing, and so are not listed. */
const NO_OPS: Partial<Record<StateName, Partial<Record<Agent, Action[]>>>> = {
  'task in_progress': { alice: ['take'] },
};
const UNCLAIMED_TASKS: StateName[] = ['task ready', 'task blocked', 'task backlog', 'task submitted', 'task done', 'task archived', 'task canceled'];

function expectedNoOps(state: StateName, agent: Agent): Action[] {
  return [...(NO_OPS[state]?.[agent] ?? []), ...(UNCLAIMED_TASKS.includes(state) ? ['release' as const] : [])];
}

describe('domain/permissions', () => {
  describe('allowedActions', () => {
    for (const state of STATES) {
      for (const agent of AGENTS) {
        it(`${state}, as ${agent}: lists exactly the documented actions`, () => {
          const fixture = nodeInState(state);
          const sut = allowedActions(fixture.draft(agent), fixture.node('X'), agent);
          expect(sut).to.deep.equal(EXPECTED[state][agent] ?? EXPECTED[state].default);
        });
      }
    }

    it('lists nothing without an agent identity, since every action needs one', () => {
      const fixture = nodeInState('task ready');
      expect(allowedActions(fixture.draft(null), fixture.node('X'), null)).to.deep.equal([]);
    });
  });

  describe('every listed action succeeds and every unlisted one is refused', () => {
    for (const state of STATES) {
      for (const agent of AGENTS) {
        it(`${state}, as ${agent}`, () => {
          const fixture = nodeInState(state);
          const listed = allowedActions(fixture.draft(agent), fixture.node('X'), agent);
          for (const action of ACTIONS) {
            const attempt = fixture.clone();
            const draft = attempt.draft(agent);
            let error: unknown = null;
            try {
              performAction(draft, action, 'X');
            } catch (caught) {
              error = caught;
            }
            if (listed.includes(action)) {
              expect(error, `${action} is listed but failed`).to.equal(null);
              expect(draft.changes(), `${action} is listed but changed nothing`).to.not.equal(null);
              expect(attempt.node('X').revision, `${action} bumps the revision`).to.equal(fixture.node('X').revision + 1);
            } else if (expectedNoOps(state, agent).includes(action)) {
              expect(error, `${action} is an idempotent no-op`).to.equal(null);
              expect(draft.changes(), `${action} must write nothing`).to.equal(null);
            } else {
              expect(isDomainError(error), `${action} is not listed but was not refused`).to.equal(true);
              expect(['NOT_READY', 'NOT_CLAIMABLE', 'ALREADY_CLAIMED', 'NOT_OWNER', 'INVALID_STATUS']).to.include((error as { code: string }).code);
              expect(attempt.graph, `a refused ${action} leaves the graph untouched`).to.deep.equal(fixture.graph);
            }
          }
        });
      }
    }
  });

  describe('judge', () => {
    const refusal = (state: StateName, action: Action, agent: string) => {
      const fixture = nodeInState(state);
      const verdict = judge(fixture.draft(agent), fixture.node('X'), action, agent);
      return verdict.outcome === 'refused' ? { code: verdict.error().code, details: verdict.error().details } : verdict.outcome;
    };

    it('take: NOT_READY for every non-ready task status, with the status in details', () => {
      for (const state of ['task backlog', 'task submitted', 'task done', 'task archived', 'task canceled'] as const) {
        expect(refusal(state, 'take', 'carol'), state).to.deep.equal({ code: 'NOT_READY', details: { id: 'X', status: state.split(' ')[1] } });
      }
      const blockers = { direct: ['G-wait'], direct_count: 1, open_roots: ['G-wait'], open_roots_count: 1 };
      expect(refusal('task blocked', 'take', 'carol'), 'a blocked task names what it waits on').to.deep.equal({ code: 'NOT_READY', details: { id: 'X', status: 'blocked', blockers } });
    });

    it('take: NOT_READY for resolved and superseded gates, NOT_CLAIMABLE for other gates and knowledge', () => {
      expect(refusal('gate resolved', 'take', 'carol')).to.include({ code: 'NOT_READY' });
      expect(refusal('gate superseded', 'take', 'carol')).to.include({ code: 'NOT_READY' });
      expect(refusal('gate open', 'take', 'carol')).to.include({ code: 'NOT_CLAIMABLE' });
      expect(refusal('gate canceled', 'take', 'carol')).to.include({ code: 'NOT_CLAIMABLE' });
      expect(refusal('knowledge active', 'take', 'carol')).to.include({ code: 'NOT_CLAIMABLE' });
    });

    it('take: ALREADY_CLAIMED for another agent, recovery included; orchestrator takes over; the holder is a no-op', () => {
      expect(refusal('task in_progress', 'take', 'bob')).to.deep.equal({
        code: 'ALREADY_CLAIMED',
        details: { id: 'X', claimed_by: 'alice', claimed_at: '2030-01-01T00:00:00.000Z' },
      });
      expect(refusal('task in_progress', 'take', 'recovery')).to.include({ code: 'ALREADY_CLAIMED' });
      expect(refusal('task in_progress', 'take', 'orchestrator')).to.equal('allowed');
      expect(refusal('task in_progress', 'take', 'alice')).to.equal('unchanged');
    });

    it('release: NOT_OWNER for a non-holder, NOT_CLAIMABLE on gates and knowledge, no-op when unclaimed', () => {
      expect(refusal('task in_progress', 'release', 'bob')).to.deep.equal({ code: 'NOT_OWNER', details: { id: 'X', action: 'release', owner: 'alice' } });
      expect(refusal('gate open', 'release', 'bob')).to.include({ code: 'NOT_CLAIMABLE' });
      expect(refusal('knowledge active', 'release', 'bob')).to.include({ code: 'NOT_CLAIMABLE' });
      expect(refusal('task ready', 'release', 'bob')).to.equal('unchanged');
    });

    it('submit: only the holder; NOT_OWNER even for orchestrator, INVALID_STATUS when not in progress', () => {
      expect(refusal('task in_progress', 'submit', 'orchestrator')).to.include({ code: 'NOT_OWNER' });
      expect(refusal('task ready', 'submit', 'alice')).to.include({ code: 'INVALID_STATUS' });
      expect(refusal('gate open', 'submit', 'alice')).to.include({ code: 'NOT_CLAIMABLE' });
    });

    it('accept, reject: INVALID_STATUS unless a submitted task', () => {
      for (const action of ['accept', 'reject'] as const) {
        expect(refusal('task in_progress', action, 'bob')).to.include({ code: 'INVALID_STATUS' });
        expect(refusal('task done', action, 'bob')).to.include({ code: 'INVALID_STATUS' });
        expect(refusal('gate open', action, 'bob')).to.include({ code: 'INVALID_STATUS' });
      }
    });

    it('accept under the independent review rule: refused to the submitter, administrators included; open to anyone else', () => {
      const judgedUnder = (review: 'any' | 'independent', submitter: string, agent: string) => {
        const fixture = nodeInState('task submitted');
        const task = { ...fixture.node('X'), submitted_by: submitter } as ReturnType<typeof fixture.node>;
        const view = new GraphDraft(fixture.graph, fixture.now, agent, review);
        const verdict = judge(view, task, 'accept', agent);
        return verdict.outcome === 'refused' ? { code: verdict.error().code, details: verdict.error().details } : verdict.outcome;
      };
      expect(judgedUnder('independent', 'alice', 'alice')).to.deep.equal({
        code: 'INDEPENDENT_REVIEW_REQUIRED',
        details: { id: 'X', action: 'accept', submitted_by: 'alice', review: 'independent' },
      });
      expect(judgedUnder('independent', 'orchestrator', 'orchestrator')).to.include({ code: 'INDEPENDENT_REVIEW_REQUIRED' });
      expect(judgedUnder('independent', 'alice', 'bob')).to.equal('allowed');
      expect(judgedUnder('any', 'alice', 'alice'), "the spec's rule, the default").to.equal('allowed');
      const fixture = nodeInState('task submitted');
      expect(allowedActions(new GraphDraft(fixture.graph, fixture.now, 'alice', 'independent'), fixture.node('X'), 'alice')).not.to.include('accept');
    });

    it('resolve: a second resolve fails with INVALID_STATUS; so do superseded and canceled gates and tasks', () => {
      const second = refusal('gate resolved', 'resolve', 'bob') as { code: string; details: Record<string, unknown> };
      expect(second.code).to.equal('INVALID_STATUS');
      expect(second.details).to.include({ id: 'X', status: 'resolved', action: 'resolve' });
      for (const state of ['gate superseded', 'gate canceled', 'task ready'] as const) expect(refusal(state, 'resolve', 'bob')).to.include({ code: 'INVALID_STATUS' });
    });

    it('reopen: the original actor or an administrator; NOT_OWNER for others, INVALID_STATUS elsewhere', () => {
      expect(refusal('task done', 'reopen', 'bob')).to.deep.equal({ code: 'NOT_OWNER', details: { id: 'X', action: 'reopen', owner: 'alice' } });
      expect(refusal('gate resolved', 'reopen', 'alice')).to.deep.equal({ code: 'NOT_OWNER', details: { id: 'X', action: 'reopen', owner: 'bob' } });
      expect(refusal('task submitted', 'reopen', 'orchestrator')).to.include({ code: 'INVALID_STATUS' });
      expect(refusal('gate open', 'reopen', 'orchestrator')).to.include({ code: 'INVALID_STATUS' });
    });

    it('cancel: unclaimed open tasks and open gates are administrator-only; holders cancel their work', () => {
      expect(refusal('task ready', 'cancel', 'alice')).to.deep.equal({ code: 'NOT_OWNER', details: { id: 'X', action: 'cancel', owner: null } });
      expect(refusal('gate open', 'cancel', 'bob')).to.include({ code: 'NOT_OWNER' });
      expect(refusal('task in_progress', 'cancel', 'bob')).to.include({ code: 'NOT_OWNER' });
      expect(refusal('task in_progress', 'cancel', 'alice')).to.equal('allowed');
      expect(refusal('task submitted', 'cancel', 'alice')).to.equal('allowed');
      for (const state of ['task done', 'task canceled', 'gate resolved', 'knowledge active'] as const) {
        expect(refusal(state, 'cancel', 'orchestrator'), state).to.include({ code: 'INVALID_STATUS' });
      }
    });

    it('deprecate-knowledge: INVALID_STATUS on deprecated knowledge and on other kinds', () => {
      expect(refusal('knowledge deprecated', 'deprecate-knowledge', 'bob')).to.include({ code: 'INVALID_STATUS' });
      expect(refusal('task ready', 'deprecate-knowledge', 'bob')).to.include({ code: 'INVALID_STATUS' });
    });
  });

  it('isAdministrator: orchestrator and recovery only', () => {
    expect(['orchestrator', 'recovery', 'alice', 'Orchestrator'].map(isAdministrator)).to.deep.equal([true, true, false, false]);
  });
});
