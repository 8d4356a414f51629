// Tests for the simulator's debug runtime (core/debug/runtime.ts) on example CUDA kernels: barrier
// breakpoints and watches, deadlock stops, stepping back by replay, conditional breakpoints,
// logpoints, stepping, lanes and bad requests (Croqtile: debug-croqtile.test.ts). Lines are found
// by the text on them, never by number (inline kernels excepted).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../core/sim/args';
import { type DebugEvents, type DebugRuntime, evaluate } from '../../../core/debug/runtime';
import { createDebugRuntime } from '../../../core/debug-programs';
import type { SimulateRequest } from '../../../core/sim/run';

const examples = path.join(__dirname, '..', '..', '..', 'examples');

function request(rel: string, opts: Omit<Partial<SimulateRequest>, 'args'> & { args: string[] }): SimulateRequest {
  const file = path.join(examples, rel);
  const { args, ...rest } = opts;
  return { file, text: readFileSync(file, 'utf8'), maxSteps: 5_000_000, ...rest, args: args.map(parseArg) };
}

const seed = () =>
  request('seeds/producer_consumer_cuda_barrier.cu', {
    kernel: 'producer_consumer_pattern',
    grid: [1, 1, 1],
    block: [128, 1, 1],
    dynamicSmem: 512,
    args: ['N=1024', 'buffer_len=64', 'in=f32[1024]:iota', 'out=f32[1024]'],
  });

const bootstrap = () => request('bugs/producer_missing_bootstrap.cu', { grid: [1, 1, 1], block: [160, 1, 1], args: ['in=f32[16384]:iota', 'out=f32[128]', 'num_tiles=8'] });
/** The fix of `bootstrap`: one producer lane streams tiles with cp.async.bulk into a three-slot ring, four consumer warps sum them. */
const ring = () => request('good/producer_missing_bootstrap.cu', { grid: [1, 1, 1], block: [160, 1, 1], args: ['in=f32[16384]:iota', 'out=f32[128]', 'num_tiles=8'], trace: true });

/** Zero-based line of the only line containing `text` in the request's source. */
function lineOf(req: SimulateRequest, text: string): number {
  const lines = req.text.split('\n');
  const found = lines.flatMap((l, i) => (l.includes(text) ? [i] : []));
  if (found.length !== 1) throw new Error(`'${text}' is on ${found.length} lines`);
  return found[0];
}

function local(rt: DebugRuntime, thread: number, name: string): string | undefined {
  return rt.locals(thread, 0).find((l) => l.name === name)?.value;
}

function collect<K extends keyof DebugEvents>(rt: DebugRuntime, kind: K): DebugEvents[K][] {
  const out: DebugEvents[K][] = [];
  rt.on(kind, (e) => out.push(e));
  return out;
}

