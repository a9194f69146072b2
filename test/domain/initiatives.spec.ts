import { expect } from 'chai';
import { assertInitiativeKnown, registerInitiative } from '../../domain/initiatives.js';
import { NOW, newDraft, thrownBy } from '../support/graphs.js';

describe('initiatives (spec 2.4)', () => {
  it('registers { name, desc, created_at } and logs it', () => {
    const draft = newDraft('alice');
    expect(registerInitiative(draft, 'billing', 'Invoices')).to.deep.equal({ name: 'billing', desc: 'Invoices', created_at: NOW });
    expect(draft.graph.initiatives.billing).to.deep.equal({ desc: 'Invoices', created_at: NOW });
    expect(draft.changes()!.log).to.deep.equal([{ revision: 1, at: NOW, by: 'alice', op: 'add-initiative', node: null, initiative: 'billing' }]);
  });

  it('refuses a duplicate name with ID_CONFLICT', () => {
    const draft = newDraft();
    registerInitiative(draft, 'billing', '');
    const error = thrownBy(() => registerInitiative(draft, 'billing', 'again'));
    expect(error.code).to.equal('ID_CONFLICT');
    expect(error.details).to.deep.equal({ initiative: 'billing' });
  });

  it('refuses a blank name with INVALID_ARGUMENT', () => {
    expect(thrownBy(() => registerInitiative(newDraft(), '  ', '')).code).to.equal('INVALID_ARGUMENT');
  });

  it('requires a registered initiative with INITIATIVE_NOT_FOUND, unless allowed explicitly', () => {
    const graph = newDraft().graph;
    expect(() => assertInitiativeKnown(graph, 'core', false)).not.to.throw();
    const error = thrownBy(() => assertInitiativeKnown(graph, 'elsewhere', false));
    expect(error.code).to.equal('INITIATIVE_NOT_FOUND');
    expect(error.details).to.deep.equal({ initiative: 'elsewhere' });
    expect(() => assertInitiativeKnown(graph, 'elsewhere', true)).not.to.throw();
  });

  it('does not take an inherited property for a registered initiative', () => {
    expect(thrownBy(() => assertInitiativeKnown(newDraft().graph, 'toString', false)).code).to.equal('INITIATIVE_NOT_FOUND');
  });
});
