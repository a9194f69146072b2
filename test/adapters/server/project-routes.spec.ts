import { expect } from 'chai';
import { cutWhenClientGoes } from '../../../adapters/server/project-routes.js';
import { OPERATIONS } from '../../../application/operations/index.js';
import { OperationRegistry } from '../../../application/registry.js';

describe('which server requests are cut when their client goes away', () => {
  const registry = new OperationRegistry(OPERATIONS);

  it('only a call that waits for work, on a server that writes every project itself', () => {
    const cut = OPERATIONS.filter((operation) => cutWhenClientGoes(operation, false)).map((operation) => operation.name);
    expect(cut).to.deep.equal(['next']);
  });

  it('every call, where a mutation may be forwarded to its project owner', () => {
    for (const name of ['status', 'add-task', 'take', 'accept', 'next']) expect(cutWhenClientGoes(registry.get(name), true), name).to.equal(true);
  });
});
