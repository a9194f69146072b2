import { expect } from 'chai';
import { DomainError, ERROR_CODES, isDomainError } from '../../domain/errors.js';

// Spec section 7, copied verbatim: the published codes.
const SPEC_CODES = [
  'MISSING_FIELD', 'MISSING_AGENT', 'NODE_NOT_FOUND', 'INITIATIVE_NOT_FOUND', 'ID_CONFLICT', 'INVALID_EDGE_TARGET',
  'INVALID_EDGE_KIND', 'INVALID_EDGE_TYPE', 'SELF_EDGE', 'DUPLICATE_EDGE', 'CYCLE_DETECTED', 'REVISION_CONFLICT',
  'STATE_REVISION_CONFLICT', 'BATCH_OPERATION_FAILED', 'NOT_READY', 'NOT_CLAIMABLE', 'ALREADY_CLAIMED', 'NOT_OWNER',
  'INVALID_STATUS', 'STORAGE_ERROR', 'CLI_INTERNAL_ERROR', 'PLUGIN_DATA_INVALID', 'PLUGIN_API_INCOMPATIBLE',
  'PLUGIN_RUNTIME_UNAVAILABLE', 'REMOTE_CONFIG_OUTDATED', 'AUTH_INVALID', 'REMOTE_REQUEST_FAILED',
  'REMOTE_UNSUPPORTED_OPERATION', 'SERVER_ALREADY_RUNNING',
];

describe('errors (spec 7)', () => {
  it('has every code of the spec, plus only our documented additions', () => {
    expect(ERROR_CODES).to.include.members(SPEC_CODES);
    expect(ERROR_CODES.filter((code) => !SPEC_CODES.includes(code))).to.deep.equal([
      'INVALID_ARGUMENT',
      'PLUGIN_REFUSED',
      'PLUGIN_NOT_ALLOWED',
      'UNKNOWN_COMMAND',
      'SERVER_SETUP_CONFLICT',
      'SERVER_PREFLIGHT_FAILED',
      'SERVER_BIND_FAILED',
      'REQUEST_TOO_LARGE',
      'PROJECT_NOT_FOUND',
      'UI_UNAVAILABLE',
      'AGENT_NOT_ALLOWED',
      'SERVER_PASSWORD_STALE',
      'INDEPENDENT_REVIEW_REQUIRED',
      'CLAIM_FENCED',
      'REQUEST_ID_REUSED',
    ]);
    expect(new Set(ERROR_CODES).size).to.equal(ERROR_CODES.length);
  });

  it('carries its code, message and details, with details always present', () => {
    const sut = new DomainError('NODE_NOT_FOUND', 'No node with id T1', { id: 'T1' });
    expect(sut).to.include({ code: 'NODE_NOT_FOUND', message: 'No node with id T1', name: 'DomainError' });
    expect(sut.details).to.deep.equal({ id: 'T1' });
    expect(new DomainError('CLI_INTERNAL_ERROR', 'x').details).to.deep.equal({});
    expect(isDomainError(sut)).to.equal(true);
    expect(isDomainError(new Error('plain'))).to.equal(false);
    // A DomainError from another bundle's copy of the class is one too; a look-alike with an unknown code is not.
    const foreign = Object.assign(new Error('held'), { name: 'DomainError', code: 'SERVER_ALREADY_RUNNING', details: {} });
    expect(isDomainError(foreign)).to.equal(true);
    expect(isDomainError(Object.assign(new Error('x'), { name: 'DomainError', code: 'NOPE', details: {} }))).to.equal(false);
  });
});
