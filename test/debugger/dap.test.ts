// Debug adapter protocol tests: `phaseflip dap` as a real process driven by DebugClient over the
// seeds, the bug examples and the GPU fixtures. Expected stops and states come from the kernels'
// logic (which tile a flip carries, who waits on what), lines from the text on them.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES, GPU_FIXTURES, capabilities, children, collectOutput, failure, frames, launch, lineOf, nextStop, scope, startAdapter, stopAfter } from './dap-client';

const seedFile = path.join(EXAMPLES, 'seeds', 'producer_consumer_cuda_barrier.cu');
/** The CUDA guide's producer/consumer: 128 threads, warp 0 produces, N / buffer_len = 16 iterations. */
const seed = { program: seedFile, kernel: 'producer_consumer_pattern', grid: 1, block: 128, dynamicSmem: 512, args: ['N=1024', 'buffer_len=64', 'in=f32[1024]:iota', 'out=f32[1024]'] };
const ITERATIONS = 1024 / 64;

const ringFile = path.join(GPU_FIXTURES, 'tma_ring_2stage.cu');
/** Two-slot TMA ring: thread 0 produces tile k into slot k % 2 (full[k % 2]), warps 1-2 consume. */
const ring = { program: ringFile, grid: [1, 1, 1], block: '96', args: ['in=f32[256]:random(7)', 'out=f32[64]:zeros', 'num_tiles=8'] };

const bootstrapFile = path.join(EXAMPLES, 'bugs', 'producer_missing_bootstrap.cu');
const bootstrap = { program: bootstrapFile, grid: 1, block: 160, args: ['in=f32[16384]:iota', 'out=f32[128]', 'num_tiles=8'] };

let dc: DebugClient | undefined;

afterEach(async () => {
  await dc?.stop();
  dc = undefined;
});

async function adapter(): Promise<DebugClient> {
  dc = await startAdapter();
  return dc;
}

/** A local's value in a frame (the innermost binding). */
async function local(c: DebugClient, frameId: number, name: string): Promise<string | undefined> {
  return (await scope(c, frameId, 'Locals')).filter((v) => v.name === name).pop()?.value;
}

async function barriers(c: DebugClient, threadId: number): Promise<DebugProtocol.Variable[]> {
  return scope(c, (await frames(c, threadId))[0].id, 'Barriers');
}