describe('DebugRuntime', () => {
  it('stops at entry with one thread per warp', async () => {
    const rt = createDebugRuntime(seed());
    const stop = await rt.start();
    expect(stop.reason).toBe('entry');
    expect(rt.threads().map((t) => t.label)).toHaveLength(4);
    for (const [i, t] of rt.threads().entries()) expect(t.label).toMatch(new RegExp(`^block 0 · warp ${i}( · \\S.*)?$`));
    expect(rt.threads()[1]).toMatchObject({ id: 2, block: 0, warp: 1, lane: 0 });
    expect(rt.frames(1)[0].name).toBe('producer_consumer_pattern');
  });

  it('verifies breakpoints only on lines with statements', async () => {
    const req = seed();
    const rt = createDebugRuntime(req);
    await rt.start();
    const wait = lineOf(req, 'ready[i % 2].arrive_and_wait()');
    const comment = lineOf(req, '/* produce, i.e., fill in');
    expect(rt.setBreakpoints([{ line: wait }, { line: comment }]).map((b) => b.verified)).toEqual([true, false]);
  });

  it('a function breakpoint on bar[1] stops when bar[1] completes its first phase', async () => {
    const rt = createDebugRuntime(seed());
    const stopped = collect(rt, 'stopped');
    await rt.start();
    rt.setFunctionBreakpoints([{ name: 'bar[1]' }]);
    const stop = await rt.continue();
    expect(stop).toMatchObject({ reason: 'phase-flip', barrier: 'bar[1]', block: 0, oldPhase: 0, newPhase: 1 });
    expect(stop.lastArriver).toMatch(/^block 0 · warp \d · lane \d+/);
    expect(stopped).toEqual([stop]);
    const bar1 = rt.barriers().find((b) => b.label === 'bar[1]')!;
    // A fresh phase: every one of the 128 threads must arrive again, nobody has yet.
    expect(bar1).toMatchObject({ initialized: true, phase: 1, parity: 1, expected: 128, pending: 128, tx: 0 });
    // Only bar[1] stops: the next stop is its second phase.
    const next = await rt.continue();
    expect(next).toMatchObject({ reason: 'phase-flip', barrier: 'bar[1]', oldPhase: 1, newPhase: 2 });
    // bar[0] flips alongside (ready[0] and ready[1] alternate), so it has flipped at least once by now.
    expect(rt.barriers().find((b) => b.label === 'bar[0]')!.phase).toBeGreaterThanOrEqual(1);
  });

  it('the missing-bootstrap kernel stops with a deadlock naming the blocked warps and barriers', async () => {
    const rt = createDebugRuntime(bootstrap());
    const exited = collect(rt, 'exited');
    await rt.start();
    const stop = await rt.continue();
    expect(stop.reason).toBe('deadlock');
    expect(stop.description).toMatch(/slot_free\[0\]/);
    const blocked = stop.blocked!.map((b) => `${b.label}: ${b.barrier} ×${b.lanes}`);
    expect(blocked.sort()).toEqual(['block 0 · warp 0: slot_free[0] ×1', ...[1, 2, 3, 4].map((w) => `block 0 · warp ${w}: slot_ready[0] ×32`)].sort());
    const free0 = rt.barriers().find((b) => b.label === 'slot_free[0]')!;
    expect(free0).toMatchObject({ phase: 0, pending: 4, expected: 4 });
    expect(free0.waiting.map((w) => w.label)).toEqual(['block 0 · warp 0']);
    // The producer's lane 0 is shown waiting inside bar_wait, called from the kernel.
    expect(rt.frames(1).map((f) => f.name)).toEqual(['bar_wait', 'stream_sum']);
    expect(exited).toEqual([]);
    // Continuing a deadlocked kernel ends the session.
    const end = await rt.continue();
    expect(end.reason).toBe('deadlock');
    expect(exited).toEqual([{ status: 'deadlock', message: stop.description }]);
  });

  it('stepBack returns to the previous phase flip with identical state', async () => {
    const rt = createDebugRuntime(seed());
    await rt.start();
    rt.setExceptionFilters(['phase-flip']);
    for (let i = 0; i < 4; i++) await rt.continue();
    const atFlip = await rt.continue();
    expect(atFlip.reason).toBe('phase-flip');
    const state = { barriers: rt.barriers(), frames: rt.frames(1), locals: rt.locals(1, 0), consumer: rt.locals(3, 0), steps: rt.steps };
    const later = await rt.continue();
    expect(later.reason).toBe('phase-flip');
    expect(later.steps).toBeGreaterThan(atFlip.steps);
    expect(rt.barriers()).not.toEqual(state.barriers);
    const back = await rt.stepBack();
    expect(back).toMatchObject({ reason: 'step', barrier: atFlip.barrier, oldPhase: atFlip.oldPhase, newPhase: atFlip.newPhase, steps: atFlip.steps });
    expect({ barriers: rt.barriers(), frames: rt.frames(1), locals: rt.locals(1, 0), consumer: rt.locals(3, 0), steps: rt.steps }).toEqual(state);
    // Going forward again reaches the same next flip.
    const again = await rt.continue();
    expect(again).toMatchObject({ reason: 'phase-flip', barrier: later.barrier, oldPhase: later.oldPhase, steps: later.steps });
  });

  it('reverseContinue goes back to the previous barrier stop, and from the end to the last stop', async () => {
    const rt = createDebugRuntime(seed());
    await rt.start();
    rt.setFunctionBreakpoints([{ name: 'bar[1]' }]);
    const first = await rt.continue();
    const firstBarriers = rt.barriers();
    await rt.continue();
    const back = await rt.reverseContinue();
    expect(back).toMatchObject({ reason: 'phase-flip', barrier: 'bar[1]', oldPhase: 0, newPhase: 1, steps: first.steps });
    expect(rt.barriers()).toEqual(firstBarriers);
    rt.setFunctionBreakpoints([]);
    expect((await rt.continue()).reason).toBe('completed');
    const fromEnd = await rt.reverseContinue();
    expect(fromEnd).toMatchObject({ reason: 'phase-flip', steps: first.steps });
    expect((await rt.reverseContinue()).reason).toBe('entry');
    expect(rt.steps).toBe(0);
  });

  it('a conditional breakpoint stops only when its condition holds', async () => {
    const req = seed();
    const rt = createDebugRuntime(req);
    await rt.start();
    const line = lineOf(req, 'ready[i % 2].arrive_and_wait()');
    rt.setBreakpoints([{ line, condition: 'i == 3' }]);
    const stop = await rt.continue();
    expect(stop).toMatchObject({ reason: 'breakpoint', thread: 1, line });
    expect(local(rt, 1, 'i')).toBe('3');
    expect(rt.frames(1).map((f) => f.name)).toEqual(['produce', 'producer_consumer_pattern']);
    // The condition is false for every later iteration: the kernel completes.
    expect((await rt.continue()).reason).toBe('completed');
  });

  it('a logpoint prints its interpolated message without stopping', async () => {
    const req = seed();
    const rt = createDebugRuntime(req);
    const output = collect(rt, 'output');
    await rt.start();
    const line = lineOf(req, 'barrier_t::arrival_token token3');
    rt.setBreakpoints([{ line, logMessage: 'consumer warp {warp} i={i} next={i + 1}' }]);
    const stop = await rt.continue();
    expect(stop.reason).toBe('completed');
    const texts = output.map((o) => o.text);
    // Three consumer warps (lane 0 of each) × 16 iterations.
    expect(texts).toHaveLength(48);
    expect(texts).toContain('consumer warp 2 i=15 next=16\n');
    expect(output.every((o) => o.category === 'console')).toBe(true);
  });

  it('a hit condition stops on the n-th hit', async () => {
    const req = seed();
    const rt = createDebugRuntime(req);
    await rt.start();
    rt.setBreakpoints([{ line: lineOf(req, 'ready[i % 2].arrive_and_wait()'), hitCondition: '>= 5' }]);
    await rt.continue();
    expect(local(rt, 1, 'i')).toBe('4');
    await rt.continue();
    expect(local(rt, 1, 'i')).toBe('5');
  });

  it('stepOver moves the displayed lane to the next line, stepIn enters a call and stepOut leaves it', async () => {
    const req = seed();
    const rt = createDebugRuntime(req);
    await rt.start();
    rt.setBreakpoints([{ line: lineOf(req, 'ready[i % 2].arrive_and_wait()'), condition: 'i == 1' }]);
    await rt.continue();
    rt.setBreakpoints([]);
    const over = await rt.stepOver(1);
    expect(over).toMatchObject({ reason: 'step', thread: 1, line: lineOf(req, 'barrier_t::arrival_token token = filled[i % 2].arrive()') });
    expect(local(rt, 1, 'i')).toBe('1');

    const rt2 = createDebugRuntime(req);
    await rt2.start();
    rt2.setBreakpoints([{ line: lineOf(req, '{ produce(bar, bar + 2') }]);
    await rt2.continue();
    rt2.setBreakpoints([]);
    const into = await rt2.stepIn(1);
    expect(into.reason).toBe('step');
    expect(rt2.frames(1).map((f) => f.name)).toEqual(['produce', 'producer_consumer_pattern']);
    const out = await rt2.stepOut(1);
    expect(out.reason).toBe('step');
    expect(rt2.frames(1).map((f) => f.name)).toEqual(['producer_consumer_pattern']);
  });

  it('breakpoints still hit after stepping back', async () => {
    const req = seed();
    const rt = createDebugRuntime(req);
    await rt.start();
    // Set before going back: the rebuilt launch must still match them.
    rt.setBreakpoints([{ line: lineOf(req, 'ready[i % 2].arrive_and_wait()'), condition: 'i == 6' }]);
    rt.setFunctionBreakpoints([{ name: 'bar' }]);
    await rt.continue();
    await rt.continue();
    const back = await rt.stepBack();
    expect(back.barrier).toMatch(/^bar\[\d\]$/);
    rt.setFunctionBreakpoints([]);
    expect(await rt.continue()).toMatchObject({ reason: 'breakpoint', thread: 1 });
    expect(local(rt, 1, 'i')).toBe('6');
  });

  it('continuing after reverseContinue to a breakpoint goes past it', async () => {
    const req = seed();
    const rt = createDebugRuntime(req);
    await rt.start();
    rt.setBreakpoints([{ line: lineOf(req, 'ready[i % 2].arrive_and_wait()') }]);
    await rt.continue();
    expect(local(rt, 1, 'i')).toBe('0');
    await rt.continue();
    expect(local(rt, 1, 'i')).toBe('1');
    const back = await rt.reverseContinue();
    expect(back).toMatchObject({ reason: 'breakpoint', thread: 1, lane: 0 });
    expect(local(rt, 1, 'i')).toBe('0');
    await rt.continue();
    expect(local(rt, 1, 'i')).toBe('1');
  });

  it('misuse stops under the misuse filter and is only printed without it', async () => {
    const req = () => request('bugs/every_thread_arrives_on_count1.cu', { grid: [1, 1, 1], block: [160, 1, 1], args: ['in=f32[16384]:iota', 'out=f32[128]', 'num_tiles=8'] });
    const rt = createDebugRuntime(req());
    await rt.start();
    const stop = await rt.continue();
    expect(stop.reason).toBe('misuse');
    expect(stop.report?.misuse?.kind).toBe('over-arrival');
    expect(stop.description).toMatch(/empty\[0\]/);
    expect(rt.barriers().some((b) => b.label === 'empty[0]')).toBe(true);

    const quiet = createDebugRuntime(req());
    const output = collect(quiet, 'output');
    await quiet.start();
    quiet.setExceptionFilters(['deadlock']);
    const end = await quiet.continue();
    expect(end.reason).not.toBe('misuse');
    expect(output.some((o) => o.category === 'stderr' && /barrier misuse: .*empty\[0\]/.test(o.text))).toBe(true);
  });

  it('pause stops a kernel that spins forever, and it can go on afterwards', async () => {
    const text = '__global__ void spin(int *out) {\n  int i = 0;\n  while (out[0] == 0) {\n    i++;\n  }\n}\n';
    const rt = createDebugRuntime({ file: 'spin.cu', text, block: [32, 1, 1], maxSteps: 50_000_000, args: [parseArg('out=s32[1]')] });
    await rt.start();
    const running = rt.continue();
    rt.pause();
    const stop = await running;
    expect(stop.reason).toBe('pause');
    expect(Number(local(rt, 1, 'i'))).toBeGreaterThan(0);
    const before = rt.steps;
    const again = rt.continue();
    rt.pause();
    await again;
    expect(rt.steps).toBeGreaterThan(before);
  });

  it('a kernel the simulator cannot compile stops with the unsupported construct on the first continue', async () => {
    const text = '__global__ void k(int *out) {\n  goto done;\ndone:\n  out[0] = 1;\n}\n';
    const rt = createDebugRuntime({ file: 'k.cu', text, block: [32, 1, 1], args: [parseArg('out=s32[1]')] });
    await rt.start();
    expect(rt.setBreakpoints([{ line: 3 }])[0].verified).toBe(false);
    const stop = await rt.continue();
    expect(stop.reason).toBe('error');
    expect(stop.description).toMatch(/not supported by the simulator: .*goto/);
  });

  it('a bad request gives a clear error', async () => {
    const rt = createDebugRuntime({ ...seed(), kernel: 'no_such_kernel' });
    await expect(rt.start()).rejects.toThrow(/no __global__ kernel named 'no_such_kernel' \(kernels: producer_consumer_pattern\)/);
    // The language comes from the request: CUDA text run as Croqtile names what is missing.
    const asCroqtile = createDebugRuntime({ ...seed(), file: 'k.co', language: 'croqtile' });
    expect(asCroqtile.language).toBe('croqtile');
    await expect(asCroqtile.start()).rejects.toThrow(/k\.co has no __co__ function 'producer_consumer_pattern'/);
  });

  it('threads have 32 lanes or fewer for a partial last warp; laneValues shows a variable in every lane', async () => {
    // The second __syncthreads keeps every lane (and its `v`) alive while lane 0 of warp 1 is stopped.
    const text = '__global__ void k(int *out) {\n  int v = threadIdx.x * 2;\n  __syncthreads();\n  out[threadIdx.x] = v;\n  __syncthreads();\n}\n';
    const rt = createDebugRuntime({ file: 'k.cu', text, block: [40, 1, 1], args: [parseArg('out=s32[40]')] });
    expect(rt.language).toBe('cuda');
    await rt.start();
    expect(rt.threads().map((t) => [t.id, t.lanes])).toEqual([
      [1, 32],
      [2, 8],
    ]);
    rt.setBreakpoints([{ line: 3, condition: 'warp == 1' }]);
    expect(await rt.continue()).toMatchObject({ reason: 'breakpoint', thread: 2, lane: 0 });
    expect(rt.laneValues(2, 'v')).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((lane) => ({ lane, value: String(2 * (32 + lane)) })));
    // Expressions too, evaluated in each lane's own scope.
    const warp0 = rt.laneValues(1, 'v / 2 - lane');
    expect(warp0).toHaveLength(32);
    expect(new Set(warp0.map((x) => x.value))).toEqual(new Set(['0']));
    expect(rt.laneValues(1, 'nope')[5]).toEqual({ lane: 5, value: "<'nope' is not a number in scope here>" });
    expect(() => rt.laneValues(9, 'v')).toThrow(/no thread 9/);
    // One thread is described exactly as the list describes it, lane choice included.
    rt.setLane(1, 7);
    for (const t of rt.threads()) expect(rt.thread(t.id)).toEqual(t);
    expect(rt.thread(1)).toMatchObject({ lane: 7, block: 0, warp: 0 });
    expect(rt.thread(9)).toBeUndefined();
    expect(rt.numBlocks).toBe(1);
  });

  it('function breakpoints and barrier watches say which one stopped', async () => {
    const rt = createDebugRuntime(seed());
    await rt.start();
    rt.setFunctionBreakpoints([{ name: 'bar' }]);
    const byArray = await rt.continue();
    expect(byArray).toMatchObject({ reason: 'phase-flip', hitBreakpoint: { kind: 'function', name: 'bar' } });
    rt.setFunctionBreakpoints([{ name: ' bar[3] ' }]);
    expect(await rt.continue()).toMatchObject({ reason: 'phase-flip', barrier: 'bar[3]', hitBreakpoint: { kind: 'function', name: ' bar[3] ' } });

    // Watches: bar[2] of block 0 exists now; block 1 does not (one block).
    const watched = createDebugRuntime(seed());
    await watched.start();
    // Nothing is initialised at entry: a watch is unverified, and still stops once its barrier exists.
    expect(watched.setBarrierWatches([{ label: 'bar[2]', block: 0 }])).toEqual([{ label: 'bar[2]', block: 0, verified: false }]);
    const first = await watched.continue();
    expect(first).toMatchObject({ reason: 'data', barrier: 'bar[2]', block: 0, oldPhase: 0, newPhase: 1, hitBreakpoint: { kind: 'data', name: 'bar[2]' } });
    expect(first.lastArriver).toMatch(/^block 0 · warp \d · lane \d+/);
    const bar2 = watched.barriers().find((b) => b.label === 'bar[2]')!;
    expect(bar2).toMatchObject({ id: '0:bar[2]', phase: 1 });
    expect(watched.setBarrierWatches([{ label: 'bar[2]', block: 1 }, { label: 'bar[7]', block: 0 }, { label: 'bar[0]', block: 0 }]).map((w) => w.verified)).toEqual([false, false, true]);
    const next = await watched.continue();
    expect(next).toMatchObject({ reason: 'data', barrier: 'bar[0]', hitBreakpoint: { kind: 'data', name: 'bar[0]' } });
    // A function breakpoint on the same barrier wins (one stop, named by the function breakpoint).
    watched.setFunctionBreakpoints([{ name: 'bar[0]' }]);
    expect(await watched.continue()).toMatchObject({ reason: 'phase-flip', barrier: 'bar[0]', hitBreakpoint: { kind: 'function', name: 'bar[0]' } });
    watched.setFunctionBreakpoints([]);
    watched.setBarrierWatches([{ label: 'bar[2]', block: 1 }]);
    expect((await watched.continue()).reason).toBe('completed');
  });
});

