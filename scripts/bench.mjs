// Benchmarks (not tests): `npm run bench` or `node scripts/bench.mjs [section...] [--quick]`.
// Each section (scripts/bench/<name>.mjs) measures one face and returns { rows, data }; the driver
// prints every metric next to its target and writes .bench/<section>.json. Add a section by
// appending to SECTIONS (Croqtile front end, simulator, ... arrive later).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCroqtile } from './bench/croqtile.mjs';
import { benchDap } from './bench/dap.mjs';
import { benchLsp } from './bench/lsp.mjs';
import { benchTyping } from './bench/lsp-typing.mjs';
import { benchSim } from './bench/sim.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = path.join(root, '.bench');
const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');


const SECTIONS = [
  { name: 'lsp', title: 'Language server (dist/server.js --stdio, debounce 0)', run: () => benchLsp({ quick: QUICK }) },
  { name: 'typing', title: 'Requests while typing (hover, code action, symbols, code lens on a 2k-line file)', run: () => benchTyping({ quick: QUICK }) },
  { name: 'croqtile', title: 'Croqtile (.co) through the language server (debounce 0)', run: () => benchCroqtile({ quick: QUICK }) },
  { name: 'sim', title: 'Simulator (in-process simulate(), one child process per case)', run: () => benchSim({ quick: QUICK }) },
  { name: 'dap', title: 'Debug adapter (phaseflip dap over stdio, DebugClient; seed p/c, 128 threads)', run: () => benchDap({ quick: QUICK }) },
];

function environment() {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  return { date: new Date().toISOString(), commit, node: process.version, platform: `${os.platform()} ${os.arch()}`, cpu: os.cpus()[0]?.model ?? 'unknown', cpus: os.cpus().length };
}

function printTable(title, rows) {
  const w0 = Math.max(6, ...rows.map((r) => r.metric.length));
  const w1 = Math.max(5, ...rows.map((r) => r.value.length));
  const w2 = Math.max(6, ...rows.map((r) => (r.target ?? '').length));
  console.log(`\n${title}`);
  console.log(`${'metric'.padEnd(w0)}  ${'value'.padStart(w1)}  ${'target'.padEnd(w2)}  status`);
  console.log(`${'-'.repeat(w0)}  ${'-'.repeat(w1)}  ${'-'.repeat(w2)}  ------`);
  for (const r of rows) {
    const status = r.ok === undefined ? '' : r.ok ? 'ok' : 'MISSED';
    console.log(`${r.metric.padEnd(w0)}  ${r.value.padStart(w1)}  ${(r.target ?? '').padEnd(w2)}  ${status}`.trimEnd());
  }
}

async function main() {
  const wanted = argv.filter((a) => !a.startsWith('--'));
  const unknown = wanted.filter((w) => !SECTIONS.some((s) => s.name === w));
  if (unknown.length > 0) {
    console.error(`bench: unknown section(s) ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
  const env = environment();
  console.log(`phaseflip bench @ ${env.commit}, node ${env.node}, ${env.cpu} x${env.cpus}`);
  mkdirSync(OUT_DIR, { recursive: true });
  for (const section of SECTIONS.filter((s) => wanted.length === 0 || wanted.includes(s.name))) {
    const { rows, data } = await section.run();
    printTable(section.title, rows);
    const file = path.join(OUT_DIR, `${section.name}.json`);
    writeFileSync(file, `${JSON.stringify({ section: section.name, environment: env, rows, ...data }, null, 2)}\n`);
    console.log(`wrote ${path.relative(root, file)}`);
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
