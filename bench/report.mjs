// What a bench run found: the machine, the targets of issue 5 checked against the figures, and
// the figures as a console table and as Markdown (bench/results/latest.md).
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { MEMORY_METHOD } from './measure.mjs';

export function machine(root) {
  const git = (args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout?.trim() || null;
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memory_gib: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    date: new Date().toISOString(),
    commit: git(['rev-parse', '--short', 'HEAD']),
    uncommitted_changes: Boolean(git(['status', '--porcelain'])),
    load_before: os.loadavg().map((load) => Number(load.toFixed(2))),
    memory_method: MEMORY_METHOD,
  };
}

const find = (report, phase, fixture, scenario) =>
  report.phases.find((p) => p.name === phase)?.items.find((item) => item.fixture === fixture && item.scenario === scenario);

/** Ratio checks against a ceiling (`at most`) or a floor (`at least`). */
function check(label, value, limit, direction) {
  return { label, value, met: direction === 'at most' ? value <= limit : value >= limit };
}

function ratioTarget(report, { text, limit, phase, fixture, groups }) {
  const items = report.phases.find((p) => p.name === phase)?.items.filter((item) => item.fixture === fixture && groups.includes(item.group) && !item.reference) ?? [];
  return {
    text,
    limit,
    direction: 'at most',
    checks: items.filter((item) => item.status === 'ok').map((item) => check(item.scenario, item.ratio, limit, 'at most')),
    not_measured: items.filter((item) => item.status !== 'ok').map((item) => `${item.scenario} (${item.note ?? item.error?.code ?? 'failed'})`),
  };
}

function historyTarget(report) {
  const limit = 1.2;
  const phase = report.phases.find((p) => p.name === '10k');
  const mutations = phase?.items.filter((item) => item.fixture === '10k' && (item.group === 'mutation' || item.scenario === 'history')) ?? [];
  const checks = [];
  const notMeasured = [];
  for (const long of mutations) {
    const short = find(report, '10k', '10k-log100', long.scenario);
    if (!short) continue;
    if (long.status === 'ok' && short?.status === 'ok') checks.push(check(long.scenario, Number((long.median_ms / short.median_ms).toFixed(3)), limit, 'at most'));
    else notMeasured.push(`${long.scenario} (${long.note ?? long.error?.code ?? short?.note ?? short?.error?.code ?? 'failed'})`);
  }
  return { text: 'a mutation, and history of one node, at 100k log entries within 1.2× of the same at 100 (10k nodes)', limit, direction: 'at most', checks, not_measured: notMeasured };
}

/** A batch of 3,000 add-task at most 20× one add-task, on the largest project measured (50k; 10k with --quick). */
function batchTarget(report) {
  const limit = 20;
  const phase = report.phases.find((p) => p.name === '50k-batch') ?? report.phases.find((p) => p.name.endsWith('-batch'));
  const target = { text: `a batch of 3,000 add-task at most 20× one add-task (${phase?.name.replace('-batch', '') ?? '50k'} project)`, limit, direction: 'at most', checks: [], not_measured: [] };
  const batch = phase?.items.find((item) => item.scenario === 'batch');
  const single = phase?.items.find((item) => item.scenario === 'add-task');
  if (batch?.status === 'ok' && single?.status === 'ok') target.checks.push(check('batch / add-task', Number((batch.median_ms / single.median_ms).toFixed(2)), limit, 'at most'));
  else target.not_measured.push('batch (not run)');
  return target;
}

function peerTarget(report) {
  const limit = 5;
  const target = { text: 'at least 5× faster than Taskwarrior on the shared 5k-task workload', limit, direction: 'at least', checks: [], not_measured: [] };
  if (!report.taskwarrior?.available) {
    target.not_measured.push(`Taskwarrior unavailable: ${report.taskwarrior?.reason ?? 'not run'}`);
    return target;
  }
  const phase = report.phases.find((p) => p.name === 'shared-5k');
  for (const peer of phase.items.filter((item) => item.group === 'peer')) {
    const ours = phase.items.find((item) => item.fixture !== 'taskwarrior' && item.scenario === counterpartOf(peer.scenario));
    if (peer.status === 'ok' && ours?.status === 'ok') {
      target.checks.push(check(`${peer.scenario} / taskdag ${ours.scenario}`, Number((peer.median_ms / ours.median_ms).toFixed(2)), limit, 'at least'));
    } else {
      target.not_measured.push(`${peer.scenario} against taskdag ${counterpartOf(peer.scenario)} (${ours?.note ?? ours?.error?.code ?? peer.error?.message ?? 'failed'})`);
    }
  }
  return target;
}

