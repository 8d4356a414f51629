// Bench section "dap": the debug adapter over the real protocol (`node dist/cli.js dap`, a fresh
// process per run, driven by @vscode/debugadapter-testsupport's DebugClient) on the CUDA guide's
// producer/consumer seed with 128 threads: launch → first stop (stopOnEntry; includes loading the
// CUDA grammar and compiling the kernel), step over in the producer's loop (also with singleThread:
// only the producer warp runs, and a step it cannot finish alone stops at once), and continue → the
// next phase flip (phase-flip filter on). Medians over several runs. PHASEFLIP_BENCH_BASELINE=DIR (a built
// checkout of another commit) runs the same sessions on DIR's adapter, alternating, and shows "after (before: …)".
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEED_PC, median, seedArgs } from './seed.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, 'package.json'));
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const seed = SEED_PC.file;
const LAUNCH = { program: seed, kernel: SEED_PC.kernel, grid: 1, block: SEED_PC.block, dynamicSmem: SEED_PC.dynamicSmem, args: seedArgs(1024), stopOnEntry: true };

/** One-based line of the producer's `ready[i % 2].arrive_and_wait()`. */
const PRODUCER_WAIT_LINE = readFileSync(seed, 'utf8').split('\n').findIndex((l) => l.includes('ready[i % 2].arrive_and_wait()')) + 1;

const now = () => Number(process.hrtime.bigint()) / 1e6;


/** Resolves with the next stopped event's body; rejects when the session ends first. */
function nextStop(dc) {
  return new Promise((resolve, reject) => {
    const onStop = (e) => {
      dc.removeListener('terminated', onEnd);
      resolve(e.body);
    };
    const onEnd = () => {
      dc.removeListener('stopped', onStop);
      reject(new Error('the session ended before the expected stop'));
    };
    dc.once('stopped', onStop);
    dc.once('terminated', onEnd);
  });
}

const BASELINE = process.env.PHASEFLIP_BENCH_BASELINE ? path.resolve(process.env.PHASEFLIP_BENCH_BASELINE) : undefined;

/** One adapter process of checkout `dir`: first stop, `steps` step-overs, `flips` continues to the next flip. */
async function session(steps, flips, dir = root) {
  // DebugClient spawns `runtime executable`: the launcher (its shebang runs node) with `dap`, as users run it.
  const dc = new DebugClient(path.join(dir, 'bin/phaseflip.js'), 'dap', 'phaseflip');
  dc.defaultTimeout = 60_000;
  await dc.start();
  try {
    await dc.initializeRequest({ adapterID: 'phaseflip', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    const t0 = now();
    const initialized = dc.waitForEvent('initialized');
    const first = nextStop(dc);
    const launched = dc.launchRequest(LAUNCH);
    await initialized;
    await dc.configurationDoneRequest();
    await launched;
    const stop = await first;
    const firstStop = now() - t0;
    if (stop.reason !== 'entry') throw new Error(`expected the entry stop, got ${stop.reason}`);
    // Steps are measured inside the producer's loop (stepping over the kernel's call to produce()
    // would run the whole loop): go to its wait first.
    await dc.setBreakpointsRequest({ source: { path: seed }, breakpoints: [{ line: PRODUCER_WAIT_LINE }] });
    const atWait = nextStop(dc);
    await dc.continueRequest({ threadId: 1 });
    if ((await atWait).reason !== 'breakpoint') throw new Error('the producer did not reach its wait');
    await dc.setBreakpointsRequest({ source: { path: seed }, breakpoints: [] });
    const stepMs = [];
    for (let i = 0; i < steps; i++) {
      const t = now();
      const s = nextStop(dc);
      await dc.nextRequest({ threadId: 1 });
      const body = await s;
      if (body.reason !== 'step') throw new Error(`expected a step stop, got ${body.reason}: ${body.description}`);
      stepMs.push(now() - t);
    }
    const singleMs = [];
    for (let i = 0; i < steps; i++) {
      const t = now();
      const s = nextStop(dc);
      await dc.nextRequest({ threadId: 1, singleThread: true });
      const body = await s;
      if (body.reason !== 'step') throw new Error(`expected a step stop, got ${body.reason}: ${body.description}`);
      singleMs.push(now() - t);
    }
    await dc.setExceptionBreakpointsRequest({ filters: ['phase-flip'] });
    const flipMs = [];
    for (let i = 0; i < flips; i++) {
      const t = now();
      const s = nextStop(dc);
      await dc.continueRequest({ threadId: 1 });
      const body = await s;
      if (!/completed phase/.test(body.description ?? '')) throw new Error(`expected a phase flip, got ${body.reason}: ${body.description}`);
      flipMs.push(now() - t);
    }
    return { firstStop, stepMs, singleMs, flipMs };
  } finally {
    await dc.stop();
  }
}

export async function benchDap({ quick = false } = {}) {
  const runs = quick ? 2 : 7;
  const dirs = BASELINE ? [root, BASELINE] : [root];
  const results = dirs.map(() => []);
  for (let i = 0; i < runs; i++) for (let d = 0; d < dirs.length; d++) results[d].push(await session(quick ? 3 : 10, quick ? 3 : 10, dirs[d]));
  const stats = results.map((rs) => ({
    firstStop: median(rs.map((r) => r.firstStop)),
    step: median(rs.flatMap((r) => r.stepMs)),
    single: median(rs.flatMap((r) => r.singleMs)),
    flip: median(rs.flatMap((r) => r.flipMs)),
  }));
  const [now, before] = stats;
  const cell = (k, digits) => `${now[k].toFixed(digits)} ms${before ? ` (before: ${before[k].toFixed(digits)} ms)` : ''}`;
  const rows = [
    { metric: 'launch → first stop (stopOnEntry, fresh adapter), median', value: cell('firstStop', 0), target: '≤ 150 ms', ok: now.firstStop <= 150 },
    { metric: 'step over (producer warp), median', value: cell('step', 1), target: '≤ 50 ms', ok: now.step <= 50 },
    { metric: 'step over with singleThread (producer warp only), median', value: cell('single', 1), target: '≤ 50 ms', ok: now.single <= 50 },
    { metric: 'continue → next phase flip, median', value: cell('flip', 1), target: '≤ 20 ms', ok: now.flip <= 20 },
  ];
  return { rows, data: { runs, kernel: 'seeds/producer_consumer_cuda_barrier.cu, 128 threads, 1,024 iterations', results: results[0], ...(BASELINE ? { baseline: BASELINE, baselineResults: results[1] } : {}) } };
}

// Allow `node scripts/bench/dap.mjs` on its own.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { rows } = await benchDap({ quick: process.argv.includes('--quick') });
  for (const r of rows) console.log(`${r.metric}: ${r.value} ${r.target ?? ''} ${r.ok === false ? 'MISSED' : ''}`);
}
