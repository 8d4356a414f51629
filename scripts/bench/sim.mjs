// Bench section "sim": simulated thread-statements per second and wall time for (a) the CUDA guide's
// producer/consumer seed with 128 threads and 1,024 iterations (first run after a short warm-up, and warm)
// and (e) a plain compute loop; (b) a Croqtile 1P1C GEMM 128×128×512 with real f16 data; (c) the time and
// memory of a 1,024-block grid; (g) a compute-heavy Croqtile program (64³ integer matmul over 4,096 threads);
// (f) whole-process `phaseflip sim` times (start-up); and (d) the same
// Croqtile programs on the Croqtile project's co-mock interpreter when PHASEFLIP_COMOCK points at a build
// of it (docs/benchmarks.md says how to build one; the build stays out of this repo). Every case runs in a
// fresh child process so its peak RSS is its own.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { SEED_PC, median, seedArgs } from './seed.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = path.join(root, '.bench');
const require = createRequire(path.join(root, 'package.json'));

/**
 * PHASEFLIP_BENCH_BASELINE=DIR (a built checkout of another commit, e.g. `git worktree add DIR BASE && cd DIR
 * && npm run build`): every case also runs on DIR's simulator and CLI, interleaved with this checkout's runs so
 * both see the same machine load, and each row shows "after (before: …)".
 */
const BASELINE = process.env.PHASEFLIP_BENCH_BASELINE ? path.resolve(process.env.PHASEFLIP_BENCH_BASELINE) : undefined;