describe('evaluate (breakpoint conditions)', () => {
  const scope = new Map([
    ['i', 3],
    ['n', 7],
  ]);
  it('follows C precedence and integer division', () => {
    expect(evaluate('i == 3 && !(n < 5)', scope)).toBe(1);
    expect(evaluate('n / 2 + n % 4 * 2', scope)).toBe(9);
    expect(evaluate('-i + 1 || 0', scope)).toBe(1);
  });
  it('names what it cannot evaluate', () => {
    expect(() => evaluate('j > 1', scope)).toThrow(/'j' is not a number/);
    expect(() => evaluate('i ==', scope)).toThrow(/ends too early/);
    expect(() => evaluate('i $ 2', scope)).toThrow(/unexpected '\$'/);
  });
});

/** Every thread's top frame line (the displayed lane's), by thread id. */
function tops(rt: DebugRuntime): Record<number, number | undefined> {
  return Object.fromEntries(rt.threads().map((t) => [t.id, rt.frames(t.id)[0]?.loc.line]));
}

describe('DebugRuntime: single-thread steps, flip events, stop lines and the trace', () => {
  it('a single-thread step runs only that warp; a step blocked on frozen warps stops and says so; time travel replays both', async () => {
    const req = seed();
    const rt = createDebugRuntime(req);
    await rt.start();
    const first = lineOf(req, 'if (threadIdx.x < 4)');
    const sync = lineOf(req, '__syncthreads();');
    expect(tops(rt)).toEqual({ 1: first, 2: first, 3: first, 4: first });
    const history: { stop: string; tops: Record<number, number | undefined>; barriers: unknown; steps: number }[] = [];
    const snap = (stop: string) => history.push({ stop, tops: tops(rt), barriers: rt.barriers(), steps: rt.steps });
    snap('entry');

    // Lane 0 of warp 0 initialises bar[0] (threadIdx.x < 4); no other warp moves.
    const into = await rt.stepOver(1, { singleThread: true });
    expect(into).toMatchObject({ reason: 'step', thread: 1, line: lineOf(req, 'init(bar + threadIdx.x, blockDim.x)') });
    expect(tops(rt)).toEqual({ 1: into.line, 2: first, 3: first, 4: first });
    snap('init');
    const atSync = await rt.stepOver(1, { singleThread: true });
    expect(atSync).toMatchObject({ reason: 'step', thread: 1, line: sync });
    expect(tops(rt)).toEqual({ 1: sync, 2: first, 3: first, 4: first });
    // The displayed lane ran first and initialised bar[0]; its other lanes are behind it.
    expect(rt.barriers().filter((b) => b.initialized).map((b) => b.label)).toEqual(['bar[0]']);
    snap('sync');

    // __syncthreads needs the 96 frozen threads of warps 1-3.
    const stuck = await rt.stepOver(1, { singleThread: true });
    expect(stuck.reason).toBe('step');
    expect(stuck.thread).toBe(1);
    expect(stuck.line).toBe(sync);
    expect(stuck.description).toMatch(new RegExp(`^block 0 · warp 0 waits on __syncthreads.* at line ${sync + 1}, which only the other threads can release, and a single-thread step froze them: continue, or step without singleThread$`));
    // Every lane of warp 0 ran up to the sync meanwhile (lanes 0-3 initialising bar[0..3]); no other warp ran.
    expect(rt.threads().map((t) => t.status)).toEqual(['blocked', 'running', 'running', 'running']);
    expect(rt.barriers().map((b) => `${b.label}:${b.initialized}:${b.expected}`)).toEqual(['bar[0]:true:128', 'bar[1]:true:128', 'bar[2]:true:128', 'bar[3]:true:128']);
    expect(tops(rt)).toEqual({ 1: sync, 2: first, 3: first, 4: first });
    snap('stuck');

    // The same step with every warp running gets past the sync.
    const past = await rt.stepOver(1);
    expect(past.reason).toBe('step');
    expect(past.line).toBeGreaterThan(sync);
    expect(tops(rt)[2]).not.toBe(first);

    // Back through every stop: the replay of the single-thread segments lands on the same states.
    for (const want of history.reverse()) {
      const back = await rt.stepBack();
      expect(back.steps, want.stop).toBe(want.steps);
      expect({ tops: tops(rt), barriers: rt.barriers() }, want.stop).toEqual({ tops: want.tops, barriers: want.barriers });
    }
    // And forward again from the entry to the end.
    expect((await rt.continue()).reason).toBe('completed');
  });

  it('a single-thread step lands a bulk copy in flight (other warps frozen), stops on a wait only the producer can release, and steps back exactly', async () => {
    const req = ring();
    const rt = createDebugRuntime(req);
    await rt.start();
    const issue = lineOf(req, 'tma_load_1d(buf[stage], src');
    const tryWait = lineOf(req, 'mbarrier.try_wait.parity');
    const sum = lineOf(req, 'acc += buf[stage][j]');
    // Stop the producer right after it issued tile 0 (its copy is in flight, 600 cycles). Warp 0's
    // lanes run together, so its producer lane leaves the __syncthreads with them, ahead of the
    // consumer warps; a first stop before its first wait lets the consumers (behind it in time) run
    // into theirs.
    rt.setBreakpoints([{ line: lineOf(req, 'bar_wait(&slot_free[stage], phase)'), condition: 'k == 0' }]);
    expect(await rt.continue()).toMatchObject({ reason: 'breakpoint', thread: 1 });
    rt.setBreakpoints([{ line: issue + 1, condition: 'k == 0' }]);
    const issued = await rt.continue();
    expect(issued).toMatchObject({ reason: 'breakpoint', thread: 1, line: issue + 1 });
    rt.setBreakpoints([]);
    const slot = (label: string) => rt.barriers().find((b) => b.label === label)!;
    expect(rt.asyncOps()).toHaveLength(1);
    expect(rt.asyncOps()[0]).toMatchObject({ engine: 'bulk', line: lineOf(req, 'cp.async.bulk.shared::cluster') });
    expect(slot('slot_ready[0]')).toMatchObject({ phase: 0, tx: 4096 });
    // Every consumer warp waits for it inside bar_wait.
    const others = [1, 3, 4, 5];
    const shot = () => ({ steps: rt.steps, tops: tops(rt), statuses: rt.threads().map((t) => t.status), barriers: rt.barriers(), ops: rt.asyncOps(), locals: rt.locals(2, 0), caller: rt.locals(2, 1) });
    const atIssue = shot();
    expect(atIssue.tops).toEqual({ 1: issue + 1, 2: tryWait, 3: tryWait, 4: tryWait, 5: tryWait });
    const frozen = () => others.map((id) => [tops(rt)[id], rt.threads()[id - 1].status]);
    const frozenAtIssue = frozen();
    const flips = collect(rt, 'flip');
    const completions = () => rt.trace().events.filter((e) => e.kind === 'async-complete').length;
    expect(completions()).toBe(0);
    const tile0 = () => rt.sharedMemory(0).find((b) => b.name === 'buf')!.preview;
    expect(tile0().startsWith('[0, 0, 0, 0,')).toBe(true);

    // Stepping warp 1 out of bar_wait alone: the copy lands (slot_ready[0] flips, named by the copy's issuer), the wait returns and the lane reaches the sum.
    const out = await rt.stepOut(2, { singleThread: true });
    expect(out).toMatchObject({ reason: 'step', thread: 2, line: sum, description: `stepped to line ${sum + 1}` });
    expect(rt.frames(2)).toHaveLength(1);
    expect(flips.map((f) => [f.barrier, f.oldPhase, f.lastArriver])).toEqual([['slot_ready[0]', 0, 'block 0 · warp 0 · lane 0 · producer']]);
    expect(completions()).toBe(1);
    expect(rt.asyncOps()).toEqual([]);
    expect(slot('slot_ready[0]')).toMatchObject({ phase: 1, tx: 0 });
    // The producer and warps 2-4 did not move (warps 2-4 are released, not run); the copy's data is there.
    expect(frozen().map(([line]) => line)).toEqual(frozenAtIssue.map(([line]) => line));
    expect(rt.threads()[0].status).toBe('running');
    expect(tile0().startsWith('[0, 1, 2, 3,')).toBe(true);
    const afterOut = shot();
    const next = await rt.stepOver(2, { singleThread: true });
    expect(next).toMatchObject({ reason: 'step', thread: 2, line: lineOf(req, '__syncwarp();') });
    const afterNext = shot();

    // Warp 1 consumes tile 0, then waits on slot_ready[1]: nothing is in flight, only the frozen producer can issue it.
    let stop = next;
    for (let i = 0; i < 100 && !/froze/.test(stop.description); i++) stop = await rt.stepOver(2, { singleThread: true });
    expect(stop.description).toBe(`block 0 · warp 1 · consumer waits on slot_ready[1] (parity 0) at line ${tryWait + 1}, which only the other threads can release, and a single-thread step froze them: continue, or step without singleThread`);
    expect(rt.asyncOps()).toEqual([]);
    expect(tops(rt)[1]).toBe(issue + 1);

    // Back: to the stop after the step over, after the step out, to the flip in between, and to the breakpoint.
    while (rt.steps > afterNext.steps) await rt.stepBack();
    expect(shot()).toEqual(afterNext);
    expect(await rt.stepBack()).toMatchObject({ steps: afterOut.steps });
    expect(shot()).toEqual(afterOut);
    const flipBack = await rt.stepBack();
    expect(flipBack.description).toBe('back at the flip of slot_ready[0]: phase 0 → 1');
    expect(slot('slot_ready[0]').phase).toBe(1);
    expect(rt.asyncOps()).toEqual([]);
    expect(tops(rt)[2]).toBe(tryWait);
    expect(await rt.stepBack()).toMatchObject({ reason: 'step', steps: atIssue.steps });
    expect(shot()).toEqual(atIssue);
    // And forward again, every warp running: the sums are right (tile k of consumer c sums in[k·1024 + c + 128·i]).
    expect((await rt.continue()).reason).toBe('completed');
    const outBuf = rt.globals().find((b) => b.name === 'out')!;
    const want = (c: number) => {
      let acc = 0;
      for (let k = 0; k < 8; k++) for (let j = c; j < 1024; j += 128) acc += k * 1024 + j;
      return acc;
    };
    expect([0, 1, 127].map((c) => outBuf.buffer.view.getFloat32(c * 4, true))).toEqual([0, 1, 127].map((c) => Math.fround(want(c))));
  });

  it('a Croqtile single-thread step of the consumer stops on its wait for the frozen producer', async () => {
    const file = path.join(examples, 'croqtile', 'sim', 'gemm_1p1c.co');
    const req: SimulateRequest = { file, text: readFileSync(file, 'utf8'), maxSteps: 5_000_000, args: ['lhs=f16[128,512]:random(1)', 'rhs=f16[128,512]:random(2)', 'output=f16[128,128]'].map(parseArg) };
    const rt = createDebugRuntime(req);
    await rt.start();
    const wait = lineOf(req, 'wait full.at(iv_k)');
    rt.setBreakpoints([{ line: wait }]);
    const hit = await rt.continue();
    expect(hit).toMatchObject({ reason: 'breakpoint', thread: 2, line: wait });
    rt.setBreakpoints([]);
    const producer = { top: rt.frames(1)[0].loc.line, frames: rt.frames(1).map((f) => f.name) };
    const stuck = await rt.stepOver(2, { singleThread: true });
    expect(stuck).toMatchObject({ reason: 'step', thread: 2, line: wait });
    expect(stuck.description).toMatch(new RegExp(`^block 0 · wg 1 · consumer waits on full\\[0\\] .* at line ${wait + 1}, which only the other threads can release, and a single-thread step froze them`));
    expect({ top: rt.frames(1)[0].loc.line, frames: rt.frames(1).map((f) => f.name) }).toEqual(producer);
    // Without singleThread the producer delivers the tile and the consumer moves on.
    const moved = await rt.stepOver(2);
    expect(moved.reason).toBe('step');
    expect(moved.line).not.toBe(wait);
  });

  it('emits one flip event per phase flip while running and none while replaying', async () => {
    const rt = createDebugRuntime(seed());
    await rt.start();
    const flips = collect(rt, 'flip');
    rt.setFunctionBreakpoints([{ name: 'bar[3]' }]);
    const stop = await rt.continue();
    expect(stop.reason).toBe('phase-flip');
    // The stop's flip is the last event, with the same phases and last arriver.
    expect(flips[flips.length - 1]).toMatchObject({ barrier: 'bar[3]', block: 0, oldPhase: stop.oldPhase, newPhase: stop.newPhase, lastArriver: stop.lastArriver, launch: 0 });
    const seen = flips.length;
    await rt.stepBack();
    expect(flips).toHaveLength(seen);
    rt.setFunctionBreakpoints([]);
    const end = await rt.continue();
    expect(end.reason).toBe('completed');
    // Each barrier's flips go 0 → 1 → 2 … without gaps, and their total is the machine's count.
    const total = Number(/(\d+) phase flip/.exec(end.description)![1]);
    const afterBack = flips.slice(seen);
    const before = flips.slice(0, seen);
    const byBarrier = new Map<string, number[]>();
    // Stepping back rewound to the flip before the stop: the run after it repeats from there.
    const rewound = [...before.slice(0, -1), ...afterBack];
    for (const f of rewound) byBarrier.set(f.barrier, [...(byBarrier.get(f.barrier) ?? []), f.oldPhase]);
    expect(rewound).toHaveLength(total);
    for (const [label, phases] of byBarrier) expect(phases, label).toEqual(phases.map((_, i) => i));
    for (const f of rewound) expect(f.newPhase).toBe(f.oldPhase + 1);
    expect(rewound.every((f) => f.lastArriver !== undefined && f.thread !== undefined && f.line !== undefined)).toBe(true);
  });

  it("a flip stop's line is its warp's top frame; another lane's arrival is named with its line", async () => {
    const seedText = seed().text;
    const rt = createDebugRuntime(seed());
    await rt.start();
    rt.setExceptionFilters(['phase-flip']);
    let elsewhere = 0;
    for (let i = 0; i < 12; i++) {
      const stop = await rt.continue();
      expect(stop.reason).toBe('phase-flip');
      expect(stop.line).toBe(rt.frames(stop.thread!)[0].loc.line);
      const lane = Number(/lane (\d+)/.exec(stop.lastArriver!)![1]);
      const hint = /\(lane (\d+) arrived at line (\d+); ':lane (\d+)' shows it\)$/.exec(stop.description);
      if (lane === 0) {
        expect(hint).toBeNull();
        continue;
      }
      elsewhere++;
      expect(hint?.slice(1)).toEqual([String(lane), hint![2], String(lane)]);
      // The line named is that lane's arrival on the barrier that flipped (bar[0..1] are ready[], bar[2..3] filled[]).
      const array = Number(/^bar\[(\d)\]/.exec(stop.barrier!)![1]) < 2 ? 'ready' : 'filled';
      expect(seedText.split('\n')[Number(hint![2]) - 1]).toMatch(new RegExp(`${array}\\[(0|1|i % 2)\\]\\.arrive`));
    }
    // Lanes arrive in order, so the last arrival of a warp's 32 is seldom lane 0.
    expect(elsewhere).toBeGreaterThan(0);
  });

  it('trace() gives the recorded events with every thread placed by block, warp and lane', async () => {
    const rt = createDebugRuntime({ ...seed(), trace: true });
    await rt.start();
    expect(rt.trace().events).toEqual([]);
    expect((await rt.continue()).reason).toBe('completed');
    const trace = rt.trace();
    expect(trace.launches).toBe(1);
    const phases = trace.events.filter((e) => e.kind === 'phase');
    expect(phases.length).toBe(Number(/(\d+) phase flip/.exec((await rt.continue()).description)![1]));
    for (const e of trace.events) {
      const index = e.kind === 'phase' ? e.lastArriver : e.thread;
      if (index === undefined) continue;
      expect(trace.thread(index)).toMatchObject({ block: 0, warp: Math.floor(index / 32), lane: index % 32 });
    }
    expect(createDebugRuntime(seed()).trace()).toEqual({ events: [], thread: expect.any(Function), launches: 0 });
  });
});

