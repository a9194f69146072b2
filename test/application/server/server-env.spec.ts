import { expect } from 'chai';
import { parseEnvFile, passwordGeneration, renderEnvFile, rotateSecret } from '../../../application/server/server-env.js';
import { DEFAULT_SETTINGS, readServerSettings } from '../../../application/server/server-settings.js';

describe('server.env (strict KEY=VALUE lines)', () => {
  it('reads comments, blank lines and literal values; a fresh file reads back', () => {
    const parsed = parseEnvFile('# note\n\nTASKDAG_SERVER_PASSWORD=a-B_9.x/y+z=@%:,\nOTHER=\n');
    expect('entries' in parsed && [...parsed.entries]).to.deep.equal([
      ['TASKDAG_SERVER_PASSWORD', 'a-B_9.x/y+z=@%:,'],
      ['OTHER', ''],
    ]);
    const fresh = parseEnvFile(renderEnvFile('s3cret', 2048));
    expect('entries' in fresh && fresh.entries.get('TASKDAG_SERVER_MAX_BODY_BYTES')).to.equal('2048');
  });

  it('refuses what a shell and systemd could read differently, and a file without a usable secret', () => {
    const cases: [string, RegExp][] = [
      ['TASKDAG_SERVER_PASSWORD="quoted"\n', /literally/],
      ["TASKDAG_SERVER_PASSWORD='x'\n", /literally/],
      ['TASKDAG_SERVER_PASSWORD=a b\n', /literally/],
      ['TASKDAG_SERVER_PASSWORD=$HOME\n', /literally/],
      ['TASKDAG_SERVER_PASSWORD=x\\y\n', /literally/],
      ['export TASKDAG_SERVER_PASSWORD=x\n', /upper-case KEY/],
      ['lower=x\nTASKDAG_SERVER_PASSWORD=x\n', /upper-case KEY/],
      ['TASKDAG_SERVER_PASSWORD\n', /not KEY=VALUE/],
      ['TASKDAG_SERVER_PASSWORD=a\nTASKDAG_SERVER_PASSWORD=b\n', /twice/],
      ['OTHER=1\n', /no TASKDAG_SERVER_PASSWORD/],
      ['TASKDAG_SERVER_PASSWORD=\n', /empty/],
      [`TASKDAG_SERVER_PASSWORD=${'x'.repeat(1025)}\n`, /longer/],
    ];
    for (const [text, problem] of cases) {
      const parsed = parseEnvFile(text);
      expect('problem' in parsed && parsed.problem, text).to.match(problem);
    }
  });

  it('rotation replaces the secret and the password generation only, adding the generation to a file from before it', () => {
    const text = '# keep\nA=1\nTASKDAG_SERVER_PASSWORD=old\nTASKDAG_PASSWORD_GENERATION=4\nB=2\n';
    expect(rotateSecret(text, 'new', 5)).to.equal('# keep\nA=1\nTASKDAG_SERVER_PASSWORD=new\nTASKDAG_PASSWORD_GENERATION=5\nB=2\n');
    expect(rotateSecret('A=1\nTASKDAG_SERVER_PASSWORD=old\n', 'new', 1)).to.equal('A=1\nTASKDAG_SERVER_PASSWORD=new\nTASKDAG_PASSWORD_GENERATION=1\n');
  });

  it('the password generation: 1 in a fresh file, 0 when absent, and anything but a whole number refused', () => {
    const fresh = parseEnvFile(renderEnvFile('s3cret', 2048));
    expect('entries' in fresh && passwordGeneration(fresh.entries)).to.deep.equal({ generation: 1 });
    expect(passwordGeneration({})).to.deep.equal({ generation: 0 });
    expect(passwordGeneration({ TASKDAG_PASSWORD_GENERATION: '12' })).to.deep.equal({ generation: 12 });
    for (const value of ['', '-1', '1.5', 'x', '9'.repeat(16)]) expect(passwordGeneration({ TASKDAG_PASSWORD_GENERATION: value }), value).to.have.property('problem');
  });

  it('settings: defaults, values in range, and every value out of range named', () => {
    expect(readServerSettings({})).to.deep.equal({ settings: DEFAULT_SETTINGS });
    expect(DEFAULT_SETTINGS.maxBodyBytes).to.equal(16 * 1024 * 1024);
    expect(readServerSettings(new Map([['TASKDAG_SERVER_MAX_BODY_BYTES', '4096']]))).to.deep.equal({ settings: { ...DEFAULT_SETTINGS, maxBodyBytes: 4096 } });
    const read = readServerSettings({ TASKDAG_SERVER_MAX_BODY_BYTES: '1023', TASKDAG_SERVER_DRAIN_MS: '-1', TASKDAG_SERVER_HEADERS_TIMEOUT_MS: '1e3' });
    expect('problems' in read && read.problems.map((problem) => problem.key)).to.deep.equal([
      'TASKDAG_SERVER_MAX_BODY_BYTES',
      'TASKDAG_SERVER_HEADERS_TIMEOUT_MS',
      'TASKDAG_SERVER_DRAIN_MS',
    ]);
    expect(DEFAULT_SETTINGS.ownerLeaseMs).to.equal(10_000);
    const lease = readServerSettings({ TASKDAG_SERVER_OWNER_LEASE_MS: '499' });
    expect('problems' in lease && lease.problems.map((problem) => problem.problem)).to.deep.equal(['TASKDAG_SERVER_OWNER_LEASE_MS must be a whole number from 500 to 300000']);
    const inverted = readServerSettings({ TASKDAG_SERVER_REQUEST_TIMEOUT_MS: '1000' });
    expect('problems' in inverted && inverted.problems[0]!.problem).to.match(/must not exceed TASKDAG_SERVER_REQUEST_TIMEOUT_MS/);
  });
});
