// The bench's chart: median wall time of each command against graph size, on log scales, with
// bare `node -e 0` (the floor every command pays, measured in the same loop as the commands of
// each size) and the targets as multiples of it. Plain SVG text: no dependency, readable diffs.

const WIDTH = 820;
const HEIGHT = 480;
const PLOT = { left: 70, right: 640, top: 40, bottom: 420 };
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

const escape = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fixed = (value) => Number(value.toFixed(1));

/**
 * `series`: [{ name, points: [{ size, ms }] }]; `floor`: the Node floor at each size, [{ size,
 * ms }]; `guides`: multiples of the floor to draw dashed, [{ label, factor }] (the targets).
 */
export function renderChart({ title, series, floor, guides = [] }) {
  const sizes = [...new Set([...floor, ...series.flatMap((line) => line.points)].map((point) => point.size))].sort((a, b) => a - b);
  const scaled = (factor) => floor.map((point) => ({ size: point.size, ms: point.ms * factor }));
  const times = [...guides.flatMap((guide) => scaled(guide.factor)), ...floor, ...series.flatMap((line) => line.points)].map((point) => point.ms);
  const yLow = Math.log10(Math.min(...times) * 0.8);
  const yHigh = Math.log10(Math.max(...times) * 1.25);
  const xLow = Math.log10(sizes[0] ?? 1000) - 0.15;
  const xHigh = Math.log10(sizes[sizes.length - 1] ?? 1000) + 0.15;
  const x = (size) => fixed(PLOT.left + ((Math.log10(size) - xLow) / (xHigh - xLow)) * (PLOT.right - PLOT.left));
  const y = (ms) => fixed(PLOT.bottom - ((Math.log10(ms) - yLow) / (yHigh - yLow)) * (PLOT.bottom - PLOT.top));

  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${PLOT.left}" y="22" font-size="15" font-weight="bold">${escape(title)}</text>`,
  ];
  for (const ms of yTicks(10 ** yLow, 10 ** yHigh)) {
    out.push(`<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${y(ms)}" y2="${y(ms)}" stroke="#eee"/>`);
    out.push(`<text x="${PLOT.left - 6}" y="${y(ms) + 4}" text-anchor="end" fill="#555">${ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`}</text>`);
  }
  for (const size of sizes) {
    out.push(`<line x1="${x(size)}" x2="${x(size)}" y1="${PLOT.top}" y2="${PLOT.bottom}" stroke="#eee"/>`);
    out.push(`<text x="${x(size)}" y="${PLOT.bottom + 18}" text-anchor="middle" fill="#555">${size >= 1000 ? `${size / 1000}k` : size} nodes</text>`);
  }
  out.push(`<rect x="${PLOT.left}" y="${PLOT.top}" width="${PLOT.right - PLOT.left}" height="${PLOT.bottom - PLOT.top}" fill="none" stroke="#999"/>`);
  out.push(`<text x="${(PLOT.left + PLOT.right) / 2}" y="${HEIGHT - 30}" text-anchor="middle" fill="#333">graph size (log scale)</text>`);
  out.push(`<text transform="translate(16 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)" text-anchor="middle" fill="#333">median wall time per command (log scale)</text>`);

  // The floor and its multiples run across the plot, through the value measured at each size.
  const across = (points) => {
    const sorted = [...points].sort((a, b) => a.size - b.size);
    const ends = [{ x: PLOT.left, y: y(sorted[0].ms) }, ...sorted.map((p) => ({ x: x(p.size), y: y(p.ms) })), { x: PLOT.right, y: y(sorted[sorted.length - 1].ms) }];
    return ends.map((p) => `${p.x},${p.y}`).join(' ');
  };
  guides.forEach((guide, i) => {
    const points = scaled(guide.factor);
    out.push(`<polyline fill="none" points="${across(points)}" stroke="#888" stroke-dasharray="5 4"/>`);
    // Labels alternate below and above their line so that close guides stay readable.
    const offset = i % 2 === 0 ? 14 : -5;
    out.push(`<text x="${PLOT.right - 4}" y="${y(points[points.length - 1].ms) + offset}" text-anchor="end" fill="#666">${escape(guide.label)}</text>`);
  });
  out.push(`<polyline fill="none" points="${across(floor)}" stroke="#000" stroke-width="2"/>`);
  const floorText = floor.map((point) => point.ms.toFixed(0)).join(' / ');
  out.push(`<text x="${PLOT.left + 6}" y="${y(floor[0].ms) + 15}" fill="#000">node -e 0, the floor: ${floorText} ms</text>`);

  series.forEach((line, i) => {
    const color = COLORS[i % COLORS.length];
    const points = [...line.points].sort((a, b) => a.size - b.size);
    if (points.length > 1) {
      out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.map((point) => `${x(point.size)},${y(point.ms)}`).join(' ')}"/>`);
    }
    for (const point of points) out.push(`<circle cx="${x(point.size)}" cy="${y(point.ms)}" r="3.5" fill="${color}"/>`);
    const legendY = PLOT.top + 10 + i * 20;
    out.push(`<line x1="${PLOT.right + 20}" x2="${PLOT.right + 44}" y1="${legendY}" y2="${legendY}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${PLOT.right + 50}" y="${legendY + 4}">${escape(line.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** 1-2-5 steps between `low` and `high`. */
function yTicks(low, high) {
  const ticks = [];
  for (let decade = 10 ** Math.floor(Math.log10(low)); decade <= high; decade *= 10) {
    for (const step of [1, 2, 5]) {
      const value = Number((decade * step).toPrecision(3));
      if (value >= low && value <= high) ticks.push(value);
    }
  }
  return ticks;
}

/** Each read and mutation at the sizes it ran on (its main project, not the short-log twin). */
export function chartOfReport(report) {
  const sized = report.phases.filter((phase) => phase.size);
  const series = new Map();
  for (const phase of sized) {
    for (const item of phase.items) {
      if (item.fixture !== phase.name || item.median_ms === null) continue;
      const name = item.reference ? `${item.scenario} (reference)` : item.scenario;
      if (!series.has(name)) series.set(name, []);
      series.get(name).push({ size: phase.size, ms: item.median_ms });
    }
  }
  return {
    title: `taskdag: median time per command against graph size (${report.machine.cpu}, ${report.machine.cores} cores)`,
    series: [...series].map(([name, points]) => ({ name, points })),
    floor: sized.map((phase) => ({ size: phase.size, ms: phase.baseline.median_ms })),
    guides: [
      { label: 'target at 1k: 1.3× floor', factor: 1.3 },
      { label: 'target at 10k: 1.6× floor', factor: 1.6 },
    ],
  };
}
