// Bench section "typing": latency of hover, code action, document symbol and code lens requests on a
// ~2,000-line .cu file while single-character edits keep arriving (continuous typing), as median / p95.
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { generateCuda } from './gen-cuda.mjs';
import { generateCroqtile } from './gen-croqtile.mjs';
import { Client, SERVER, sleep } from './lsp-client.mjs';

const KINDS = ['textDocument/hover', 'textDocument/codeAction', 'textDocument/documentSymbol', 'textDocument/codeLens'];

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/** Where the typing happens (inside a kernel, so each keystroke changes what is analysed) and what is hovered. */
function sitesOf(text, language) {
  const lines = text.split('\n');
  const mid = Math.floor(lines.length / 2);
  const find = (needle) => {
    for (let k = 0; k < lines.length; k++) {
      const i = (mid + k) % lines.length;
      const c = lines[i].indexOf(needle);
      if (c >= 0) return { line: i, character: c };
    }
    return { line: 0, character: 0 };
  };
  return language === 'cuda'
    ? { typing: find('acc += tiles'), hover: find('mbarrier_try_wait_parity') }
    : { typing: find('mma.row.row'), hover: find('mma.row.row') };
}

function requestParams(kind, uri, hover) {
  const textDocument = { uri };
  if (kind === 'textDocument/hover') return { textDocument, position: { line: hover.line, character: hover.character + 2 } };
  if (kind === 'textDocument/codeAction') return { textDocument, range: { start: { line: hover.line, character: 0 }, end: { line: hover.line + 1, character: 0 } }, context: { diagnostics: [] } };
  return { textDocument };
}

/**
 * Types `keystrokes` characters (a space inserted, then removed, alternately) every `intervalMs` and sends one
 * request right after each keystroke, cycling through KINDS, without waiting for diagnostics. A request's
 * latency is from sending it to its answer. `debounceMs` is the server's lint debounce.
 */
async function typing({ language, lines, keystrokes, intervalMs, debounceMs }) {
  const text = language === 'cuda' ? generateCuda(lines) : generateCroqtile(lines);
  const uri = `file:///bench/typing-${lines}.${language === 'cuda' ? 'cu' : 'co'}`;
  const client = Client.start();
  try {
    await client.initialize(null, { debounceMs });
    await client.open(uri, text);
    const { typing: site, hover } = sitesOf(text, language);
    const samples = Object.fromEntries(KINDS.map((k) => [k, []]));
    const pending = [];
    let version = 1;
    const started = performance.now();
    for (let k = 0; k < keystrokes; k++) {
      const change =
        k % 2 === 0
          ? { range: { start: site, end: site }, text: ' ' }
          : { range: { start: site, end: { line: site.line, character: site.character + 1 } }, text: '' };
      void client.notify('textDocument/didChange', { textDocument: { uri, version: ++version }, contentChanges: [change] });
      const kind = KINDS[k % KINDS.length];
      const sent = performance.now();
      pending.push(client.request(kind, requestParams(kind, uri, hover)).then(() => samples[kind].push(performance.now() - sent)));
      // Keystrokes keep a steady rhythm: the next one is due `intervalMs` after the previous one was sent.
      const due = started + (k + 1) * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
    }
    await Promise.all(pending);
    const all = Object.values(samples).flat().sort((a, b) => a - b);
    const byKind = Object.fromEntries(
      KINDS.map((kind) => {
        const s = samples[kind].sort((a, b) => a - b);
        return [kind.replace('textDocument/', ''), { p50: percentile(s, 50), p95: percentile(s, 95), max: s[s.length - 1], samplesMs: s.map((x) => +x.toFixed(2)) }];
      }),
    );
    return { language, lines: text.split('\n').length, keystrokes, intervalMs, debounceMs, p50: percentile(all, 50), p95: percentile(all, 95), max: all[all.length - 1], byKind };
  } finally {
    await client.stop();
  }
}

export async function benchTyping({ quick = false } = {}) {
  if (!existsSync(SERVER)) throw new Error('dist/server.js is missing: run `npm run build` first');
  const keystrokes = quick ? 40 : 200;
  const runs = [
    // The editor's default debounce (150 ms): analyses run when typing pauses longer than that.
    await typing({ language: 'cuda', lines: 2_000, keystrokes, intervalMs: 40, debounceMs: 150 }),
    // Debounce 0: an analysis is started after every keystroke, the worst case for requests.
    await typing({ language: 'cuda', lines: 2_000, keystrokes, intervalMs: 40, debounceMs: 0 }),
    await typing({ language: 'croqtile', lines: 2_000, keystrokes, intervalMs: 40, debounceMs: 0 }),
  ];
  const ms = (v) => `${v.toFixed(1)} ms`;
  const rows = [];
  for (const r of runs) {
    const label = `${r.language === 'cuda' ? '.cu' : '.co'} ${r.lines} lines, debounce ${r.debounceMs}`;
    rows.push({ metric: `requests while typing p50, ${label} (${r.keystrokes} keys, 1 per ${r.intervalMs} ms)`, value: ms(r.p50) });
    rows.push({ metric: `requests while typing p95, ${label}`, value: ms(r.p95), target: '≤ 50 ms', ok: r.p95 <= 50 });
    for (const [kind, s] of Object.entries(r.byKind)) rows.push({ metric: `  ${kind} p50 / p95 / max`, value: `${s.p50.toFixed(1)} / ${s.p95.toFixed(1)} / ${s.max.toFixed(1)} ms` });
  }
  return { rows, data: { runs } };
}