describe('DebugRuntime on a cluster launch', () => {
  // The multicast kernel whose CTAs expect one slice too many (test/fixtures/sim/gpu/cluster; a hang on the GPU).
  const file = path.join(__dirname, '..', '..', 'fixtures', 'sim', 'gpu', 'cluster', 'bug_cluster_multicast_wrong_tx.cu');
  const req = (): SimulateRequest => ({ file, text: readFileSync(file, 'utf8'), maxSteps: 5_000_000, grid: [2, 1, 1], block: [32, 1, 1], cluster: [2, 1, 1], trace: true, args: ['in=f32[128]:random(4)', 'out=f32[256]'].map(parseArg) });

  it('names the CTA rank of every barrier in the deadlock, the Barriers view and the trace', async () => {
    const rt = createDebugRuntime(req());
    await rt.start();
    const stop = await rt.continue();
    expect(stop.reason).toBe('deadlock');
    expect(stop.description).toContain('full (CTA rank 0)');
    expect(stop.description).toContain('full (CTA rank 1)');
    expect(stop.blocked!.map((b) => b.barrier).sort()).toEqual(['full (CTA rank 0)', 'full (CTA rank 1)']);
    const views = rt.barriers().filter((b) => b.label.startsWith('full'));
    expect(views.map((b) => [b.label, b.block, b.tx])).toEqual([
      ['full (CTA rank 0)', 0, 256],
      ['full (CTA rank 1)', 1, 256],
    ]);
    // Each CTA's barrier received the complete_tx of both CTAs' multicast copies.
    const arrives = rt.trace().events.filter((e) => e.kind === 'arrive').map((e) => (e as { barrier: string }).barrier);
    expect(arrives.sort()).toEqual(['full (CTA rank 0)', 'full (CTA rank 1)']);
  });
});
