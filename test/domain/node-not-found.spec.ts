import { expect } from 'chai';
import { assertInitiativeKnown } from '../../domain/initiatives.js';
import { OperationRegistry } from '../../application/registry.js';
import { OPERATIONS } from '../../application/operations/index.js';
import { addTask, newDraft, thrownBy } from '../support/graphs.js';

describe('not-found errors that suggest (node ids, initiatives, operations)', () => {
  it('an unknown node id names the graph\'s closest ids: the same but for case first', () => {
    const draft = newDraft();
    addTask(draft, 'T-Abc');
    addTask(draft, 'T-abd');
    const error = thrownBy(() => draft.requireNode('t-abc'));
    expect(error.code).to.equal('NODE_NOT_FOUND');
    expect(error.message).to.equal('No node with id t-abc: did you mean T-Abc or T-abd?');
    expect(error.details).to.deep.equal({ id: 't-abc', suggestions: ['T-Abc', 'T-abd'] });
    expect(thrownBy(() => draft.requireNode('G-elsewhere')).details).to.deep.equal({ id: 'G-elsewhere' });
  });

  it('an unregistered initiative names the closest registered one', () => {
    const error = thrownBy(() => assertInitiativeKnown(newDraft().graph, 'cor', false));
    expect(error.code).to.equal('INITIATIVE_NOT_FOUND');
    expect(error.message).to.match(/^Initiative cor is not registered: did you mean core\? Else run add-initiative first/);
    expect(error.details).to.deep.equal({ initiative: 'cor', suggestions: ['core'] });
  });

  it('an unknown operation (HTTP, library) names the closest operations', () => {
    const error = thrownBy(() => new OperationRegistry(OPERATIONS).get('stauts'));
    expect(error.code).to.equal('UNKNOWN_COMMAND');
    expect(error.details).to.deep.equal({ operation: 'stauts', suggestions: ['status', 'state'] });
  });
});
