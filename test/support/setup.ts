import sinon from 'sinon';

// Root hook: no fake timer or stub outlives the test that made it.
afterEach(() => {
  sinon.restore();
});