const COUNTERPARTS = { 'task +READY count': 'status', 'task add': 'add-task' };
const counterpartOf = (peer) => COUNTERPARTS[peer];

/** What a linked checkout adds to a command, against the same command locally (issue 28 item 4). */
function linkedTarget(report) {
  const limit = 10;
  const phase = report.phases.find((p) => p.linked);
  const target = { text: 'a linked checkout\'s show, status and take at most 10 ms more than the same locally (1k project, server on 127.0.0.1)', limit, direction: 'at most', checks: [], not_measured: [] };
  for (const cost of phase?.linked ?? []) {
    if (cost.added_ms === null) target.not_measured.push(`${cost.command} (failed)`);
    else target.checks.push(check(`${cost.command} +ms`, cost.added_ms, limit, 'at most'));
  }
  if (!phase) target.not_measured.push('linked phase (not run)');
  return target;
}

/** Every target of issue 5 (and issue 28's start-up and linked ones) with its checks; `met` is null when nothing could be measured. */
export function evaluateTargets(report) {
  const targets = [
    ratioTarget(report, { text: '--version and --help at most 1.15× node -e 0', limit: 1.15, phase: 'startup', fixture: 'no project', groups: ['startup'] }),
    ratioTarget(report, { text: 'show on a 100-node project at most 1.3× node -e 0', limit: 1.3, phase: 'startup', fixture: '100', groups: ['read'] }),
    ratioTarget(report, { text: 'any read or mutation on a 1k-node project at most 1.3×', limit: 1.3, phase: '1k', fixture: '1k', groups: ['read', 'mutation'] }),
    ratioTarget(report, { text: 'any read or mutation on a 10k-node project with a 100k-entry log at most 1.5×', limit: 1.5, phase: '10k', fixture: '10k', groups: ['read', 'mutation'] }),
    ratioTarget(report, { text: 'any read or mutation on a 50k-node project with a 200k-entry log at most 1.6×', limit: 1.6, phase: '50k', fixture: '50k', groups: ['read', 'mutation'] }),
    historyTarget(report),
    batchTarget(report),
    peerTarget(report),
    linkedTarget(report),
  ];
  return targets.map((target) => ({
    ...target,
    met: target.checks.length === 0 ? null : target.checks.every((c) => c.met) && target.not_measured.length === 0 ? true : target.checks.some((c) => !c.met) ? false : 'partly measured',
  }));
}

const ms = (value) => (value === null || value === undefined ? '–' : value.toFixed(1));
const mib = (kb) => (kb ? (kb / 1024).toFixed(0) : '–');
const verdict = (met) => (met === true ? 'met' : met === false ? 'NOT met' : met === null ? 'not measured' : met);

function rows(phase) {
  return phase.items.map((item) => ({
    command: item.scenario,
    fixture: item.fixture,
    median: item.status === 'ok' ? ms(item.median_ms) : '–',
    ratio: item.status === 'ok' ? `${item.ratio.toFixed(2)}×` : '–',
    cpu: item.status === 'ok' && item.cpu_ratio !== null ? `${ms(item.cpu_median_ms)} (${item.cpu_ratio.toFixed(2)}×)` : '–',
    spread: item.status === 'ok' ? `${ms(item.p25_ms)}–${ms(item.p75_ms)}` : '–',
    rss: item.status === 'ok' ? mib(item.rss_kb) : '–',
    note: item.status === 'ok' ? (item.reference ? 'reference (returns the whole log)' : '') : item.note ?? `failed: ${item.error?.code ?? `exit ${item.error?.exit}`} ${item.error?.message ?? ''}`.trim(),
  }));
}

