import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SOURCES = ['domain', 'application', 'adapters', 'entrypoints'];

interface Cruise {
  summary: { violations: { rule: { name: string }; from: string; to: string; cycle?: { name: string }[] }[]; totalCruised: number };
  modules: { source: string; dependencies: { resolved: string }[] }[];
}

/**
 * The rules of .dependency-cruiser.cjs (no import circles, dependencies pointing inward only),
 * checked by dependency-cruiser itself on every source file, type-only imports included.
 */
describe('dependencies (.dependency-cruiser.cjs)', function () {
  this.timeout(120_000);
  let cruise: Cruise;

  before(() => {
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs'), '--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...SOURCES],
      { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 110_000 },
    );
    expect(run.stdout, `dependency-cruiser did not run (a devDependency: npm ci installs it)\n${run.stderr}`).not.to.equal('');
    cruise = JSON.parse(run.stdout);
  });

  it('sees every source file and its type-only imports (a parser that saw nothing would find no violation)', () => {
    expect(cruise.summary.totalCruised).to.be.greaterThan(200);
    const view = cruise.modules.find((module) => module.source === 'domain/graph-view.ts');
    expect(view?.dependencies.map((dependency) => dependency.resolved)).to.include('domain/status-index.ts');
  });

  it('finds no import circle and no import against the layers', () => {
    const violations = cruise.summary.violations.map(({ rule, from, to, cycle }) => `${rule.name}: ${from} -> ${cycle ? cycle.map((step) => step.name).join(' -> ') : to}`);
    expect(violations).to.deep.equal([]);
  });
});