/** The bundle of `simulate` built from checkout `dir`. */
async function buildBundle(dir, name) {
  mkdirSync(outDir, { recursive: true });
  const outfile = path.join(outDir, name);
  const webTreeSitterCjs = path.join(path.dirname(require.resolve('web-tree-sitter/tree-sitter.wasm')), 'tree-sitter.cjs');
  await esbuild.build({
    stdin: { contents: "export { simulate } from './core/index'; export { parseArg } from './core/sim/args';", resolveDir: dir, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'warning',
    nodePaths: [path.join(root, 'node_modules')],
    plugins: [{ name: 'wts', setup: (b) => b.onResolve({ filter: /^web-tree-sitter$/ }, () => ({ path: webTreeSitterCjs })) }],
  });
  return outfile;
}

// The child: runs one simulate() request (after a warm-up run on the same file: JIT, grammar load), then
// `repeat - 1` more of the same request; prints each run's wall time, the steps, status and peak RSS.
const CHILD = `
const { simulate, parseArg } = require(process.argv[2]);
const fs = require('node:fs');
const job = JSON.parse(process.argv[1]);
(async () => {
  const text = fs.readFileSync(job.file, 'utf8');
  const args = (job.args || []).map((a) => parseArg(a));
  if (job.warmup) await simulate({ ...job.warmup, file: job.file, text, args: (job.warmup.args || []).map((a) => parseArg(a)) });
  const times = [];
  const cpu = [];
  let r;
  for (let i = 0; i < (job.repeat || 1); i++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    r = await simulate({ file: job.file, text, kernel: job.kernel, grid: job.grid, block: job.block, dynamicSmem: job.dynamicSmem, args, maxSteps: job.maxSteps, detectRaces: job.detectRaces, lockstep: job.lockstep });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  process.stdout.write(JSON.stringify({ ms: times[0], times, cpuMs: cpu[0], cpu, steps: r.steps, status: r.status, message: r.message.split('\\n')[0], flips: r.phaseFlips, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
})().catch((e) => { process.stdout.write(JSON.stringify({ error: String(e && e.message || e) })); });
`;

function runChild(bundle, job) {
  const r = spawnSync(process.execPath, ['-e', CHILD, JSON.stringify(job), bundle], { encoding: 'utf8', maxBuffer: 1 << 24 });
  try {
    return JSON.parse(r.stdout);
  } catch {
    return { error: (r.stderr || r.stdout || 'no output').slice(0, 400) };
  }
}

/** `repeats` children per build, alternating between the builds; per build: the median first run, the median warm run. */
function measure(builds, job, repeats) {
  const runs = builds.map(() => []);
  for (let i = 0; i < repeats; i++) {
    for (let b = 0; b < builds.length; b++) {
      if (runs[b].error) continue;
      const r = runChild(builds[b].bundle, job);
      if (r.error) runs[b] = r;
      else runs[b].push(r);
    }
  }
  return runs.map((rs) => {
    if (rs.error) return rs;
    const ms = median(rs.map((r) => r.ms));
    // Warm: the later runs of each child (the same request again in one process).
    const warm = rs.flatMap((r) => r.times.slice(1));
    const warmMs = warm.length ? median(warm) : undefined;
    // CPU time of the same runs: steadier than wall time when other jobs load the machine.
    const cpuMs = median(rs.map((r) => r.cpuMs));
    const warmCpu = rs.flatMap((r) => r.cpu.slice(1));
    const warmCpuMs = warmCpu.length ? median(warmCpu) : undefined;
    return { ...rs[0], ms, rate: rs[0].steps / (ms / 1000), warmMs, warmRate: warmMs ? rs[0].steps / (warmMs / 1000) : undefined, cpuMs, cpuRate: rs[0].steps / (cpuMs / 1000), warmCpuMs, warmCpuRate: warmCpuMs ? rs[0].steps / (warmCpuMs / 1000) : undefined, maxRssMiB: Math.max(...rs.map((r) => r.maxRssMiB)) };
  });
}

/** CPU ms of this process's waited-for children so far (Linux /proc; undefined elsewhere), 10 ms resolution. */
function childrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // After the command: state is field 3; cutime and cstime are fields 16 and 17 (1-based), in clock ticks.
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** Whole process: `phaseflip sim ARGS` through each build's bin/phaseflip.js (code cache warm), median wall and CPU ms. */
function measureCli(builds, args, repeats) {
  const times = builds.map(() => []);
  const cpus = builds.map(() => []);
  const status = builds.map(() => 0);
  for (const b of builds) spawnSync(process.execPath, [path.join(b.dir, 'bin/phaseflip.js'), 'sim', ...args], { encoding: 'utf8' }); // code cache
  for (let i = 0; i < repeats; i++) {
    for (let b = 0; b < builds.length; b++) {
      const t0 = process.hrtime.bigint();
      const c0 = childrenCpuMs();
      const r = spawnSync(process.execPath, [path.join(builds[b].dir, 'bin/phaseflip.js'), 'sim', ...args], { encoding: 'utf8', timeout: 300_000 });
      times[b].push(Number(process.hrtime.bigint() - t0) / 1e6);
      const c1 = childrenCpuMs();
      if (c0 !== undefined && c1 !== undefined) cpus[b].push(c1 - c0);
      status[b] = r.status;
    }
  }
  return times.map((t, b) => ({ ms: median(t), cpuMs: cpus[b].length ? median(cpus[b]) : undefined, status: status[b] }));
}

const fmtRate = (r) => `${(r / 1e6).toFixed(1)} M/s`;

/** "after (before: …)" when a baseline ran. */
function cell(results, fmt) {
  const [now, base] = results;
  const v = now && !now.error ? fmt(now) : 'failed';
  if (!base) return v;
  return `${v} (before: ${base.error ? 'failed' : fmt(base)})`;
}

// A plain compute loop: no barrier, no memory traffic in the loop, every thread independent.
const COMPUTE_LOOP = `// Generated by scripts/bench/sim.mjs: a plain compute loop (no barriers, no memory in the loop).
__global__ void compute_loop(int n, unsigned *out)
{
  unsigned acc = threadIdx.x;
  for (int i = 0; i < n; ++i)
  {
    acc = acc * 3u + i;
    acc ^= acc >> 7;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
`;

// A tiny Croqtile program (the size of co-mock's own tests): whole-process time is start-up.
const TINY_CO = `// Generated by scripts/bench/sim.mjs: a tiny Croqtile program; its whole-process time is start-up.
__co__ void tiny() {
  global s32 [16, 16] out;
  parallel p by 1 : block {
    parallel t by 16 : thread {
      foreach j in 16 {
        s32 v = t * 16 + j;
        out.at(t, j) = v;
      }
    }
  }
  mutable s64 total = 0;
  foreach i in 16
    foreach j in 16
      total = total + out.at(i, j);
  println(total);
}
`;

export async function benchSim({ quick = false } = {}) {
  const builds = [{ label: 'after', dir: root, bundle: await buildBundle(root, 'sim-bench.cjs') }];
  if (BASELINE) {
    if (!existsSync(path.join(BASELINE, 'dist/cli.js'))) throw new Error(`PHASEFLIP_BENCH_BASELINE=${BASELINE}: no dist/cli.js there (run npm run build in it)`);
    builds.push({ label: 'before', dir: BASELINE, bundle: await buildBundle(BASELINE, 'sim-bench-baseline.cjs') });
  }
  const repeats = quick ? 1 : 3;
  const rows = [];
  const data = { builds: builds.map((b) => ({ label: b.label, dir: b.dir })) };
  const ok = (rs) => rs.every((r) => !r.error && r.status === 'completed');
  const seedJob = {
    file: SEED_PC.file,
    kernel: SEED_PC.kernel,
    grid: [1, 1, 1],
    block: [SEED_PC.block, 1, 1],
    dynamicSmem: SEED_PC.dynamicSmem,
    args: seedArgs(1024),
    detectRaces: true,
    repeat: 4,
  };
  // Warm up in the same process on a short run (grammar load, JIT); the first measured run still pays
  // for the optimising compiler, the later ones ("warm") are the steady state.
  seedJob.warmup = { kernel: seedJob.kernel, grid: seedJob.grid, block: seedJob.block, dynamicSmem: seedJob.dynamicSmem, args: seedArgs(64) };
  const a = measure(builds, seedJob, repeats);
  data.seedProducerConsumer = a;
  if (!ok(a)) {
    rows.push({ metric: '(a) CUDA seed producer/consumer, 128 threads × 1,024 iterations', value: 'failed', target: '', ok: false });
    data.seedError = a.map((r) => r.error ?? r.message);
  } else {
    rows.push({ metric: '(a) CUDA seed p/c 128 thr × 1,024 it, races on: first run', value: cell(a, (r) => fmtRate(r.rate)), target: '≥ 20 M/s', ok: a[0].rate >= 20e6 });
    rows.push({ metric: '(a) same, warm (runs 2-4 in one process)', value: cell(a, (r) => fmtRate(r.warmRate)), target: '≥ 20 M/s', ok: a[0].warmRate >= 20e6 });
    rows.push({ metric: '(a) wall time first run (median) / statements', value: cell(a, (r) => `${r.ms.toFixed(0)} ms`) + ` / ${(a[0].steps / 1e6).toFixed(2)} M`, target: '' });
    rows.push({ metric: '(a) by CPU time: first / warm', value: cell(a, (r) => `${fmtRate(r.cpuRate)} / ${fmtRate(r.warmCpuRate)}`), target: '' });
    const noRace = measure(builds, { ...seedJob, detectRaces: false }, repeats);
    rows.push({ metric: '(a) same without race detection: first / warm', value: cell(noRace, (r) => `${fmtRate(r.rate)} / ${fmtRate(r.warmRate)}`), target: '' });
    data.seedNoRaces = noRace;
    // Each thread alone (no warp lockstep; builds before it ignore the option): what lockstep gains.
    const alone = measure(builds, { ...seedJob, lockstep: false }, repeats);
    rows.push({ metric: '(a) same, threads one at a time (lockstep off), by CPU: first / warm', value: cell(alone, (r) => `${fmtRate(r.cpuRate)} / ${fmtRate(r.warmCpuRate)}`), target: '' });
    data.seedNoLockstep = alone;
    // Eight times longer: a 1,024-iteration run (60-90 ms) is still being optimised by V8 in runs 2-4.
    const long = measure(builds, { ...seedJob, args: seedArgs(8192), repeat: 3 }, repeats);
    if (ok(long)) {
      rows.push({ metric: '(a) seed p/c × 8,192 it, races on: warm (steady state)', value: cell(long, (r) => fmtRate(r.warmRate)), target: '≥ 20 M/s', ok: long[0].warmRate >= 20e6 });
      rows.push({ metric: '(a) same by CPU time: first / warm', value: cell(long, (r) => `${fmtRate(r.cpuRate)} / ${fmtRate(r.warmCpuRate)}`), target: '' });
    }
    data.seedLong = long;
  }

  // (e) a plain compute loop, 128 threads × 2,000 iterations.
  const loopFile = path.join(outDir, 'compute-loop.cu');
  writeFileSync(loopFile, COMPUTE_LOOP);
  const loopArgs = ['n=2000', 'out=u32[128]'];
  const e = measure(builds, { file: loopFile, kernel: 'compute_loop', grid: [1, 1, 1], block: [128, 1, 1], args: loopArgs, detectRaces: true, repeat: 4, warmup: { kernel: 'compute_loop', grid: [1, 1, 1], block: [128, 1, 1], args: ['n=50', 'out=u32[128]'] } }, repeats);
  data.computeLoop = e;
  if (!ok(e)) rows.push({ metric: '(e) plain compute loop', value: 'failed', target: '', ok: false });
  else {
    rows.push({ metric: '(e) plain compute loop 128 thr × 2,000 it: first run', value: cell(e, (r) => fmtRate(r.rate)), target: '≥ 50 M/s', ok: e[0].rate >= 50e6 });
    rows.push({ metric: '(e) same, warm', value: cell(e, (r) => fmtRate(r.warmRate)), target: '≥ 50 M/s', ok: e[0].warmRate >= 50e6 });
    rows.push({ metric: '(e) by CPU time: first / warm', value: cell(e, (r) => `${fmtRate(r.cpuRate)} / ${fmtRate(r.warmCpuRate)}`), target: '' });
  }
  // The same loop ten times longer: a 2,000-iteration run (30 ms) ends while V8 is still optimising
  // the kernel's closures, so its "warm" runs still include that; this one shows the steady state.
  const eLong = measure(builds, { file: loopFile, kernel: 'compute_loop', grid: [1, 1, 1], block: [128, 1, 1], args: ['n=20000', 'out=u32[128]'], detectRaces: true, repeat: 3, warmup: { kernel: 'compute_loop', grid: [1, 1, 1], block: [128, 1, 1], args: ['n=50', 'out=u32[128]'] } }, repeats);
  data.computeLoopLong = eLong;
  if (ok(eLong)) {
    rows.push({ metric: '(e) compute loop 128 thr × 20,000 it: first run / warm', value: cell(eLong, (r) => `${fmtRate(r.rate)} / ${fmtRate(r.warmRate)}`), target: '≥ 50 M/s', ok: eLong[0].warmRate >= 50e6 });
    rows.push({ metric: '(e) same by CPU time: first / warm', value: cell(eLong, (r) => `${fmtRate(r.cpuRate)} / ${fmtRate(r.warmCpuRate)}`), target: '' });
  }

  const gemm = path.join(root, 'examples/croqtile/sim/gemm_1p1c.co');
  const gemmArgs = ['lhs=f16[128,512]:random(1)', 'rhs=f16[128,512]:random(2)', 'output=f16[128,128]'];
  if (existsSync(gemm)) {
    const b = measure(builds, { file: gemm, args: gemmArgs }, repeats);
    data.croqtileGemm = b;
    if (!ok(b)) rows.push({ metric: '(b) Croqtile 1P1C GEMM 128×128×512', value: 'failed', target: '', ok: false });
    else {
      // A Croqtile statement runs for a whole thread group (one simulated thread per warpgroup), and
      // this GEMM is 126 of them around copies and MMAs: wall time is the meaningful number.
      rows.push({ metric: '(b) Croqtile 1P1C GEMM 128×128×512: in-process wall (median)', value: cell(b, (r) => `${r.ms.toFixed(0)} ms`), target: '' });
    }
  }

  // (g) a compute-heavy Croqtile program: a 64³ integer matmul over 4,096 parallel threads (64 blocks × 64),
  // co-mock's tests/matmul.co at scale. Croqtile's co-mock (-O2) takes about 1.0 s on it (issue 16): the
  // target is 10× that in-process. First run (what one `phaseflip sim` pays) and warm (runs 2-4 in one process).
  const matmul = path.join(root, 'examples/croqtile/sim/matmul64.co');
  if (existsSync(matmul)) {
    const g = measure(builds, { file: matmul, repeat: 4 }, repeats);
    data.croqtileMatmul = g;
    if (!ok(g)) rows.push({ metric: '(g) Croqtile 64³ int matmul, 4,096 threads', value: 'failed', target: '', ok: false });
    else {
      rows.push({ metric: '(g) Croqtile 64³ int matmul, 4,096 threads: in-process first run, wall / CPU', value: cell(g, (r) => `${r.ms.toFixed(0)} / ${r.cpuMs.toFixed(0)} ms`), target: '≤ 100 ms (co-mock 1.0 s / 10)', ok: g[0].ms <= 100 });
      rows.push({ metric: '(g) same, warm: wall / CPU', value: cell(g, (r) => `${r.warmMs.toFixed(0)} / ${r.warmCpuMs.toFixed(0)} ms`), target: '≤ 100 ms', ok: g[0].warmMs <= 100 });
    }
  }

  // (c) 1,024 blocks of the seed with 16 iterations each: memory stays bounded because blocks run in waves.
  // The median of `repeats` fresh processes (the first grid run after the one-block warm-up), and the
  // same request again in each process.
  const c = measure(builds, { ...seedJob, grid: [1024, 1, 1], args: seedArgs(16), repeat: 2 }, repeats);
  data.grid1024 = c;
  if (!ok(c)) rows.push({ metric: '(c) 1,024-block grid', value: 'failed', target: '', ok: false });
  else {
    rows.push({ metric: '(c) 1,024-block grid (seed, 16 it): wall', value: cell(c, (r) => `${(r.ms / 1000).toFixed(2)} s`), target: '≤ 1 s', ok: c[0].ms <= 1000 });
    rows.push({ metric: '(c) same, run again in the process: wall', value: cell(c, (r) => `${(r.warmMs / 1000).toFixed(2)} s`), target: '' });
    rows.push({ metric: '(c) 1,024-block grid: peak RSS', value: cell(c, (r) => `${r.maxRssMiB.toFixed(0)} MiB`), target: '≤ 1 GB', ok: c[0].maxRssMiB * 1.048576 <= 1000 });
    rows.push({ metric: '(c) 1,024-block grid: CPU time', value: cell(c, (r) => `${(r.cpuMs / 1000).toFixed(2)} s`), target: '' });
  }

  // (f) whole process, as users run it: `phaseflip sim …` (Node start-up, bundle load through the code cache,
  // the front end, the run, the report).
  const tinyFile = path.join(outDir, 'tiny.co');
  writeFileSync(tinyFile, TINY_CO);
  const cliCases = [
    { name: 'node -e "" (Node start-up alone, for scale)', bare: true },
    { name: 'tiny Croqtile program (16 threads)', args: [tinyFile] },
    { name: 'examples/croqtile/sim/gemm_selfinit.co', args: [path.join(root, 'examples/croqtile/sim/gemm_selfinit.co')] },
    { name: 'examples/croqtile/sim/matmul64.co', args: [matmul] },
    { name: 'examples/croqtile/sim/gemm_1p1c.co', args: [gemm, ...gemmArgs.flatMap((g) => ['--arg', g])] },
    { name: 'CUDA seed p/c, 128 threads × 64 it', args: [SEED_PC.file, '--kernel', SEED_PC.kernel, '--grid', '1', '--block', String(SEED_PC.block), '--dynamic-smem', String(SEED_PC.dynamicSmem), ...seedArgs(64).flatMap((g) => ['--arg', g])] },
  ];
  data.wholeProcess = {};
  for (const k of cliCases) {
    let res;
    if (k.bare) {
      const t = [];
      const cpu = [];
      for (let i = 0; i < repeats * 3; i++) {
        const t0 = process.hrtime.bigint();
        const c0 = childrenCpuMs();
        spawnSync(process.execPath, ['-e', ''], { encoding: 'utf8' });
        t.push(Number(process.hrtime.bigint() - t0) / 1e6);
        const c1 = childrenCpuMs();
        if (c0 !== undefined && c1 !== undefined) cpu.push(c1 - c0);
      }
      res = [{ ms: median(t), cpuMs: cpu.length ? median(cpu) : undefined, status: 0 }];
    } else res = measureCli(builds, k.args, repeats * 3);
    data.wholeProcess[k.name] = res;
    const failed = res.some((r) => r.status !== 0);
    const fmt = (r) => `${r.ms.toFixed(0)} ms${r.cpuMs !== undefined ? ` (CPU ${r.cpuMs.toFixed(0)})` : ''}`;
    rows.push({ metric: `(f) whole process: ${k.name}`, value: failed ? 'failed' : cell(res, fmt), target: k.bare ? '' : 'co-mock: 14–17 ms tiny', ok: failed ? false : undefined });
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
    if (existsSync(matmul)) programs.unshift(matmul);
    if (existsSync(selfinit)) programs.unshift(selfinit);
    for (const prog of programs) {
      const times = [];
      let comockOk = true;
      for (let i = 0; i < repeats; i++) {
        const t0 = process.hrtime.bigint();
        const r = spawnSync(comock, [prog], { encoding: 'utf8', timeout: 300_000 });
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (r.status !== 0) comockOk = false;
      }
      const ours = measure(builds, { file: prog }, repeats);
      // Whole process for both: `phaseflip sim` includes Node's start-up, co-mock its own.
      const whole = measureCli(builds, [prog], repeats);
      const theirs = median(times);
      data.comock[path.basename(prog)] = { comockMs: theirs, comockOk, phaseflip: ours, phaseflipWholeProcess: whole };
      const name = path.basename(prog);
      if (!comockOk) rows.push({ metric: `(d) ${name}: co-mock`, value: 'cannot run it', target: '' });
      else if (!ok(ours)) rows.push({ metric: `(d) ${name}: phaseflip`, value: 'failed', target: '', ok: false });
      else {
        rows.push({ metric: `(d) ${name}: whole process, phaseflip vs co-mock`, value: `${cell(whole, (r) => `${r.ms.toFixed(0)} ms`)} vs ${theirs.toFixed(0)} ms`, target: 'faster', ok: whole[0].ms <= theirs });
        rows.push({ metric: `(d) ${name}: phaseflip in-process simulate()`, value: cell(ours, (r) => `${r.ms.toFixed(1)} ms`), target: '' });
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
