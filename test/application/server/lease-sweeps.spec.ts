import { expect } from 'chai';
import { OwnedElsewhere } from '../../../application/ports/project-owners.js';
import type { OperationDispatcher, OperationRequest } from '../../../application/operation.js';
import type { ProjectStoreFactory } from '../../../application/ports/project-store.js';
import { sweepEveryProject } from '../../../application/server/lease-sweeps.js';
import { DomainError } from '../../../domain/errors.js';

describe("the server's scheduled lease sweep", () => {
  it("reports each project's released claims and failures, and leaves a project another server process owns to that process", async () => {
    const stores = { list: async () => ['mine', 'theirs', 'broken'] } as unknown as ProjectStoreFactory;
    const dispatcher: OperationDispatcher = {
      dispatch: async ({ project }: OperationRequest) => {
        if (project === 'theirs') throw new OwnedElsewhere('theirs', 'http://10.0.0.7:7407');
        if (project === 'broken') throw new DomainError('STORAGE_ERROR', 'unreadable', {});
        return { released: [{ id: 'T-1' }] };
      },
    };
    expect(await sweepEveryProject(dispatcher, stores)).to.deep.equal([
      { project: 'mine', released: 1 },
      { project: 'broken', error: 'STORAGE_ERROR' },
    ]);
  });
});
