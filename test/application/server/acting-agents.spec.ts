import { expect } from 'chai';
import { actingAgents } from '../../../application/server/acting-agents.js';

describe('actingAgents', () => {
  it('is the caller of an operation, or nobody for a read without an agent', () => {
    expect(actingAgents('take', { id: 'T-1' }, 'alice')).to.deep.equal(['alice']);
    expect(actingAgents('state', {}, null)).to.deep.equal([]);
  });

  it("adds the `as` of every batch item, skipping items a batch refuses anyway", () => {
    const operations = [{ op: 'add-note', args: {} }, { op: 'take', as: 'orchestrator' }, null, { op: 'release', as: 7 }, { op: 'cancel', as: 'recovery' }];
    expect(actingAgents('batch', { operations }, 'alice')).to.deep.equal(['alice', 'orchestrator', 'recovery']);
    expect(actingAgents('batch', { operations: 'not a list' }, 'alice')).to.deep.equal(['alice']);
  });
});
