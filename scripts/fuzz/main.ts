// The fuzz harness's command line (`npm run fuzz -- [options]`, bundled and started by scripts/fuzz.mjs):
// runs the surfaces (lint, sim, lsp, dap) with a seed and budgets, saves minimised reproducers, prints
// per surface the inputs tried, failures, max time and max RSS, and exits 1 on any failure.
// `--replay` instead replays the saved reproducers. Options and presets: docs/fuzzing.md.
import * as path from 'node:path';
import { loadSeeds } from './corpus';
import { fuzzDap } from './dap-surface';
import { EnginePool } from './engine-pool';
import { fuzzLint } from './lint-surface';
import { fuzzLsp } from './lsp-surface';
import { Random } from './random';
import { replayAll } from './replay';
import { ReproducerStore } from './reproducers';
import { fuzzSim } from './sim-surface';
import { type SurfaceBudget, type SurfaceContext, type SurfaceName, type SurfaceStats, failures } from './surface';

const SURFACES: readonly SurfaceName[] = ['lint', 'sim', 'lsp', 'dap'];

interface Preset {
  budgets: Record<SurfaceName, Omit<SurfaceBudget, 'limitMs'>>;
  limitMs: number;
  maxRepeat: number;
  minimiseSeconds: number;
}

/** smoke: what CI runs on every change; medium: the default; long: the run the issue reports. */
const PRESETS: Record<string, Preset> = {
  smoke: { budgets: { lint: { count: 120, seconds: 25 }, sim: { count: 40, seconds: 15 }, lsp: { count: 150, seconds: 20 }, dap: { count: 40, seconds: 10 } }, limitMs: 10_000, maxRepeat: 8, minimiseSeconds: 20 },
  medium: { budgets: { lint: { count: 1500, seconds: 300 }, sim: { count: 150, seconds: 120 }, lsp: { count: 1000, seconds: 150 }, dap: { count: 300, seconds: 60 } }, limitMs: 5000, maxRepeat: 64, minimiseSeconds: 60 },
  long: { budgets: { lint: { count: 6000, seconds: 2400 }, sim: { count: 340, seconds: 600 }, lsp: { count: 2000, seconds: 900 }, dap: { count: 1000, seconds: 300 } }, limitMs: 10_000, maxRepeat: 512, minimiseSeconds: 120 },
};

const USAGE = `Usage: npm run fuzz -- [options]
  --preset smoke|medium|long   budgets (default medium)
  --seed N                     random seed (default 1)
  --surfaces lint,sim,lsp,dap  which surfaces (default all)
  --count N | --SURFACE-count N      inputs per surface (lsp: edits per language)
  --seconds S | --SURFACE-seconds S  wall-clock budget per surface
  --limit-ms MS                an input with no answer within MS is a hang
  --max-repeat N               largest repetition/nesting scale of the mutations
  --minimise-seconds S         time to minimise one new failure
  --out DIR                    where reproducers go (default test/fuzz-reproducers)
  --replay [FILE...]           replay saved reproducers (all, or these inputs) instead of fuzzing
  --json                       with --replay: one JSON result per line`;

function parseArgs(argv: string[]) {
  const options = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (a === '--replay' || a === '--json') options.set(a.slice(2), 'true');
    else if (a.startsWith('--')) {
      const [name, inline] = a.slice(2).split('=', 2);
      const value = inline ?? argv[++i];
      if (value === undefined) throw new Error(`--${name} needs a value`);
      options.set(name, value);
    } else positional.push(a);
  }
  return { options, positional };
}