describe('phaseflip dap: barrier breakpoints', () => {
  it('a function breakpoint on full[1] stops at each odd tile with full[1] in its new phase', async () => {
    const c = await adapter();
    let bpId = 0;
    let stop = await launch(c, ring, async (d) => {
      const r = await d.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'full[1]' }] });
      expect(r.body.breakpoints[0].verified).toBe(true);
      bpId = r.body.breakpoints[0].id!;
    });
    // 8 tiles alternate between slots: full[1] carries tiles 1, 3, 5, 7, so it completes 4 phases.
    for (let n = 1; n <= 4; n++) {
      expect(stop?.body).toMatchObject({ reason: 'function breakpoint', allThreadsStopped: true, hitBreakpointIds: [bpId] });
      expect(stop!.body.description).toMatch(new RegExp(`^full\\[1\\] completed phase ${n - 1} → phase ${n}; last arrival by `));
      const full1 = (await barriers(c, 2)).find((v) => v.name === 'full[1]')!;
      expect(full1.value).toMatch(new RegExp(`^phase ${n} · pending 1/1 · tx 0`));
      expect(await children(c, full1)).toMatchObject({ phase: String(n), parity: String(n & 1), pending: '1', expected: '1', 'tx-count': '0' });
      // The consumer warps wait for the tile this flip delivered: k = 2n - 1, slot 1.
      for (const warp of [2, 3]) {
        const fs = await frames(c, warp);
        expect(fs.map((f) => f.name)).toEqual(['mbar_try_wait', 'mbar_wait', 'tma_ring_2stage']);
        expect(fs[2].line).toBe(lineOf(ringFile, 'mbar_wait(&full[s], (k / STAGES) & 1)'));
        expect(await local(c, fs[2].id, 'k')).toBe(String(2 * n - 1));
        expect(await local(c, fs[2].id, 's')).toBe('1');
      }
      stop = await stopAfter(c, () => c.continueRequest({ threadId: stop!.body.threadId! }));
    }
    expect(stop).toBeUndefined();
  });

  it('an array name (full) stops on every slot, and the phase-flip filter on any barrier', async () => {
    const c = await adapter();
    let stop = await launch(c, ring, (d) => d.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'full' }, { name: 'no_such_barrier' }, { name: 'a b' }] }).then((r) => {
      expect(r.body.breakpoints.map((b) => b.verified)).toEqual([true, false, false]);
      expect(r.body.breakpoints[1].message).toMatch(/no barrier named 'no_such_barrier'/);
    }));
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      seen.push(/^(full\[\d\]) completed phase (\d)/.exec(stop!.body.description!)!.slice(1).join(':'));
      stop = await stopAfter(c, () => c.continueRequest({ threadId: 1 }));
    }
    // Tiles 0, 1, 2, 3 land in order: full[0] phase 0, full[1] phase 0, full[0] phase 1, full[1] phase 1.
    expect(seen).toEqual(['full[0]:0', 'full[1]:0', 'full[0]:1', 'full[1]:1']);

    await c.setFunctionBreakpointsRequest({ breakpoints: [] });
    await c.setExceptionBreakpointsRequest({ filters: ['phase-flip'] });
    stop = await stopAfter(c, () => c.continueRequest({ threadId: 1 }));
    expect(stop?.body).toMatchObject({ reason: 'exception', text: 'Phase flip' });
    expect(stop!.body.description).toMatch(/^(full|empty)\[\d\] completed phase \d → phase \d/);
    const info = await c.exceptionInfoRequest({ threadId: stop!.body.threadId! });
    expect(info.body).toMatchObject({ exceptionId: 'phase-flip', description: stop!.body.description });
  });
});

