// The compiled-program cache (core/lang/cuda/sim/compile-cache.ts): a simulate() of a kernel or a whole
// program compiled before in the process reuses its instructions, so everything a run writes must live outside them (RunStorage,
// runtime.ts). A cached run must give what a fresh compile gives: status, report, statements,
// cycles, buffers, stdout, barrier states and trace; a changed header, define or kernel compiles again;
// two launches of one compiled kernel alive together do not share state.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArg } from '../../../../core/sim/args';
import { runLaunch, type SimulateRequest, type SimulateResult } from '../../../../core/sim/run';
import { simulate } from '../../../../core/simulate';
import { clearCompiledKernels, compiledKernelStats, prepareCudaLaunch } from '../../../../core/lang/cuda/sim/index';
import { clearCompiledPrograms, compiledProgramStats } from '../../../../core/lang/cuda/sim/host-program';
import { runKernel, values } from './helpers';

const gpuDir = path.join(__dirname, '../../../fixtures/sim/gpu');
const programsDir = path.join(__dirname, '../../../fixtures/sim/programs');

/** Everything a run reports, in comparable form (buffers by checksum and bytes, the trace as JSON). */
function observed(r: SimulateResult): unknown {
  return {
    status: r.status,
    message: r.message,
    report: JSON.parse(JSON.stringify(r.report ?? null)),
    steps: r.steps,
    cycles: r.cycles,
    phaseFlips: r.phaseFlips,
    stdout: r.stdout,
    barriers: JSON.parse(JSON.stringify(r.barriers)),
    buffers: r.buffers.map((b) => ({ name: b.name, checksum: b.checksum, bytes: Buffer.from(b.buffer.bytes).toString('base64') })),
    trace: JSON.stringify(r.trace ?? null),
    threads: JSON.stringify(r.threads ?? null),
  };
}

/** The launch of a GPU fixture's `// sim:` line. */
function fixtureRequest(file: string): SimulateRequest {
  const text = readFileSync(path.join(gpuDir, file), 'utf8');
  const words = /^\/\/ sim: (.*)$/m.exec(text)![1].trim().split(/\s+/);
  const dims = (v: string) => {
    const p = v.split(',').map(Number);
    return [p[0], p[1] ?? 1, p[2] ?? 1] as [number, number, number];
  };
  const req: SimulateRequest = { file: path.join(gpuDir, file), text, args: [], trace: true, maxSteps: 2_000_000 };
  for (let i = 0; i < words.length; i += 2) {
    const [flag, v] = [words[i], words[i + 1]];
    if (flag === '--kernel') req.kernel = v;
    else if (flag === '--grid') req.grid = dims(v);
    else if (flag === '--block') req.block = dims(v);
    else if (flag === '--cluster') req.cluster = dims(v);
    else if (flag === '--dynamic-smem') req.dynamicSmem = Number(v);
    else if (flag === '--arg') req.args!.push(parseArg(v));
  }
  return req;
}

const fixtures = [
  ...readdirSync(gpuDir).filter((f) => f.endsWith('.cu')),
  ...['headers', 'tma', 'wgmma', 'cluster', 'mcast', 'memmodel'].flatMap((d) =>
    readdirSync(path.join(gpuDir, d))
      .filter((f) => f.endsWith('.cu'))
      .map((f) => `${d}/${f}`),
  ),
].sort();