export function printTable(report) {
  for (const phase of report.phases) {
    console.log(`\n${phase.name}: node -e 0 = ${ms(phase.baseline.median_ms)} ms (cpu ${ms(phase.baseline.cpu_median_ms)} ms), ${mib(phase.baseline.rss_kb)} MiB`);
    const table = rows(phase);
    const keys = ['command', 'fixture', 'median', 'ratio', 'spread', 'cpu', 'rss'];
    const widths = keys.map((key) => Math.max(key.length, ...table.map((row) => row[key].length)));
    const line = (row) => keys.map((key, i) => row[key].padEnd(widths[i])).join('  ') + (row.note ? `  ${row.note}` : '');
    console.log(line({ command: 'command', fixture: 'fixture', median: 'ms', ratio: '×floor', spread: 'p25–p75', cpu: 'cpu ms (×floor)', rss: 'MiB' }));
    for (const row of table) console.log(line(row));
  }
  console.log('\nTargets:');
  for (const target of report.targets) {
    const worst = target.checks.length > 0 ? ` (${target.checks.map((c) => `${c.label} ${c.value}`).join(', ')})` : '';
    const missing = target.not_measured.length > 0 ? `; not measured: ${target.not_measured.join(', ')}` : '';
    console.log(`  [${verdict(target.met)}] ${target.text}${worst}${missing}`);
  }
}

export function markdownReport(report) {
  const m = report.machine;
  const out = [
    '# Bench results',
    '',
    `${m.date}, commit ${m.commit}${m.uncommitted_changes ? ' (with uncommitted changes)' : ''}; ${report.config.runs} timed runs per command (a first, discarded run probes availability and peak memory); ${report.duration_s} s in all.`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gib} GiB, ${m.os}, Node ${m.node}. Load average before/after: ${m.load_before.join(' ')} / ${m.load_after?.join(' ')}. Peak memory: ${m.memory_method}. CPU time: user + system time each Node process reports at exit (probe.cjs).`,
    ...(Math.max(m.load_before[0], m.load_after?.[0] ?? 0) > m.cores
      ? ['', `Other work competed for the ${m.cores} cores during this run (load average above ${m.cores}): absolute times are inflated and noisy; the ratios, measured in the same loop as the floor, are what to compare.`]
      : []),
    '',
    '## Targets',
    '',
    '| target | measured | verdict |',
    '| --- | --- | --- |',
    ...report.targets.map((target) => {
      const measured = [...target.checks.map((c) => `${c.label} ${c.value}${c.met ? '' : ' ✗'}`), ...target.not_measured.map((text) => `${text}: not measured`)].join('; ');
      return `| ${target.text} | ${measured || '–'} | ${verdict(target.met)} |`;
    }),
  ];
  for (const phase of report.phases) {
    out.push('', `## ${phase.name}`, '');
    for (const fixture of phase.fixtures ?? []) {
      const edges = fixture.edges ? Object.entries(fixture.edges).map(([type, count]) => `${count} ${type}`).join(', ') : '';
      out.push(`- fixture ${fixture.name}: ${fixture.nodes} nodes${edges ? `, ${edges}` : ''}, ${fixture.log} log entries${fixture.generate_ms ? `, generated in ${fixture.generate_ms} ms` : ''}`);
    }
    out.push(`- node -e 0: median ${ms(phase.baseline.median_ms)} ms (p25–p75 ${ms(phase.baseline.p25_ms)}–${ms(phase.baseline.p75_ms)}), CPU ${ms(phase.baseline.cpu_median_ms)} ms, peak ${mib(phase.baseline.rss_kb)} MiB`, '');
    out.push('| command | fixture | median ms | × node -e 0 | p25–p75 ms | CPU ms (× floor) | peak RSS MiB | note |', '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
    for (const row of rows(phase)) out.push(`| ${row.command} | ${row.fixture} | ${row.median} | ${row.ratio} | ${row.spread} | ${row.cpu} | ${row.rss} | ${row.note} |`);
  }
  if (report.taskwarrior) {
    const tw = report.taskwarrior;
    out.push('', '## Taskwarrior', '', tw.available
      ? `Taskwarrior ${tw.version}${tw.installed_by_bench ? ' (installed by this run)' : ''}; \`task import\` of the 5k tasks took ${ms(tw.import_ms)} ms; ${tw.ready_count} tasks ready after import.`
      : `Not measured: ${tw.reason}`);
  }
  return out.join('\n') + '\n';
}