describe('phaseflip dap: deadlock', () => {
  it('the missing-bootstrap kernel stops with an exception naming each blocked warp, its barrier, parity and missing arrivals', async () => {
    const c = await adapter();
    const stop = await launch(c, bootstrap);
    expect(stop?.body).toMatchObject({ reason: 'exception', text: 'Deadlock', allThreadsStopped: true, threadId: 1 });
    const d = stop!.body.description!;
    const waitLine = lineOf(bootstrapFile, 'asm volatile("{\\n .reg .pred ok;');
    // The waits are inside the helper bar_wait: each names the kernel's call site first (kernel line ← helper line).
    const producerCall = lineOf(bootstrapFile, 'bar_wait(&slot_free[stage], phase);');
    const consumerCall = lineOf(bootstrapFile, 'bar_wait(&slot_ready[stage], phase);');
    // Only lane 0 of warp 0 produces; it waits for slot_free[0]'s phase 0, which needs all 4 consumer warps.
    expect(d).toContain(`block 0 · warp 0 (1 lane) waits on slot_free[0] (parity 0) at line ${producerCall} ← bar_wait line ${waitLine}, 4 of 4 arrivals missing`);
    // The four consumer warps wait for the first tile on slot_ready[0], which needs the producer's arrival.
    for (const w of [1, 2, 3, 4]) expect(d).toContain(`block 0 · warp ${w} (32 lanes) waits on slot_ready[0] (parity 0) at line ${consumerCall} ← bar_wait line ${waitLine}, 1 of 1 arrival missing`);
    const info = await c.exceptionInfoRequest({ threadId: 1 });
    expect(info.body.exceptionId).toBe('deadlock');
    expect(info.body.details?.message).toMatch(/^deadlock: all 129 live threads are blocked/);
    // The producer's frames point at its wait, called from the kernel's first bar_wait.
    const fs = await frames(c, 1);
    expect(fs.map((f) => [f.name, f.line])).toEqual([
      ['bar_wait', waitLine],
      ['stream_sum', lineOf(bootstrapFile, 'bar_wait(&slot_free[stage], phase);')],
    ]);
    const free0 = (await barriers(c, 1)).find((v) => v.name === 'slot_free[0]')!;
    expect(free0.value).toBe('phase 0 · pending 4/4 · tx 0 · 1 waiting');
    // Continuing a deadlocked kernel ends the session with a failure exit code.
    const exited = c.waitForEvent('exited');
    expect(await stopAfter(c, () => c.continueRequest({ threadId: 1 }))).toBeUndefined();
    expect(((await exited) as DebugProtocol.ExitedEvent).body.exitCode).toBe(1);
  });

  it("every blocked warp's top frame is its wait, on the line the deadlock description names", async () => {
    const c = await adapter();
    const stop = await launch(c, bootstrap);
    expect(stop?.body.reason).toBe('exception');
    const waits = [...stop!.body.description!.matchAll(/block 0 · warp (\d+) \(\d+ lanes?\) waits on (\S+) \(parity \d\) at line \d+ ← bar_wait line (\d+)/g)];
    expect(waits.map((w) => Number(w[1]))).toEqual([0, 1, 2, 3, 4]);
    const threads = (await c.threadsRequest()).body.threads;
    for (const [, warp, barrier, line] of waits) {
      const thread = threads.find((t) => t.name.startsWith(`block 0 · warp ${warp}`))!;
      const top = (await frames(c, thread.id))[0];
      expect([top.name, top.line], `warp ${warp} on ${barrier}`).toEqual(['bar_wait', Number(line)]);
      expect(top.source?.path).toBe(bootstrapFile);
    }
  });

  it('with the deadlock filter off the run ends and says why in the console', async () => {
    const c = await adapter();
    const output = collectOutput(c);
    const exited = c.waitForEvent('exited');
    const stop = await launch(c, bootstrap, (d) => d.setExceptionBreakpointsRequest({ filters: ['misuse', 'race'] }));
    expect(stop).toBeUndefined();
    expect(((await exited) as DebugProtocol.ExitedEvent).body.exitCode).toBe(1);
    expect(output.some((o) => o.category === 'console' && /^Phaseflip: deadlock: .*slot_free\[0\]/s.test(o.output))).toBe(true);
  });
});

describe('phaseflip dap: time travel', () => {
  it('stepBack returns to the previous flip and reverseContinue to the stop before, with identical state', async () => {
    const c = await adapter();
    const states: { description: string; barriers: string[] }[] = [];
    let stop = await launch(c, seed, (d) => d.setExceptionBreakpointsRequest({ filters: ['phase-flip'] }));
    for (let i = 0; i < 3; i++) {
      states.push({ description: stop!.body.description!, barriers: (await barriers(c, 1)).map((v) => `${v.name}=${v.value}`) });
      if (i < 2) stop = await stopAfter(c, () => c.continueRequest({ threadId: 1 }));
    }
    const flip = /^(bar\[\d\]) completed phase (\d+) → phase (\d+)/.exec(states[1].description)!;
    const back = await stopAfter(c, () => c.stepBackRequest({ threadId: 1 }));
    // A step back (DAP's reason `step`) whose description names the flip it returned to.
    expect(back?.body).toMatchObject({ reason: 'step', description: states[1].description });
    expect(back!.body.description).toMatch(new RegExp(`^${flip[1].replace(/[[\]]/g, '\\$&')} completed phase ${flip[2]} → phase ${flip[3]}`));
    expect((await barriers(c, 1)).map((v) => `${v.name}=${v.value}`)).toEqual(states[1].barriers);
    const before = await stopAfter(c, () => c.reverseContinueRequest({ threadId: 1 }));
    expect(before?.body).toMatchObject({ reason: 'exception', description: states[0].description });
    expect((await barriers(c, 1)).map((v) => `${v.name}=${v.value}`)).toEqual(states[0].barriers);
    // Forward again: the same second flip.
    const again = await stopAfter(c, () => c.continueRequest({ threadId: 1 }));
    expect(again?.body.description).toBe(states[1].description);
  });
});

