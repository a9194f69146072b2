import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { schemaFiles } from '../../../application/contract/json-schemas.js';
import { OPERATIONS } from '../../../application/operations/index.js';
import { commandOf, contractViolation } from '../../support/output-schemas.js';

const SCHEMAS = path.resolve(__dirname, '../../../../schemas');

describe('schemas/ (JSON Schemas generated from the operation declarations)', () => {
  it('holds exactly what the declarations generate: run `npm run schemas` after changing one', () => {
    const expected = schemaFiles(OPERATIONS);
    expect(readdirSync(SCHEMAS).sort()).to.deep.equal(Object.keys(expected).sort());
    for (const [name, schema] of Object.entries(expected)) {
      expect(JSON.parse(readFileSync(path.join(SCHEMAS, name), 'utf8')), name).to.deep.equal(schema);
    }
  });

  it('covers every operation, input and output, and describes every argument', () => {
    const files = schemaFiles(OPERATIONS);
    for (const operation of OPERATIONS) {
      const base = operation.name.replace(/ /g, '-');
      const input = files[`${base}.input.json`] as { properties: Record<string, { description?: string }> };
      expect(files[`${base}.output.json`], operation.name).to.be.an('object');
      for (const [key, property] of Object.entries(input.properties)) expect(property.description, `${operation.name} ${key}`).to.be.a('string').and.not.empty;
    }
  });

  it('the end-to-end check finds the command after global flags, and skips help', () => {
    expect(commandOf(['--project', 'x', '--as', 'a', 'take', 'T-1'])).to.equal('take');
    expect(commandOf(['--no-warnings', '--as=a', 'status'])).to.equal('status');
    expect(commandOf(['take', '--help'])).to.equal(null);
    expect(commandOf(['--version'])).to.equal(null);
  });

  it('the end-to-end check rejects output outside the schemas and accepts what matches them', () => {
    const envelope = { ok: false, error: { code: 'NOT_READY', message: 'm', details: {} } };
    expect(contractViolation(['take', 'T-1'], envelope)).to.equal(null);
    expect(contractViolation(['take', 'T-1'], { ok: false, error: { code: 'NOT_READY' } })).to.match(/error\.json/);
    expect(contractViolation(['release', 'T-1'], { released: false })).to.match(/release\.output\.json/);
    expect(contractViolation(['search', 'x'], { matches: [], count: 0 })).to.equal(null);
    expect(contractViolation(['search', 'x'], { matches: [], count: 0, extra: true })).to.match(/search\.output\.json/);
  });
});
