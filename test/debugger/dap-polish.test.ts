// Debugger polish of issue 18 over DAP (`phaseflip dap` as a real process): barriers in the Shared
// memory scope show their states (the Barriers view's), every blocked warp of a deadlock says what it
// waits on, misuse / race / unsupported stops are exceptions whose top frame is the source line (a
// header's when the construct is in one), reports inside helpers name the call-site chain, and the
// session's first lines say which block it runs with and where that came from.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES, children, collectEvents, collectOutput, frames, launch, lineOf, scope, startAdapter } from './dap-client';

const ringFile = path.join(EXAMPLES, 'good', 'producer_missing_bootstrap.cu');
const ring = { program: ringFile, kernel: 'stream_sum', grid: 1, block: 160, args: ['in=f32[6144]:iota', 'out=f32[128]', 'num_tiles=6'] };
const bootstrapFile = path.join(EXAMPLES, 'bugs', 'producer_missing_bootstrap.cu');

const dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-dap-polish-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let dc: DebugClient | undefined;
afterEach(async () => {
  await dc?.stop();
  dc = undefined;
});

const MBAR = `#include <cstdint>
__device__ __forceinline__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(uint64_t* b, unsigned n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(b)), "r"(n) : "memory"); }
__device__ __forceinline__ void bar_arrive(uint64_t* b) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(b)) : "memory"); }
`;

function kernelFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('phaseflip dap: barriers in shared memory', () => {
  it('the Shared memory scope shows a barrier array as the states the Barriers scope shows, never as raw words', async () => {
    const c = (dc = await startAdapter());
    const stop = await launch(c, ring, (d) => d.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'slot_ready[1]' }] }));
    const frameId = (await frames(c, stop!.body.threadId!))[0].id;
    const barriers = Object.fromEntries((await scope(c, frameId, 'Barriers')).map((v) => [v.name, v.value]));
    const shared = await scope(c, frameId, 'Shared memory');
    const free = shared.find((v) => v.name === 'slot_free')!;
    const ready = shared.find((v) => v.name === 'slot_ready')!;
    expect(free.value).toBe(`[${[0, 1, 2].map((i) => barriers[`slot_free[${i}]`]).join(', ')}]`);
    expect(ready.value).toBe(`[${[0, 1, 2].map((i) => barriers[`slot_ready[${i}]`]).join(', ')}]`);
    expect(ready.value).toMatch(/^\[phase 1 · pending 1\/1 · tx 0/);
    expect(free.type).toBe('3 barriers');
    // Expanded: one barrier per slot, each expandable to its fields like in the Barriers scope.
    const slots = (await c.variablesRequest({ variablesReference: free.variablesReference })).body.variables;
    expect(slots.map((s) => [s.name, s.value])).toEqual([0, 1, 2].map((i) => [`slot_free[${i}]`, barriers[`slot_free[${i}]`]]));
    expect(await children(c, slots[0])).toMatchObject({ initialized: 'true', expected: '4' });
    // The data buffer beside them still shows its elements.
    expect(shared.find((v) => v.name === 'buf')!.value).toMatch(/^\[/);
    // Hovering the name (what inline values and the editor hover ask) gives the states too.
    const hover = await c.evaluateRequest({ expression: 'slot_ready', frameId, context: 'hover' });
    expect(hover.body.result).toBe([0, 1, 2].map((i) => `slot_ready[${i}]: ${barriers[`slot_ready[${i}]`]}`).join('; '));
  }, 60_000);
});

describe('phaseflip dap: deadlock labels', () => {
  it('every blocked warp gets its own stop description naming its wait and the call-site chain', async () => {
    const c = (dc = await startAdapter());
    const stops = collectEvents<DebugProtocol.StoppedEvent['body']>(c, 'stopped');
    const first = await launch(c, { program: bootstrapFile, grid: 1, block: 160, args: ['in=f32[16384]:iota', 'out=f32[128]', 'num_tiles=8'] });
    expect(first?.body).toMatchObject({ reason: 'exception', threadId: 1, allThreadsStopped: true });
    const waitLine = lineOf(bootstrapFile, 'asm volatile("{\\n .reg .pred ok;');
    const consumerCall = lineOf(bootstrapFile, 'bar_wait(&slot_ready[stage], phase);');
    await new Promise((r) => setTimeout(r, 200));
    const others = stops.filter((s) => s.threadId !== 1);
    expect(others.map((s) => s.threadId).sort()).toEqual([2, 3, 4, 5]);
    for (const s of others) {
      expect(s).toMatchObject({ reason: 'exception', allThreadsStopped: false, preserveFocusHint: true, text: 'Deadlock' });
      expect(s.description).toBe(`Waits on slot_ready[0] (parity 0) at line ${consumerCall} ← bar_wait line ${waitLine}`);
    }
  }, 60_000);
});