describe('phaseflip dap: line breakpoints', () => {
  const produceWait = () => lineOf(seedFile, 'ready[i % 2].arrive_and_wait()');

  it('a conditional breakpoint stops the producer in the iteration it names; stepping moves it on', async () => {
    const c = await adapter();
    let ids: number[] = [];
    const stop = await launch(c, seed, async (d) => {
      const r = await d.setBreakpointsRequest({ source: { path: seedFile }, breakpoints: [{ line: produceWait(), condition: 'i == 3' }] });
      ids = r.body.breakpoints.map((b) => b.id!);
      expect(r.body.breakpoints[0]).toMatchObject({ verified: true, line: produceWait() });
    });
    expect(stop?.body).toMatchObject({ reason: 'breakpoint', threadId: 1, hitBreakpointIds: ids });
    const fs = await frames(c, 1);
    expect(fs.map((f) => [f.name, f.line])).toEqual([
      ['produce', produceWait()],
      ['producer_consumer_pattern', lineOf(seedFile, '{ produce(bar, bar + 2')],
    ]);
    expect((await c.evaluateRequest({ expression: 'i', frameId: fs[0].id, context: 'watch' })).body.result).toBe('3');
    expect((await c.evaluateRequest({ expression: 'i * 2 + threadIdx.x', frameId: fs[0].id, context: 'hover' })).body.result).toBe('6');
    const step = await stopAfter(c, () => c.nextRequest({ threadId: 1 }));
    expect(step?.body).toMatchObject({ reason: 'step', threadId: 1 });
    expect((await frames(c, 1))[0].line).toBe(lineOf(seedFile, 'barrier_t::arrival_token token = filled[i % 2].arrive()'));
  });

  it('a hit count stops on the n-th arrival and a logpoint prints every consumer iteration without stopping', async () => {
    const c = await adapter();
    const output = collectOutput(c);
    const tokenLine = lineOf(seedFile, 'barrier_t::arrival_token token3');
    const stop = await launch(c, seed, (d) =>
      d.setBreakpointsRequest({ source: { path: seedFile }, breakpoints: [{ line: produceWait(), hitCondition: '5' }, { line: tokenLine, logMessage: 'consumer warp {warp} i={i}' }] }),
    );
    expect(stop?.body).toMatchObject({ reason: 'breakpoint', threadId: 1 });
    // The producer reaches the wait once per iteration from i = 0: the fifth hit is i = 4.
    expect(await local(c, (await frames(c, 1))[0].id, 'i')).toBe('4');
    expect(await stopAfter(c, () => c.continueRequest({ threadId: 1 }))).toBeUndefined();
    const logs = output.filter((o) => /^consumer warp/.test(o.output)).map((o) => o.output.trim());
    // Lane 0 of each of the three consumer warps logs each of its iterations once.
    expect(logs.sort()).toEqual([1, 2, 3].flatMap((w) => Array.from({ length: ITERATIONS }, (_, i) => `consumer warp ${w} i=${i}`)).sort());
    expect(output.some((o) => o.category === 'console' && /^Phaseflip: completed: /.test(o.output))).toBe(true);
  });

  it('verification keeps statement lines, moves a comment line to the next statement and rejects the rest', async () => {
    const c = await adapter();
    await launch(c, { ...seed, stopOnEntry: true }, async (d) => {
      const lines = [produceWait(), lineOf(seedFile, '/* produce, i.e., fill in'), lineOf(seedFile, '__global__ void producer_consumer_pattern'), lineOf(seedFile, '#include <cuda/barrier>')];
      const r = await d.setBreakpointsRequest({ source: { path: seedFile }, breakpoints: lines.map((line) => ({ line })) });
      expect(r.body.breakpoints.map((b) => [b.verified, b.line])).toEqual([
        [true, produceWait()],
        [true, lineOf(seedFile, 'barrier_t::arrival_token token = filled[i % 2].arrive()')],
        [false, lines[2]],
        [false, lines[3]],
      ]);
      expect(r.body.breakpoints[2].message).toMatch(/no statement/);
      const other = await d.setBreakpointsRequest({ source: { path: bootstrapFile }, breakpoints: [{ line: 50 }] });
      expect(other.body.breakpoints[0]).toMatchObject({ verified: false, message: expect.stringMatching(/not part of the simulated program/) });
    });
  });
});

