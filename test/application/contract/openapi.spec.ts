import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../../../application/contract/openapi.js';
import { OPERATIONS } from '../../../application/operations/index.js';
import { openApiViolation } from '../../support/openapi-check.js';

const { version } = require('../../../../package.json') as { version: string };

describe('docs/openapi.json (the server routes, generated from the declarations)', () => {
  it('holds exactly what the declarations generate: run `npm run schemas` after changing one', () => {
    const committed = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../docs/openapi.json'), 'utf8'));
    expect(committed).to.deep.equal(JSON.parse(JSON.stringify(openApiDocument(OPERATIONS, version))));
  });

  it('has a route for every operation a server offers, and none for local-only ones', () => {
    const paths = Object.keys(openApiDocument(OPERATIONS, version).paths as object);
    for (const operation of OPERATIONS) {
      const offered = operation.remote && operation.scope !== 'host';
      expect(paths.includes(`/v1/projects/{project}/ops/${operation.name}`), operation.name).to.equal(offered);
    }
  });

  it('offers Idempotency-Key on every mutation and on no read (docs/remote.md, retries)', () => {
    const paths = openApiDocument(OPERATIONS, version).paths as Record<string, { post?: { parameters: { $ref?: string }[] } }>;
    for (const operation of OPERATIONS) {
      const route = paths[`/v1/projects/{project}/ops/${operation.name}`];
      if (!route) continue;
      const keyed = route.post!.parameters.some((parameter) => parameter.$ref === '#/components/parameters/IdempotencyKey');
      expect(keyed, operation.name).to.equal(operation.mutates);
    }
  });

  it('the check of real answers finds unknown routes, undocumented answers and wrong bodies', () => {
    expect(openApiViolation('GET', '/v1/nowhere', 200, {})).to.match(/not in docs\/openapi.json/);
    expect(openApiViolation('POST', '/v1/projects/p/ops/show', 200, { type: 'task' })).to.match(/breaks/);
    expect(openApiViolation('POST', '/v1/projects/p/ops/show', 404, { ok: false, error: { code: 'NODE_NOT_FOUND', message: 'm', details: {} } })).to.equal(null);
    expect(openApiViolation('GET', '/v1/projects/p/ui/activity?limit=2', 200, { entries: [], total: 0, next_before: null })).to.equal(null);
  });
});
