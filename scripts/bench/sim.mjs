// Bench section "sim": simulated thread-statements per second and wall time for (a) the CUDA guide's
// producer/consumer seed with 128 threads and 1,024 iterations and (b) a Croqtile 1P1C GEMM
// 128×128×512 with real f16 data; (c) the memory of a 1,024-block grid; and (d) the same Croqtile
// programs on the Croqtile project's co-mock interpreter when PHASEFLIP_COMOCK points at a build of it
// (docs/benchmarks.md says how to build one; the build stays out of this repo). Every case runs in a
// fresh child process so its peak RSS is its own.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { SEED_PC, median, seedArgs } from './seed.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = path.join(root, '.bench');
const bundle = path.join(outDir, 'sim-bench.cjs');
const require = createRequire(path.join(root, 'package.json'));

async function buildBundle() {
  mkdirSync(outDir, { recursive: true });
  const webTreeSitterCjs = path.join(path.dirname(require.resolve('web-tree-sitter/tree-sitter.wasm')), 'tree-sitter.cjs');
  await esbuild.build({
    stdin: { contents: "export { simulate } from './core/index'; export { parseArg } from './core/sim/args';", resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: bundle,
    logLevel: 'warning',
    plugins: [{ name: 'wts', setup: (b) => b.onResolve({ filter: /^web-tree-sitter$/ }, () => ({ path: webTreeSitterCjs })) }],
  });
}

// The child: runs one simulate() request and prints wall time, steps, status and peak RSS.
const CHILD = `
const { simulate, parseArg } = require(${JSON.stringify(bundle)});
const fs = require('node:fs');
const job = JSON.parse(process.argv[1]);
(async () => {
  const text = fs.readFileSync(job.file, 'utf8');
  const args = (job.args || []).map((a) => parseArg(a));
  // Warm-up on the same file (JIT, grammar load), then the measured run.
  if (job.warmup) await simulate({ ...job.warmup, file: job.file, text, args: (job.warmup.args || []).map((a) => parseArg(a)) });
  const t0 = process.hrtime.bigint();
  const r = await simulate({ file: job.file, text, kernel: job.kernel, grid: job.grid, block: job.block, dynamicSmem: job.dynamicSmem, args, maxSteps: job.maxSteps, detectRaces: job.detectRaces });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  process.stdout.write(JSON.stringify({ ms, steps: r.steps, status: r.status, message: r.message.split('\\n')[0], flips: r.phaseFlips, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
})().catch((e) => { process.stdout.write(JSON.stringify({ error: String(e && e.message || e) })); });
`;

function runChild(job) {
  const r = spawnSync(process.execPath, ['-e', CHILD, JSON.stringify(job)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  try {
    return JSON.parse(r.stdout);
  } catch {
    return { error: (r.stderr || r.stdout || 'no output').slice(0, 400) };
  }
}


function measure(job, repeats) {
  const runs = [];
  for (let i = 0; i < repeats; i++) {
    const r = runChild(job);
    if (r.error) return r;
    runs.push(r);
  }
  const ms = median(runs.map((r) => r.ms));
  return { ...runs[0], ms, rate: runs[0].steps / (ms / 1000), maxRssMiB: Math.max(...runs.map((r) => r.maxRssMiB)) };
}

const fmtRate = (r) => `${(r / 1e6).toFixed(1)} M/s`;

export async function benchSim({ quick = false } = {}) {
  await buildBundle();
  const repeats = quick ? 1 : 3;
  const rows = [];
  const data = {};
  const seedJob = {
    file: SEED_PC.file,
    kernel: SEED_PC.kernel,
    grid: [1, 1, 1],
    block: [SEED_PC.block, 1, 1],
    dynamicSmem: SEED_PC.dynamicSmem,
    args: seedArgs(1024),
    detectRaces: true,
  };
  // Warm up in the same process on a short run (grammar load, JIT), so the rate is steady state.
  seedJob.warmup = { kernel: seedJob.kernel, grid: seedJob.grid, block: seedJob.block, dynamicSmem: seedJob.dynamicSmem, args: seedArgs(64) };
  const a = measure(seedJob, repeats);
  data.seedProducerConsumer = a;
  if (a.error || a.status !== 'completed') {
    rows.push({ metric: '(a) CUDA seed producer/consumer, 128 threads × 1,024 iterations', value: 'failed', target: '', ok: false });
    data.seedError = a.error ?? a.message;
  } else {
    rows.push({ metric: '(a) CUDA seed p/c 128 thr × 1,024 it: thread-statements/s', value: fmtRate(a.rate), target: '≥ 20 M/s', ok: a.rate >= 20e6 });
    rows.push({ metric: '(a) wall time (median) / statements', value: `${a.ms.toFixed(0)} ms / ${(a.steps / 1e6).toFixed(2)} M`, target: '' });
    const noRace = measure({ ...seedJob, detectRaces: false }, repeats);
    if (!noRace.error) rows.push({ metric: '(a) same without race detection', value: fmtRate(noRace.rate), target: '' });
    data.seedNoRaces = noRace;
  }

  const gemm = path.join(root, 'examples/croqtile/sim/gemm_1p1c.co');
  let b;
  if (existsSync(gemm)) {
    b = measure({ file: gemm, args: ['lhs=f16[128,512]:random(1)', 'rhs=f16[128,512]:random(2)', 'output=f16[128,128]'] }, repeats);
    data.croqtileGemm = b;
    if (b.error || b.status !== 'completed') rows.push({ metric: '(b) Croqtile 1P1C GEMM 128×128×512', value: 'failed', target: '', ok: false });
    else {
      // A Croqtile statement runs for a whole thread group (one simulated thread per warpgroup), and
      // this GEMM is 126 of them around copies and MMAs: wall time is the meaningful number.
      rows.push({ metric: '(b) Croqtile 1P1C GEMM 128×128×512: wall time (median)', value: `${b.ms.toFixed(0)} ms`, target: '' });
      rows.push({ metric: '(b) statements / group-statements per s', value: `${b.steps} / ${fmtRate(b.rate)}`, target: '' });
    }
  }

  // (c) 1,024 blocks of the seed with 16 iterations each: memory stays bounded because blocks run in waves.
  const c = measure({ ...seedJob, grid: [1024, 1, 1], args: seedArgs(16) }, 1);
  data.grid1024 = c;
  if (c.error || c.status !== 'completed') rows.push({ metric: '(c) 1,024-block grid', value: 'failed', target: '', ok: false });
  else {
    rows.push({ metric: '(c) 1,024-block grid (seed, 16 it): peak RSS', value: `${c.maxRssMiB.toFixed(0)} MiB`, target: '≤ 1 GB', ok: c.maxRssMiB * 1.048576 <= 1000 });
    rows.push({ metric: '(c) 1,024-block grid: wall / rate', value: `${(c.ms / 1000).toFixed(1)} s / ${fmtRate(c.rate)}`, target: '' });
  }

  // (d) co-mock on the same Croqtile programs.
  const comock = process.env.PHASEFLIP_COMOCK;
  if (!comock || !existsSync(comock)) {
    rows.push({ metric: '(d) co-mock comparison', value: 'skipped', target: 'faster than co-mock' });
    data.comock = 'skipped: set PHASEFLIP_COMOCK to a co-mock binary (docs/benchmarks.md)';
  } else {
    data.comock = {};
    // co-mock cannot take inputs, so the GEMM it runs is the self-initialising variant; extra
    // programs (e.g. co-mock's own tests) come from PHASEFLIP_COMOCK_PROGRAMS.
    const selfinit = path.join(root, 'examples/croqtile/sim/gemm_selfinit.co');
    const programs = (process.env.PHASEFLIP_COMOCK_PROGRAMS ?? '').split(path.delimiter).filter(Boolean);
    if (existsSync(selfinit)) programs.unshift(selfinit);
    for (const prog of programs) {
      const times = [];
      let ok = true;
      for (let i = 0; i < repeats; i++) {
        const t0 = process.hrtime.bigint();
        const r = spawnSync(comock, [prog], { encoding: 'utf8', timeout: 300_000 });
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (r.status !== 0) ok = false;
      }
      const ours = measure({ file: prog }, repeats);
      // Whole process for both: `node dist/cli.js sim` includes Node's start-up, co-mock its own.
      const whole = [];
      for (let i = 0; i < repeats; i++) {
        const t0 = process.hrtime.bigint();
        spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), 'sim', prog], { encoding: 'utf8', timeout: 300_000 });
        whole.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      const theirs = median(times);
      const oursWhole = median(whole);
      data.comock[path.basename(prog)] = { comockMs: theirs, comockOk: ok, phaseflip: ours, phaseflipWholeProcessMs: oursWhole };
      const name = path.basename(prog);
      if (!ok) rows.push({ metric: `(d) ${name}: co-mock`, value: 'cannot run it', target: '' });
      else if (!ours || ours.error) rows.push({ metric: `(d) ${name}: phaseflip`, value: 'failed', target: '', ok: false });
      else {
        rows.push({ metric: `(d) ${name}: whole process, phaseflip vs co-mock`, value: `${oursWhole.toFixed(0)} vs ${theirs.toFixed(0)} ms`, target: 'faster', ok: oursWhole <= theirs });
        rows.push({ metric: `(d) ${name}: phaseflip in-process simulate()`, value: `${ours.ms.toFixed(1)} ms`, target: '' });
      }
    }
  }
  return { rows, data };
}

// Allow `node scripts/bench/sim.mjs` on its own.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { rows } = await benchSim({ quick: process.argv.includes('--quick') });
  for (const r of rows) console.log(`${r.metric}: ${r.value} ${r.target ?? ''} ${r.ok === false ? 'MISSED' : ''}`);
}