describe('phaseflip dap: threads, lanes and views', () => {
  it('names one thread per warp, switches the shown lane and shows all lanes of a local', async () => {
    const c = await adapter();
    const stop = await launch(c, seed, (d) => d.setBreakpointsRequest({ source: { path: seedFile }, breakpoints: [{ line: lineOf(seedFile, 'barrier_t::arrival_token token3'), condition: 'i == 2' }] }));
    expect(stop?.body.reason).toBe('breakpoint');
    const threads = (await c.threadsRequest()).body.threads;
    expect(threads.map((t) => t.id)).toEqual([1, 2, 3, 4]);
    for (const [w, t] of threads.entries()) expect(t.name).toMatch(new RegExp(`^block 0 · warp ${w}( · \\S.*)?$`));
    const warp = stop!.body.threadId!;
    let top = (await frames(c, warp))[0];
    expect(await local(c, top.id, 'lane (shown)')).toBe('0');
    const repl = await c.evaluateRequest({ expression: ':lane 5', frameId: top.id, context: 'repl' });
    expect(repl.body.result).toMatch(/^showing lane 5 of block 0 · warp /);
    top = (await frames(c, warp))[0];
    expect(await local(c, top.id, 'lane (shown)')).toBe('5');
    expect((await c.evaluateRequest({ expression: 'threadIdx.x', frameId: top.id, context: 'watch' })).body.result).toBe(String((warp - 1) * 32 + 5));
    // All consumer lanes run the loop in lockstep here: every lane of the warp is at i == 2.
    const all = await c.evaluateRequest({ expression: 'i@lanes', frameId: top.id, context: 'repl' });
    expect(all.body.result).toBe(Array.from({ length: 32 }, (_, l) => `${l}: 2`).join(', '));
    const locals = await scope(c, top.id, 'Locals');
    const laneVar = locals.find((v) => v.name === 'lane (shown)')!;
    const localsRef = (await c.scopesRequest({ frameId: top.id })).body.scopes[0].variablesReference;
    expect((await c.setVariableRequest({ variablesReference: localsRef, name: laneVar.name, value: '31' })).body.value).toBe('31');
    expect(await failure(c.setVariableRequest({ variablesReference: localsRef, name: 'i', value: '7' }))).toMatch(/'i' is read-only/);
    expect(await failure(c.evaluateRequest({ expression: ':lane 40', frameId: top.id, context: 'repl' }))).toMatch(/a lane is 0\.\.31/);
    expect(await failure(c.evaluateRequest({ expression: 'nope + 1', frameId: top.id, context: 'watch' }))).toMatch(/'nope' is not a number/);
  });

  it('shows barriers with their waiting warps, shared memory and globals in element chunks', async () => {
    const c = await adapter();
    await launch(c, seed, (d) => d.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'bar[2]' }] }));
    // bar[2] is filled[0]: every one of the 128 threads arrives once per phase; a fresh phase has none.
    const bars = await barriers(c, 1);
    expect(bars.map((b) => b.name)).toEqual(expect.arrayContaining(['bar[0]', 'bar[1]', 'bar[2]', 'bar[3]']));
    expect(bars.find((b) => b.name === 'bar[2]')!.value).toMatch(/^phase 1 · pending 128\/128 · tx 0/);
    const top = (await frames(c, 1))[0];
    const globals = await scope(c, top.id, 'Globals');
    const input = globals.find((v) => v.name === 'in')!;
    expect(input).toMatchObject({ type: 'f32[1024]', indexedVariables: 1024 });
    const chunk = await c.variablesRequest({ variablesReference: input.variablesReference, filter: 'indexed', start: 100, count: 3 });
    // `in` is iota: element i holds i.
    expect(chunk.body.variables.map((v) => [v.name, v.value])).toEqual([
      ['[100]', '100'],
      ['[101]', '101'],
      ['[102]', '102'],
    ]);
    const shared = await scope(c, top.id, 'Shared memory');
    expect(shared.map((v) => v.name)).toContain('bar');
    const evalBar = await c.evaluateRequest({ expression: 'bar[2]', frameId: top.id, context: 'hover' });
    expect(evalBar.body.result).toMatch(/^phase 1 · pending 128\/128/);
  });

  it('a data breakpoint on a barrier from the Barriers scope stops when its phase changes', async () => {
    const c = await adapter();
    await launch(c, { ...seed, stopOnEntry: false }, (d) => d.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'bar[0]' }] }));
    const top = (await frames(c, 1))[0];
    const scopes = (await c.scopesRequest({ frameId: top.id })).body.scopes;
    const barrierScope = scopes.find((s) => s.name.startsWith('Barriers'))!;
    const info = await c.dataBreakpointInfoRequest({ variablesReference: barrierScope.variablesReference, name: 'bar[3]' });
    const local = await c.dataBreakpointInfoRequest({ variablesReference: scopes[0].variablesReference, name: 'i' });
    expect(local.body.dataId).toBeNull();
    expect(info.body).toMatchObject({ dataId: '0:bar[3]', description: 'phase changes of bar[3]' });
    await c.setFunctionBreakpointsRequest({ breakpoints: [] });
    const set = await c.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId! }] });
    expect(set.body.breakpoints[0].verified).toBe(true);
    const stop = await stopAfter(c, () => c.continueRequest({ threadId: 1 }));
    expect(stop?.body).toMatchObject({ reason: 'data breakpoint', hitBreakpointIds: [set.body.breakpoints[0].id] });
    expect(stop!.body.description).toMatch(/bar\[3\]/);
  });
});

