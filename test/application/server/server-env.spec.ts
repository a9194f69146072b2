import { expect } from 'chai';
import { parseEnvFile, renderEnvFile, replaceSecret } from '../../../application/server/server-env.js';
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

  it('rotation replaces the secret line only', () => {
    const text = '# keep\nA=1\nTASKDAG_SERVER_PASSWORD=old\nB=2\n';
    expect(replaceSecret(text, 'new')).to.equal('# keep\nA=1\nTASKDAG_SERVER_PASSWORD=new\nB=2\n');
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
    const inverted = readServerSettings({ TASKDAG_SERVER_REQUEST_TIMEOUT_MS: '1000' });
    expect('problems' in inverted && inverted.problems[0]!.problem).to.match(/must not exceed TASKDAG_SERVER_REQUEST_TIMEOUT_MS/);
  });
});
