import { expect } from 'chai';
import sinon from 'sinon';
import { HttpRemoteDispatcher } from '../../../adapters/remote/http-remote-dispatcher.js';
import { OPERATIONS } from '../../../application/operations/index.js';
import { OperationRegistry } from '../../../application/registry.js';
import { DomainError } from '../../../domain/errors.js';

describe('HttpRemoteDispatcher', function () {
  this.timeout(10_000);

  it('a request Node refuses to build (a header it cannot carry) fails at once as REMOTE_REQUEST_FAILED and leaves no deadline running', async () => {
    const sut = new HttpRemoteDispatcher({ origin: 'http://127.0.0.1:9', bearer: 'bearer\u2603', operations: new OperationRegistry(OPERATIONS), timeoutMs: 60_000 });
    const clock = sinon.useFakeTimers();
    try {
      const error = await sut.dispatch({ project: 'p', operation: 'status', args: {}, agent: null }).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error).to.be.instanceOf(DomainError);
      expect((error as DomainError).code).to.equal('REMOTE_REQUEST_FAILED');
      expect((error as DomainError).details).to.include({ cause: 'ERR_INVALID_CHAR', origin: 'http://127.0.0.1:9' });
      expect((error as DomainError).message).not.to.include('bearer\u2603');
      expect(clock.countTimers()).to.equal(0);
    } finally {
      sut.close();
    }
  });
});