function numberOption(options: Map<string, string>, name: string): number | undefined {
  const v = options.get(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number, got '${v}'`);
  return n;
}

function printTable(rows: SurfaceStats[]): void {
  const header = ['surface', 'tried', 'internal', 'crashes', 'hangs', 'max ms', 'max RSS MiB', 'saved'];
  const lines = rows.map((s) => [s.surface, String(s.tried), String(s.internalErrors), String(s.crashes), String(s.hangs), s.maxMs.toFixed(0), s.maxRssMiB.toFixed(0), String(s.saved.length)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(fmt(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(fmt(l));
}

async function fuzz(root: string, options: Map<string, string>): Promise<number> {
  const presetName = options.get('preset') ?? 'medium';
  const preset = PRESETS[presetName];
  if (!preset) throw new Error(`unknown preset '${presetName}': smoke, medium or long`);
  const seed = numberOption(options, 'seed') ?? 1;
  const surfaces = (options.get('surfaces') ?? SURFACES.join(',')).split(',').map((s) => s.trim()) as SurfaceName[];
  const unknown = surfaces.filter((s) => !SURFACES.includes(s));
  if (unknown.length > 0) throw new Error(`unknown surface(s) ${unknown.join(', ')}: ${SURFACES.join(', ')}`);
  const limitMs = numberOption(options, 'limit-ms') ?? preset.limitMs;
  const store = new ReproducerStore(path.resolve(root, options.get('out') ?? 'test/fuzz-reproducers'));
  const seeds = loadSeeds(root);
  const master = new Random(seed);
  const pool = new EnginePool();
  console.log(`phaseflip fuzz: seed ${seed}, preset ${presetName}, per-input limit ${limitMs} ms, ${seeds.length} seed files, reproducers in ${path.relative(root, store.dir) || store.dir}`);
  const results: SurfaceStats[] = [];
  try {
    for (const [index, surface] of SURFACES.entries()) {
      // Each surface draws from its own stream, so running a subset does not change its inputs.
      const rng = master.fork(index + 1);
      if (!surfaces.includes(surface)) continue;
      const budget: SurfaceBudget = {
        count: numberOption(options, `${surface}-count`) ?? numberOption(options, 'count') ?? preset.budgets[surface].count,
        seconds: numberOption(options, `${surface}-seconds`) ?? numberOption(options, 'seconds') ?? preset.budgets[surface].seconds,
        limitMs,
      };
      const ctx: SurfaceContext = {
        seed,
        rng,
        budget,
        limits: { maxRepeat: numberOption(options, 'max-repeat') ?? preset.maxRepeat },
        store,
        root,
        minimiseSeconds: numberOption(options, 'minimise-seconds') ?? preset.minimiseSeconds,
        log: (line) => console.log(`  ${line}`),
      };
      const started = Date.now();
      console.log(`${surface}: up to ${budget.count} ${surface === 'lsp' ? 'edits per language' : 'inputs'} or ${budget.seconds} s`);
      const stats = surface === 'lint' ? await fuzzLint(ctx, pool, seeds) : surface === 'sim' ? await fuzzSim(ctx, pool, seeds) : surface === 'lsp' ? await fuzzLsp(ctx, seeds) : await fuzzDap(ctx);
      console.log(`${surface}: ${stats.tried} tried, ${failures(stats)} failed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      results.push(stats);
    }
  } finally {
    await pool.close();
  }
  console.log('');
  printTable(results);
  const failed = results.reduce((n, s) => n + failures(s), 0);
  if (failed > 0) {
    console.log(`\n${failed} failing input(s); reproducers saved this run: ${results.flatMap((s) => s.saved).map((f) => path.relative(root, f)).join(', ') || 'none new (their signatures were saved before)'}`);
    return 1;
  }
  console.log('\nno failures');
  return 0;
}

async function replay(root: string, options: Map<string, string>, only: string[]): Promise<number> {
  const pool = new EnginePool();
  try {
    const dir = path.resolve(root, options.get('out') ?? 'test/fuzz-reproducers');
    const results = await replayAll(root, dir, pool, numberOption(options, 'limit-ms') ?? 0, only);
    for (const r of results) {
      if (options.has('json')) console.log(JSON.stringify({ file: r.file, surface: r.surface, verdict: r.outcome.verdict, ms: Math.round(r.outcome.ms), detail: r.outcome.detail.slice(0, 500) }));
      else console.log(`${r.outcome.verdict.padEnd(14)} ${r.file} (${r.outcome.ms.toFixed(0)} ms)${r.outcome.detail ? `: ${r.outcome.detail.split('\n')[0].slice(0, 160)}` : ''}`);
    }
    const failed = results.filter((r) => r.outcome.verdict !== 'ok').length;
    if (!options.has('json')) console.log(`${results.length} reproducer(s) replayed, ${failed} still failing`);
    return failed > 0 ? 1 : 0;
  } finally {
    await pool.close();
  }
}

export async function main(root: string, argv: string[]): Promise<number> {
  const { options, positional } = parseArgs(argv);
  return options.has('replay') ? replay(root, options, positional) : fuzz(root, options);
}