describe('phaseflip dap: single-thread stepping', () => {
  it('next with singleThread moves only that warp, stops on a wait only frozen warps can release, and steps back exactly', async () => {
    const c = await adapter();
    expect(capabilities(c).supportsSingleThreadExecutionRequests).toBe(true);
    await launch(c, { ...seed, stopOnEntry: true });
    const first = lineOf(seedFile, 'if (threadIdx.x < 4)');
    const sync = lineOf(seedFile, '__syncthreads();');
    const tops = async () => Promise.all([1, 2, 3, 4].map(async (t) => (await frames(c, t))[0].line));
    expect(await tops()).toEqual([first, first, first, first]);
    const init = await stopAfter(c, () => c.nextRequest({ threadId: 1, singleThread: true }));
    expect(init?.body).toMatchObject({ reason: 'step', threadId: 1 });
    expect(await tops()).toEqual([lineOf(seedFile, 'init(bar + threadIdx.x, blockDim.x)'), first, first, first]);
    await stopAfter(c, () => c.nextRequest({ threadId: 1, singleThread: true }));
    expect(await tops()).toEqual([sync, first, first, first]);
    const stuck = await stopAfter(c, () => c.nextRequest({ threadId: 1, singleThread: true }));
    expect(stuck?.body).toMatchObject({ reason: 'step', threadId: 1 });
    expect(stuck!.body.description).toMatch(new RegExp(`^block 0 · warp 0 waits on __syncthreads.* at line ${sync}, which only the other threads can release, and a single-thread step froze them`));
    const frozen = await tops();
    expect(frozen).toEqual([sync, first, first, first]);
    // Without singleThread every warp runs and the sync completes.
    const past = await stopAfter(c, () => c.nextRequest({ threadId: 1 }));
    expect(past?.body.reason).toBe('step');
    expect((await tops())[0]).toBeGreaterThan(sync);
    // Back (over the flips in between) to the frozen state: the replay repeats the single-thread steps.
    let back = await stopAfter(c, () => c.stepBackRequest({ threadId: 1 }));
    for (let i = 0; i < 20 && back?.body.description !== stuck!.body.description; i++) back = await stopAfter(c, () => c.stepBackRequest({ threadId: 1 }));
    expect(back?.body).toMatchObject({ reason: 'step', description: stuck!.body.description });
    expect(await tops()).toEqual(frozen);
  });
});

