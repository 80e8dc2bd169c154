#!/usr/bin/env node
// Summarises a V8 .cpuprofile (node --cpu-prof) as text — self time per function (bottom
// up) and an inclusive top-down tree — and optionally as a small flame graph SVG. Idle time
// is left out: percentages are of the CPU the process actually spent.
// Usage: node bench/lib/cpuprofile-summary.mjs <file.cpuprofile> [--svg out.svg] [--svg-min 0.3] [--min 1.5] [--depth 14]
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const file = process.argv[2];
if (!file) {
  console.error('usage: cpuprofile-summary.mjs <file.cpuprofile> [--svg out.svg] [--min 1.5] [--depth 14]');
  process.exit(2);
}
const opt = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1];
};
const minPct = Number(opt('min', 1.5));
const maxDepth = Number(opt('depth', 14));
const svgOut = opt('svg', null);
const svgMin = Number(opt('svg-min', 0.3)) / 100; // frames narrower than this share are left out

const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const interval = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length); // µs

/** Short label: function, then file (path shortened to the package) and line. */
function label(node) {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName || '(anonymous)';
  if (!url) return name;
  let where = url.replace(/^file:\/\//, '');
  const nm = where.lastIndexOf('node_modules/');
  if (nm !== -1) where = where.slice(nm + 'node_modules/'.length).replace(/^\.pnpm\/[^/]+\/node_modules\//, '');
  else if (where.startsWith('node:')) where = where.slice(5);
  else where = path.relative(process.cwd(), where);
  return `${name} ${where}:${lineNumber + 1}`;
}

// Inclusive sample counts, idle excluded.
const isIdle = (n) => n.callFrame.functionName === '(idle)';
const total = new Map();
function inclusive(node) {
  let sum = isIdle(node) ? 0 : node.hitCount;
  for (const c of node.children ?? []) sum += inclusive(byId.get(c));
  total.set(node.id, sum);
  return sum;
}
const root = profile.nodes[0];
const busy = inclusive(root);
const pct = (x) => ((100 * x) / busy).toFixed(1).padStart(5);

const lines = [];
lines.push(`profile: ${path.basename(file)}; ${busy} busy samples of ~${interval.toFixed(0)} µs (${((busy * interval) / 1e6).toFixed(2)} s CPU), idle left out`);

// Bottom-up: self time per function.
const self = new Map();
for (const n of profile.nodes) {
  if (isIdle(n) || n.hitCount === 0) continue;
  const k = label(n);
  self.set(k, (self.get(k) ?? 0) + n.hitCount);
}
lines.push('', 'self time (top 30):');
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) lines.push(`${pct(v)} %  ${k}`);

// Top-down: inclusive %, children above the threshold, single-child chains kept short.
lines.push('', `top-down (inclusive %, nodes ≥ ${minPct} %, depth ≤ ${maxDepth}):`);
function walk(node, depth) {
  const t = total.get(node.id);
  if ((100 * t) / busy < minPct || depth > maxDepth) return;
  if (node !== root) lines.push(`${pct(t)} %  ${'  '.repeat(depth - 1)}${label(node)}`);
  const kids = (node.children ?? []).map((c) => byId.get(c)).sort((a, b) => total.get(b.id) - total.get(a.id));
  for (const k of kids) walk(k, depth + 1);
}
walk(root, 0);
console.log(lines.join('\n'));

if (svgOut) {
  // A flame graph: one row per stack depth, width = inclusive time; nodes under 0.3 % of
  // the width (--svg-min) are left out to keep the file small. Hover shows the label and the share.
  const W = 1200;
  const H = 16;
  const rects = [];
  let maxD = 0;
  function place(node, x, depth) {
    const t = total.get(node.id);
    const w = (W * t) / busy;
    if (w < W * svgMin) return;
    maxD = Math.max(maxD, depth);
    if (node !== root) rects.push({ x, depth, w, name: label(node), share: (100 * t) / busy });
    let cx = x;
    const kids = (node.children ?? []).map((c) => byId.get(c)).sort((a, b) => label(a).localeCompare(label(b)));
    for (const k of kids) {
      place(k, cx, depth + 1);
      cx += (W * total.get(k.id)) / busy;
    }
  }
  place(root, 0, 0);
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const height = (maxD + 1) * H + 24;
  const color = (name) => {
    let h = 0;
    for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    return `hsl(${(h % 50) + 5},${70 + (h % 20)}%,${55 + (h % 15)}%)`;
  };
  const body = rects
    .map((r) => {
      const y = height - (r.depth + 1) * H;
      const text = r.w > 40 ? `<text x="${(r.x + 3).toFixed(1)}" y="${y + 11}">${esc(r.name.slice(0, Math.floor(r.w / 6.5)))}</text>` : '';
      return `<g><title>${esc(r.name)} (${r.share.toFixed(1)} %)</title><rect x="${r.x.toFixed(1)}" y="${y}" width="${r.w.toFixed(1)}" height="${H - 1}" fill="${color(r.name)}"/>${text}</g>`;
    })
    .join('\n');
  writeFileSync(
    svgOut,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" font-family="monospace" font-size="10">\n` +
      `<text x="4" y="14" font-size="12">${esc(path.basename(file))}: ${((busy * interval) / 1e6).toFixed(2)} s CPU, idle left out (hover a frame for its share)</text>\n${body}\n</svg>\n`,
  );
  console.error(`flame graph: ${svgOut} (${rects.length} frames)`);
}
