import { expect } from 'chai';
import { freshState, importedDocument, restoredState } from '../../domain/replacement.js';
import { AT, sampleState } from '../support/states.js';

describe('whole-state replacement (init, init --force, restore)', () => {
  it('a first init starts at fence generation 1, a reset at the next one', () => {
    expect(freshState(null)).to.deep.equal({ version: 1, fence_generation: 1, revision: 0, initiatives: {}, nodes: {}, edges: [], log: [] });
    expect(freshState({ revision: 9, fence_generation: 4 }).fence_generation).to.equal(5);
  });

  it('a restore keeps the snapshot and appends a restore event past both revisions and fence generations', () => {
    const snapshot = sampleState();
    const sut = restoredState(snapshot, { revision: 10, fence_generation: 2 }, { snapshot: 'S-1', at: AT, by: 'bob' });
    expect(sut.nodes).to.deep.equal(snapshot.nodes);
    expect(sut.revision).to.equal(11);
    expect(sut.fence_generation).to.equal(3);
    expect(sut.log.slice(0, -1)).to.deep.equal(snapshot.log);
    expect(sut.log.at(-1)).to.deep.equal({
      revision: 11, at: AT, by: 'bob', op: 'restore', node: null, snapshot: 'S-1', restored_revision: snapshot.revision, replaced_revision: 10,
    });
  });

  it('a restore over an unreadable state continues from the snapshot alone', () => {
    const snapshot = sampleState();
    const sut = restoredState(snapshot, null, { snapshot: 'S-1', at: AT, by: 'bob' });
    expect(sut.revision).to.equal(snapshot.revision + 1);
    expect(sut.fence_generation).to.equal(2);
    expect(sut.log.at(-1)!.replaced_revision).to.equal(null);
  });

  it('an imported plain document keeps its graph and log and appends a migrate event past both it and what the files had reached', () => {
    const document = sampleState();
    const over = importedDocument(document, { revision: document.revision + 5, fence_generation: 3 }, { at: AT, by: 'ops' });
    expect(over.nodes).to.deep.equal(document.nodes);
    expect(over.revision).to.equal(document.revision + 6);
    expect(over.fence_generation).to.equal(4);
    expect(over.log.slice(0, -1)).to.deep.equal(document.log);
    expect(over.log.at(-1)).to.deep.equal({ revision: over.revision, at: AT, by: 'ops', op: 'migrate', node: null, from: 'schema-1-document' });
    const behind = importedDocument(document, { revision: 0, fence_generation: 1 }, { at: AT, by: 'ops' });
    expect([behind.revision, behind.fence_generation]).to.deep.equal([document.revision + 1, document.fence_generation + 1]);
  });
});