describe('phaseflip dap: logPhaseFlips', () => {
  const FLIP = /^(bar\[(\d)\]) \(block 0\): phase (\d+) → (\d+), last arrival by block 0 · warp (\d) · lane (\d+)(?: · \w+)?, line (\d+)\n$/;

  it('prints one console line per phase flip without stopping, naming the last arrival and its line', async () => {
    const c = await adapter();
    const output = collectOutput(c);
    const exited = c.waitForEvent('exited');
    expect(await launch(c, { ...seed, logPhaseFlips: true })).toBeUndefined();
    await exited;
    const total = Number(/(\d+) phase flip/.exec(output.find((o) => /^Phaseflip: completed/.test(o.output))!.output)![1]);
    const flips = output.filter((o) => o.category === 'console' && FLIP.test(o.output)).map((o) => FLIP.exec(o.output)!);
    expect(flips).toHaveLength(total);
    const text = readFileSync(seedFile, 'utf8').split('\n');
    const next = new Map<string, number>();
    for (const [, label, index, from, to, , , line] of flips) {
      // Each barrier's phases count up one flip at a time.
      expect([Number(from), Number(to)], label).toEqual([next.get(label) ?? 0, (next.get(label) ?? 0) + 1]);
      next.set(label, Number(to));
      // The line is an arrival on that barrier: bar[0..1] are ready[], bar[2..3] filled[].
      expect(text[Number(line) - 1], `${label} at line ${line}`).toMatch(new RegExp(`${Number(index) < 2 ? 'ready' : 'filled'}\\[(0|1|i % 2)\\]\\.arrive`));
    }
    // Every barrier flips once per iteration (plus the consumers' two bootstrap arrivals on ready[]).
    expect([...next.keys()].sort()).toEqual(['bar[0]', 'bar[1]', 'bar[2]', 'bar[3]']);
  });

  it('prints nothing of the kind by default', async () => {
    const c = await adapter();
    const output = collectOutput(c);
    const exited = c.waitForEvent('exited');
    expect(await launch(c, seed)).toBeUndefined();
    await exited;
    expect(output.some((o) => FLIP.test(o.output))).toBe(false);
  });
});

