// A hand-written SVG line chart: Ready objects over time for each strategy (step lines),
// the floor's ideal ramp (dashed) and the floor time (vertical). No dependency: the chart is
// a few dozen elements, and plain SVG renders on GitHub and in any browser.
import { floorReadyAt, floorSeconds, type FloorInput } from './floor.js';

export interface ChartSeries {
  label: string;
  color: string;
  /** Seconds at which each object became Ready, ascending. */
  readySeconds: number[];
}

export interface ChartInput {
  title: string;
  floor: FloorInput;
  series: ChartSeries[];
}

const WIDTH = 900;
const HEIGHT = 480;
const MARGIN = { left: 70, right: 30, top: 50, bottom: 60 };

function niceStep(range: number, ticks: number): number {
  const raw = range / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw);
  return step ?? 10 * magnitude;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function renderConvergeChart(input: ChartInput): string {
  const n = input.floor.n;
  const floorAt = floorSeconds(input.floor);
  const lastReady = Math.max(
    floorAt,
    ...input.series.map((s) => s.readySeconds[s.readySeconds.length - 1] ?? 0),
  );
  const xStep = niceStep(lastReady, 10);
  const xMax = Math.ceil((lastReady * 1.02) / xStep) * xStep;
  const yStep = niceStep(n, 5);
  const yMax = Math.ceil(n / yStep) * yStep;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (seconds: number): number => MARGIN.left + (seconds / xMax) * plotW;
  const y = (count: number): number => MARGIN.top + plotH - (count / yMax) * plotH;
  const fmt = (value: number): string => value.toFixed(1);

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15">${escapeXml(input.title)}</text>`,
  );
  for (let t = 0; t <= xMax + 1e-9; t += xStep) {
    parts.push(
      `<line x1="${fmt(x(t))}" y1="${MARGIN.top}" x2="${fmt(x(t))}" y2="${MARGIN.top + plotH}" stroke="#eee"/>`,
      `<text x="${fmt(x(t))}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${Number(t.toFixed(2))}</text>`,
    );
  }
  for (let c = 0; c <= yMax; c += yStep) {
    parts.push(
      `<line x1="${MARGIN.left}" y1="${fmt(y(c))}" x2="${MARGIN.left + plotW}" y2="${fmt(y(c))}" stroke="#eee"/>`,
      `<text x="${MARGIN.left - 8}" y="${fmt(y(c) + 4)}" text-anchor="end">${c}</text>`,
    );
  }
  parts.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 18}" text-anchor="middle">seconds since the objects were created</text>`,
    `<text x="18" y="${MARGIN.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 18 ${MARGIN.top + plotH / 2})">AgentDeployments Ready</text>`,
  );

  // The floor: the ideal ramp, then the vertical at floorSeconds.
  const ramp: string[] = [];
  const samples = 200;
  for (let i = 0; i <= samples; i += 1) {
    const t = (floorAt * i) / samples;
    ramp.push(`${fmt(x(t))},${fmt(y(floorReadyAt(input.floor, t)))}`);
  }
  ramp.push(`${fmt(x(xMax))},${fmt(y(n))}`);
  parts.push(
    `<polyline points="${ramp.join(' ')}" fill="none" stroke="#444" stroke-width="1.5" stroke-dasharray="6 4"/>`,
    `<line x1="${fmt(x(floorAt))}" y1="${MARGIN.top}" x2="${fmt(x(floorAt))}" y2="${MARGIN.top + plotH}" stroke="#444" stroke-dasharray="2 3"/>`,
  );

  for (const series of input.series) {
    const points = [`${fmt(x(0))},${fmt(y(0))}`];
    series.readySeconds.forEach((seconds, index) => {
      points.push(`${fmt(x(seconds))},${fmt(y(index))}`, `${fmt(x(seconds))},${fmt(y(index + 1))}`);
    });
    parts.push(
      `<polyline points="${points.join(' ')}" fill="none" stroke="${series.color}" stroke-width="2"/>`,
    );
  }

  // Legend.
  const legend = [
    ...input.series.map((s) => ({
      label: `${s.label}: all Ready at ${(s.readySeconds[s.readySeconds.length - 1] ?? 0).toFixed(1)} s`,
      color: s.color,
      dash: '',
    })),
    {
      label: `floor: ${floorAt.toFixed(2)} s (strictly needed calls / allowed rate + build time)`,
      color: '#444',
      dash: '6 4',
    },
  ];
  legend.forEach((entry, index) => {
    // Bottom right: by then every curve has reached the top.
    const ly = MARGIN.top + plotH - 12 - (legend.length - 1 - index) * 18;
    const lx = MARGIN.left + plotW - 420;
    parts.push(
      `<line x1="${lx}" y1="${ly - 4}" x2="${lx + 24}" y2="${ly - 4}" stroke="${entry.color}" stroke-width="2"${entry.dash ? ` stroke-dasharray="${entry.dash}"` : ''}/>`,
      `<text x="${lx + 30}" y="${ly}">${escapeXml(entry.label)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
