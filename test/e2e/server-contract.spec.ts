import { HttpRemoteDispatcher } from '../../adapters/remote/http-remote-dispatcher.js';
import { OPERATIONS } from '../../application/operations/index.js';
import { OperationRegistry } from '../../application/registry.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { dispatcherContract } from '../support/dispatcher-contract.js';

/** The dispatcher contract suite, run against a real `server run` through the HTTP client. */
describe('a real server, through HttpRemoteDispatcher', function () {
  this.timeout(60_000);
  let api: ApiServer;
  let projects = 0;
  before(async () => {
    api = await startApiServer();
  });
  after(async () => api.close());

  dispatcherContract('HTTP remote (server run on 127.0.0.1)', async () => {
    const dispatcher = new HttpRemoteDispatcher({ origin: api.server.origin, bearer: api.bearer, operations: new OperationRegistry(OPERATIONS) });
    projects += 1;
    return { dispatcher, project: `contract-${projects}`, remote: true, cleanup: () => dispatcher.close() };
  });
});