describe('phaseflip dap: bad configurations', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['unknown kernel', { ...seed, kernel: 'foo' }, /^kernel: no __global__ function 'foo' in producer_consumer_cuda_barrier\.cu \(kernels: producer_consumer_pattern\)$/],
    ['bad SPEC', { ...seed, args: ['N=1024', 'in=f99[4]'] }, /^args\[1\]: .*unknown element type 'f99'/],
    ['unknown argument', { ...seed, args: [...seed.args, 'bogus=1'] }, /^args\[4\]: argument 'bogus' is not a parameter of producer_consumer_pattern/],
    ['missing argument', { ...seed, args: ['N=1024', 'buffer_len=64', 'in=f32[1024]:iota'] }, /^args: missing argument 'out'/],
    ['number for a pointer', { ...seed, args: ['N=1024', 'buffer_len=64', 'in=5', 'out=f32[1024]'] }, /^args\[2\]: argument 'in' is a pointer/],
    ['missing file', { ...seed, program: 'nope/missing.cu' }, /^program: file not found: .*nope\/missing\.cu$/],
    ['missing npy input', { ...seed, args: ['N=1024', 'buffer_len=64', 'in=f32[1024]:file(absent.npy)', 'out=f32[1024]'] }, /^args\[2\]: file not found: .*absent\.npy$/],
    ['bad grid', { ...seed, grid: 0 }, /^grid: expected a positive integer, \[x, y, z\] or "x,y,z", got 0$/],
    ['grid text', { ...seed, grid: 'two' }, /^grid: expected/],
    ['missing block', { ...seed, block: undefined }, /^block: required for a CUDA kernel/],
    ['block too large', { ...seed, block: [64, 32, 1] }, /^block: 2048 threads per block exceeds the hardware limit of 1024$/],
    ['bad schedule', { ...seed, schedule: 'fast' }, /^schedule: expected one of round-robin, random, adversarial/],
    ['bad seed', { ...seed, seed: -1 }, /^seed: expected an integer/],
    ['bad cwd', { ...seed, cwd: '/no/such/dir' }, /^cwd: not a directory/],
    ['logPhaseFlips text', { ...seed, logPhaseFlips: 'yes' }, /^logPhaseFlips: expected true or false, got "yes"$/],
  ];

  it('every bad field fails the launch with a message naming it, and the adapter keeps answering', async () => {
    const c = await adapter();
    for (const [what, args, message] of cases) {
      const response = await new Promise<DebugProtocol.Response>((resolve) => (c as unknown as { doSend(cmd: string, a: unknown, cb: (r: DebugProtocol.Response) => void): void }).doSend('launch', args, resolve));
      expect(response.success, what).toBe(false);
      expect(response.message, what).toMatch(message);
      expect((response.body as { error?: DebugProtocol.Message }).error?.showUser, what).toBe(true);
      expect((await c.threadsRequest()).body.threads).toEqual([]);
    }
    // The same adapter still launches a good configuration afterwards.
    const stop = await launch(c, { ...seed, stopOnEntry: true });
    expect(stop?.body).toMatchObject({ reason: 'entry', threadId: 1 });
    expect((await c.threadsRequest()).body.threads).toHaveLength(4);
  });
});

describe('phaseflip dap: session', () => {
  it('pauses a kernel that spins forever, and continues afterwards', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-dap-'));
    const spin = path.join(dir, 'spin.cu');
    writeFileSync(spin, '__global__ void spin(int *out) {\n  int i = 0;\n  while (out[0] == 0) {\n    i++;\n  }\n}\n');
    const c = await adapter();
    await launch(c, { program: 'spin.cu', cwd: dir, grid: 1, block: 32, args: ['out=s32[1]'], maxSteps: 1e12, stopOnEntry: true });
    const running = nextStop(c);
    await c.continueRequest({ threadId: 1 });
    await new Promise((r) => setTimeout(r, 200));
    await c.pauseRequest({ threadId: 1 });
    expect((await running)?.body).toMatchObject({ reason: 'pause' });
    const i = Number(await local(c, (await frames(c, 1))[0].id, 'i'));
    expect(i).toBeGreaterThan(0);
    const again = nextStop(c);
    await c.continueRequest({ threadId: 1 });
    await c.pauseRequest({ threadId: 1 });
    expect((await again)?.body.reason).toBe('pause');
    expect(Number(await local(c, (await frames(c, 1))[0].id, 'i'))).toBeGreaterThan(i);
  });

  it('stops on entry, restarts and terminates', async () => {
    const c = await adapter();
    const stop = await launch(c, { ...seed, stopOnEntry: true, maxSteps: 1e9 });
    expect(stop?.body).toMatchObject({ reason: 'entry', threadId: 1 });
    const restarted = nextStop(c);
    await c.restartRequest({});
    expect((await restarted)?.body.reason).toBe('entry');
    await c.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'bar[1]' }] });
    const hit = await stopAfter(c, () => c.continueRequest({ threadId: 1 }));
    expect(hit?.body).toMatchObject({ reason: 'function breakpoint' });
    const terminated = c.waitForEvent('terminated');
    await c.terminateRequest({});
    await terminated;
  });
});
