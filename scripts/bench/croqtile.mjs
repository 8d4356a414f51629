// Bench section "croqtile": edit → publishDiagnostics latency for .co files of about 200 / 2k / 20k
// lines through the language server (same targets as CUDA), plus the engine alone.
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { generateCroqtile } from './gen-croqtile.mjs';
import { Client, SERVER } from './lsp-client.mjs';

function percentile(sorted, p) {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

function editSite(text) {
  const lines = text.split('\n');
  const mid = Math.floor(lines.length / 2);
  for (let k = 0; k < lines.length; k++) {
    const i = (mid + k) % lines.length;
    const c = lines[i].indexOf('mma.row.row');
    if (c >= 0) return { line: i, character: c };
  }
  return { line: 0, character: 0 };
}

/** Alternately insert and delete a space before `mma.row.row`: the file stays valid. */
function editAt(k, site) {
  return k % 2 === 0
    ? { range: { start: site, end: site }, text: ' ' }
    : { range: { start: site, end: { line: site.line, character: site.character + 1 } }, text: '' };
}

async function lspLatency(client, lines, edits) {
  const uri = `file:///bench/croqtile-${lines}.co`;
  const text = generateCroqtile(lines);
  const t0 = performance.now();
  const opened = await client.open(uri, text);
  const site = editSite(text);
  const samples = [];
  let version = 1;
  let cpuStart = 0;
  for (let k = 0; k < 3 + edits; k++) {
    if (k === 3) cpuStart = client.cpuMs();
    version++;
    const sent = performance.now();
    const got = await client.change(uri, version, [editAt(k, site)]);
    if (k >= 3) samples.push(got - sent);
  }
  const cpuPerEditMs = (client.cpuMs() - cpuStart) / samples.length;
  samples.sort((a, b) => a - b);
  return { lines: text.split('\n').length, openMs: opened - t0, cpuPerEditMs, p50: percentile(samples, 50), p95: percentile(samples, 95), samples };
}

export async function benchCroqtile({ quick = false } = {}) {
  if (!existsSync(SERVER)) throw new Error('dist/server.js is missing: run `npm run build` first');
  const sizes = [200, 2_000, 20_000];
  const edits = quick ? 10 : 40;
  const client = Client.start();
  const latency = [];
  try {
    await client.initialize();
    for (const lines of sizes) latency.push(await lspLatency(client, lines, lines >= 10_000 ? Math.min(edits, 20) : edits));
  } finally {
    await client.stop();
  }
  const rows = [];
  for (const l of latency) {
    const target = l.lines >= 10_000 ? 100 : l.lines >= 1_000 ? 10 : undefined;
    rows.push({ metric: `open → diagnostics, ${l.lines} lines (.co)`, value: `${l.openMs.toFixed(1)} ms` });
    rows.push({ metric: `edit → diagnostics p50, ${l.lines} lines (${l.samples.length} edits)`, value: `${l.p50.toFixed(1)} ms` });
    rows.push({ metric: `edit → diagnostics p95, ${l.lines} lines`, value: `${l.p95.toFixed(1)} ms`, target: target === undefined ? undefined : `≤ ${target} ms`, ok: target === undefined ? undefined : l.p95 <= target });
    rows.push({ metric: `  server CPU per edit (mean)`, value: `${l.cpuPerEditMs.toFixed(1)} ms` });
  }
  return { rows, data: { latency: latency.map(({ samples, ...r }) => ({ ...r, samplesMs: samples.map((x) => +x.toFixed(3)) })) } };
}