describe('phaseflip dap: exceptions at their source line', () => {
  it('a misuse inside a helper: exception stop on the misusing lane, its top frame at the helper line, the chain in the text', async () => {
    const file = kernelFile('over.cu', `${MBAR}__global__ void k(float* out) {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) bar_init(&bar, 1);
  __syncthreads();
  if (threadIdx.x == 37 || threadIdx.x == 38) bar_arrive(&bar);   // two arrivals on a count of 1
}
`);
    const c = (dc = await startAdapter());
    const stop = await launch(c, { program: file, kernel: 'k', grid: 1, block: 64, args: ['out=f32[4]'] });
    expect(stop?.body).toMatchObject({ reason: 'exception', text: 'Barrier misuse' });
    const helperLine = lineOf(file, 'void bar_arrive(');
    const callLine = lineOf(file, 'bar_arrive(&bar);');
    expect(stop!.body.description).toMatch(new RegExp(`^barrier misuse: arrive on bar by block 0 · warp 1 · lane \\d+ at line ${callLine} ← bar_arrive line ${helperLine}: `));
    const threadId = stop!.body.threadId!;
    const fs = await frames(c, threadId);
    expect(fs[0]).toMatchObject({ name: 'bar_arrive', line: helperLine });
    expect(fs[0].source?.path).toBe(file);
    const info = await c.exceptionInfoRequest({ threadId });
    expect(info.body).toMatchObject({ exceptionId: 'misuse', breakMode: 'userUnhandled', details: { typeName: 'Barrier misuse' } });
    expect(info.body.details?.message).toMatch(/over|excess|pending/);
    // The stop shows the lane that misused the barrier.
    const lane = Number(/lane (\d+)/.exec(stop!.body.description!)![1]);
    const locals = await scope(c, fs[0].id, 'Locals');
    expect(locals.find((v) => v.name === 'lane (shown)')?.value).toBe(String(lane));
  }, 60_000);

  it('a data race: exception stop with its top frame at the racing line', async () => {
    const file = kernelFile('race.cu', `__global__ void k(float* out) {
  __shared__ float s[4];
  if (threadIdx.x == 0) s[0] = 1.0f;
  if (threadIdx.x == 32) s[0] = 2.0f;
  out[0] = s[0];
}
`);
    const c = (dc = await startAdapter());
    const stop = await launch(c, { program: file, kernel: 'k', grid: 1, block: 64, args: ['out=f32[4]'] });
    expect(stop?.body).toMatchObject({ reason: 'exception', text: 'Data race' });
    const fs = await frames(c, stop!.body.threadId!);
    const racing = /at line (\d+)/.exec(stop!.body.description!)![1];
    expect(fs[0].line).toBe(Number(racing));
    expect(fs[0].source?.path).toBe(file);
  }, 60_000);

  it('an unsupported construct in a header: the exception says so and its top frame opens the header line', async () => {
    const inc = path.join(dir, 'inc');
    mkdirSync(inc, { recursive: true });
    const header = path.join(inc, 'odd.cuh');
    writeFileSync(header, `#pragma once
__device__ int odd_helper(int x) {
  return __vibrate(x);
}
`);
    const file = kernelFile('uses-header.cu', `#include "inc/odd.cuh"
__global__ void k(float* out) {
  if (threadIdx.x == 5) out[0] = odd_helper(3);
}
`);
    const c = (dc = await startAdapter());
    const stop = await launch(c, { program: file, kernel: 'k', grid: 1, block: 64, args: ['out=f32[4]'] });
    expect(stop?.body).toMatchObject({ reason: 'exception', text: 'Error' });
    const d = stop!.body.description!;
    expect(d).toContain(`not supported by the simulator: call to '__vibrate' at line 3 ← odd_helper odd.cuh:3`);
    expect(d).toContain(`(in the header odd.cuh, ${header})`);
    const fs = await frames(c, stop!.body.threadId!);
    expect(fs[0].source?.path).toBe(header);
    expect(fs[0].line).toBe(3);
    const info = await c.exceptionInfoRequest({ threadId: stop!.body.threadId! });
    expect(info.body.description).toContain('(in the header odd.cuh');
    expect(info.body.details?.message).toContain("not supported by the simulator: call to '__vibrate'");
  }, 60_000);

  it('an unsupported PTX instruction in a header helper (an .im2col tensor copy): the stop names the header and opens its line', async () => {
    // test/fixtures/sim/unsupported-in-header: its compile_flags.txt (-Iinclude) is found by itself.
    const fixture = path.join(__dirname, '../fixtures/sim/unsupported-in-header');
    const header = path.join(fixture, 'include/tma_helpers.cuh');
    const c = (dc = await startAdapter());
    const stop = await launch(c, { program: path.join(fixture, 'im2col_in_header.cu'), kernel: 'k', grid: 1, block: 32, args: ['A=f32[4,8,32]', 't=tensormap(A,box=[32,1,1])', 'out=f32[32]'] });
    expect(stop?.body).toMatchObject({ reason: 'exception' });
    const d = stop!.body.description!;
    expect(d).toContain("not supported by the simulator: PTX instruction 'cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes' (im2col mode; only tile mode is modelled) at line 5 ← tma_im2col tma_helpers.cuh:7");
    expect(d).toContain(`(in the header tma_helpers.cuh, ${header})`);
    const fs = await frames(c, stop!.body.threadId!);
    expect(fs[0].source?.path).toBe(header);
    expect(fs[0].line).toBe(7);
  }, 60_000);
});

describe('phaseflip dap: the launch configuration at the start', () => {
  it('says the block and where it came from', async () => {
    for (const [extra, origin] of [
      [{}, 'from the launch configuration'],
      [{ blockSource: '__launch_bounds__(160)' }, 'from __launch_bounds__(160)'],
      [{ blockSource: 'the default of 128 threads (nothing in the file says how the kernel is launched)', blockDefault: true, block: 128 }, 'from the default of 128 threads (nothing in the file says how the kernel is launched) — edit "block" if the kernel expects another size'],
    ] as const) {
      const c = (dc = await startAdapter());
      const output = collectOutput(c);
      await launch(c, { ...ring, ...extra, stopOnEntry: true });
      const line = output.find((o) => o.output.startsWith('Phaseflip: launch configuration:'));
      const block = 'block' in extra ? extra.block : 160;
      expect(line?.output).toBe(`Phaseflip: launch configuration: block ${block}×1×1 ${origin}; grid 1×1×1\n`);
      await c.stop();
      dc = undefined;
    }
  }, 90_000);
});