describe('the compiled-program cache', () => {
  it('gives every GPU fixture the same results, reports and trace from the cache as from a fresh compile', async () => {
    expect(fixtures.length).toBeGreaterThan(60);
    for (const file of fixtures) {
      const req = fixtureRequest(file);
      clearCompiledKernels();
      const before = compiledKernelStats();
      const fresh = observed(await simulate(req));
      const again = observed(await simulate(req));
      // A second schedule through the cache, then the first again: nothing of one run leaks into the next.
      await simulate({ ...req, schedule: 'random', seed: 3 });
      const third = observed(await simulate(req));
      const after = compiledKernelStats();
      expect(again, file).toEqual(fresh);
      expect(third, file).toEqual(fresh);
      // Kernels that compile are reused (one that does not compile is compiled again each time, for its report).
      if ((fresh as { status: string }).status !== 'error') expect(after.hits - before.hits, file).toBe(3);
    }
  }, 300_000);

  it('starts every run from the variables as declared: __device__ counters, __constant__ tables, statics and string literals', async () => {
    const text = `
__device__ int counter;
__device__ int table[4] = {5, 6, 7, 8};
__constant__ int scale = 3;
__device__ int next() { static int calls = 0; return ++calls; }
__global__ void k(int *out) {
  int before = atomicAdd(&counter, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    table[0] += counter;
    out[0] = before == 0 ? counter : -1;
    out[1] = table[0] * scale;
    out[2] = next();
    printf("%s %d\\n", "literal", counter);
  }
}`;
    clearCompiledKernels();
    const runs: SimulateResult[] = [];
    for (let i = 0; i < 3; i++) runs.push(await runKernel(text, { block: [4, 1, 1], args: ['out=s32[3]'] }));
    for (const r of runs) {
      expect(r.status).toBe('completed');
      // thread 0's atomicAdd is the first under round-robin; four arrivals; 5 + 4 = 9, × 3; the static's first call.
      expect(values(r, 'out')).toEqual([4, 27, 1]);
      expect(r.stdout).toBe('literal 4\n');
    }
    expect(compiledKernelStats().hits).toBeGreaterThanOrEqual(2);
  });

  it('keeps two launches of one compiled kernel apart while both are alive (a paused debug session beside a run)', async () => {
    const text = `
__device__ unsigned long long total;
__global__ void k(unsigned long long *out, int n) {
  for (int i = 0; i < n; ++i) atomicAdd(&total, (unsigned long long)(threadIdx.x + 1));
  __syncthreads();
  if (threadIdx.x == 0) out[0] = total;
}`;
    clearCompiledKernels();
    const req: SimulateRequest = { file: 'k.cu', text, block: [64, 1, 1], args: ['out=u64[1]', 'n=50'].map(parseArg) };
    const want = observed(await simulate(req));
    const paused = await prepareCudaLaunch(req);
    expect(paused.machine.run({ untilSteps: 500 }).status).toBe('paused');
    const beside = observed(runLaunch(await prepareCudaLaunch(req), req));
    const resumed = observed(runLaunch(paused, req));
    expect(beside).toEqual(want);
    expect(resumed).toEqual(want);
    expect(values(await simulate(req), 'out')).toEqual([(50 * 64 * 65) / 2]);
  });

  it('numbers arrive sites once per compiled program: an arrive a later run reaches first is not taken for another', async () => {
    // Lane 0 arrives at one site, lane 1 (when flag) at another, in the next phase: two separate arrivals.
    // Were the second site numbered like the first, the two would read as one converged warp arrival
    // with more lanes than the phase had pending (over-arrival).
    const text = `
__global__ void k(int flag, int *out) {
  __shared__ unsigned long long bar;
  unsigned a = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(a));
  __syncthreads();
  if (threadIdx.x == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(a) : "memory");
  else if (threadIdx.x == 1 && flag) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(a) : "memory");
  out[threadIdx.x] = 1;
}`;
    clearCompiledKernels();
    const fresh = await runKernel(text, { args: ['flag=1', 'out=s32[32]'] });
    expect(fresh.status, fresh.message).toBe('completed');
    clearCompiledKernels();
    expect((await runKernel(text, { args: ['flag=0', 'out=s32[32]'] })).status).toBe('completed');
    const cached = await runKernel(text, { args: ['flag=1', 'out=s32[32]'] });
    expect(compiledKernelStats().hits).toBeGreaterThanOrEqual(1);
    expect(observed(cached)).toEqual(observed(fresh));
  });

  it('runs every whole program (host code and kernels) from the cache as from a fresh compile', async () => {
    const truth = JSON.parse(readFileSync(path.join(programsDir, 'ground-truth.json'), 'utf8')) as { programs: Record<string, { flags: string }> };
    const names = Object.keys(truth.programs);
    expect(names.length).toBeGreaterThanOrEqual(6);
    for (const name of names) {
      const file = path.join(programsDir, `${name}.cu`);
      const defines = truth.programs[name].flags.split(/\s+/).filter((f) => f.startsWith('-D')).map((f) => f.slice(2));
      const req: SimulateRequest = { file, text: readFileSync(file, 'utf8'), compile: { defines }, trace: true };
      clearCompiledPrograms();
      const s0 = compiledProgramStats();
      const fresh = observed(await simulate(req));
      const again = observed(await simulate(req));
      const third = observed(await simulate(req));
      expect(again, name).toEqual(fresh);
      expect(third, name).toEqual(fresh);
      expect(compiledProgramStats().hits - s0.hits, name).toBe(2);
    }
  }, 120_000);

  it('numbers the buffers of a cached program as a fresh compile does', async () => {
    // The kernel's function-scope static is a buffer the compile makes; an allocation's generic address
    // carries its buffer id, and the program prints two.
    const text = `#include <cstdio>
__global__ void k(int *out) { static int calls = 0; calls += 1; out[threadIdx.x] = calls; }
int main() {
  int *a, *b;
  cudaMalloc(&a, 4 * sizeof(int));
  k<<<1, 4>>>(a);
  cudaDeviceSynchronize();
  cudaMalloc(&b, 4 * sizeof(int));
  int h[4];
  cudaMemcpy(h, a, sizeof(h), cudaMemcpyDeviceToHost);
  printf("%d %d %llx %llx\\n", h[0], h[3], (unsigned long long)(size_t)a, (unsigned long long)(size_t)b);
  return 0;
}`;
    const req: SimulateRequest = { file: 'prog.cu', text };
    clearCompiledPrograms();
    const fresh = await simulate(req);
    expect(fresh.status, fresh.message).toBe('completed');
    expect(fresh.stdout).toMatch(/^4 4 [0-9a-f]+ [0-9a-f]+\n$/);
    const s0 = compiledProgramStats();
    for (let i = 0; i < 2; i++) expect(observed(await simulate(req))).toEqual(observed(fresh));
    expect(compiledProgramStats().hits).toBe(s0.hits + 2);
  });

  describe('compiles again when what the compile reads changes', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pf-cache-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const header = path.join(dir, 'scale.cuh');
    const file = path.join(dir, 'k.cu');
    const text = `#include "scale.cuh"
#if defined(BIAS)
__device__ int bias() { return 10; }
#else
__device__ int bias() { return 0; }
#endif
__global__ void k(int *out) { out[threadIdx.x] = scaled(threadIdx.x) + bias(); }
template <int N> __global__ void t(int *out) { out[threadIdx.x] = N; }`;
    const run = async (extra: Partial<SimulateRequest> = {}) => {
      const r = await simulate({ file, text, kernel: 'k', block: [4, 1, 1], args: [parseArg('out=s32[4]')], ...extra });
      expect(r.status, r.message).toBe('completed');
      return values(r, 'out');
    };

    it('an edited header, a define, another template argument', async () => {
      writeFileSync(header, '__device__ int scaled(int x) { return 2 * x; }\n');
      clearCompiledKernels();
      expect(await run()).toEqual([0, 2, 4, 6]);
      const s0 = compiledKernelStats();
      expect(await run()).toEqual([0, 2, 4, 6]);
      expect(compiledKernelStats().hits).toBe(s0.hits + 1);
      // The header edited on disk: the same request now reads another text, so it compiles again.
      writeFileSync(header, '__device__ int scaled(int x) { return 3 * x; }\n');
      expect(await run()).toEqual([0, 3, 6, 9]);
      expect(compiledKernelStats().misses).toBe(s0.misses + 1);
      // Back to the first header: the same texts as a kept compile, so it is reused.
      writeFileSync(header, '__device__ int scaled(int x) { return 2 * x; }\n');
      expect(await run()).toEqual([0, 2, 4, 6]);
      expect(compiledKernelStats().hits).toBe(s0.hits + 2);
      expect(compiledKernelStats().misses).toBe(s0.misses + 1);
      // A define given as a compile option.
      expect(await run({ compile: { defines: ['BIAS=10'] } })).toEqual([10, 12, 14, 16]);
      expect(compiledKernelStats().misses).toBe(s0.misses + 2);
      // Template arguments name another instance.
      const t = async (n: number) => values(await simulate({ file, text, kernel: `t<${n}>`, block: [4, 1, 1], args: [parseArg('out=s32[4]')] }), 'out');
      expect(await t(1)).toEqual([1, 1, 1, 1]);
      expect(await t(2)).toEqual([2, 2, 2, 2]);
      expect(compiledKernelStats().misses).toBe(s0.misses + 4);
    });

    it('keeps at most a few compiled kernels, the least recently used going first', async () => {
      writeFileSync(header, '__device__ int scaled(int x) { return x; }\n');
      clearCompiledKernels();
      // Eight requests that differ in a define (each its own compile).
      for (let b = 0; b < 8; b++) await run({ compile: { defines: [`BIAS=${b}`] } });
      expect(compiledKernelStats().size).toBeLessThanOrEqual(4);
      const s = compiledKernelStats();
      await run({ compile: { defines: ['BIAS=7'] } });
      expect(compiledKernelStats().hits).toBe(s.hits + 1);
      await run({ compile: { defines: ['BIAS=0'] } });
      expect(compiledKernelStats().misses).toBe(s.misses + 1);
    });
  });
});
