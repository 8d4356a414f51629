// CUDA launch templates derived from kernel signatures: the block size, buffers and scalars follow
// the signature, and bad input yields no template rather than an exception.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cuda } from '../../../../core/lang/cuda';
import { parseArg } from '../../../../core/sim/args';
import { DEFAULT_BLOCK, DEFAULT_DYNAMIC_SMEM } from '../../../../core/sim/launch-template';

const EXAMPLES = path.join(__dirname, '../../../../examples');

describe('CUDA signatures', () => {
  it('takes the block from __launch_bounds__, a pointer per buffer and scalars by name', async () => {
    const text = readFileSync(path.join(EXAMPLES, 'good/producer_missing_bootstrap.cu'), 'utf8');
    const [t] = await cuda.launchTemplates(text, 'k.cu');
    expect(t).toMatchObject({ kernel: 'stream_sum', language: 'cuda', grid: [1, 1, 1], block: [160, 1, 1] });
    const lines = text.split('\n');
    expect(lines[t!.line]).toMatch(/__global__ void __launch_bounds__\(160\) stream_sum/);
    const specs = t!.args.map(parseArg);
    expect(specs.map((s) => s.name)).toEqual(['in', 'out', 'num_tiles']);
    // const input → counted up; non-const `out` → zeros; a tile count small enough to step through.
    expect(specs[0]).toMatchObject({ kind: 'buffer', dtype: 'f32', init: { kind: 'iota' } });
    expect(specs[1]).toMatchObject({ kind: 'buffer', dtype: 'f32', init: { kind: 'zeros' } });
    expect(specs[2]).toMatchObject({ kind: 'scalar' });
    expect((specs[2] as { value: number }).value).toBeGreaterThanOrEqual(2);
    expect(t!.dynamicSmem).toBeUndefined();
  });

  it('sizes buffers from a size parameter and offers dynamic shared memory to extern __shared__ kernels', async () => {
    const text = readFileSync(path.join(EXAMPLES, 'seeds/producer_consumer_cuda_barrier.cu'), 'utf8');
    const [t] = await cuda.launchTemplates(text, 'k.cu');
    const specs = Object.fromEntries(t!.args.map(parseArg).map((s) => [s.name, s]));
    const n = (specs.N as { value: number }).value;
    expect(n).toBeGreaterThan(0);
    expect((specs.in as { shape: number[] }).shape[0]).toBeGreaterThanOrEqual(n);
    expect((specs.out as { shape: number[] }).shape[0]).toBeGreaterThanOrEqual(n);
    // N / buffer_len rounds of the double buffer: at least two, so both halves are used.
    expect(n / (specs.buffer_len as { value: number }).value).toBeGreaterThanOrEqual(2);
    expect(t!.dynamicSmem).toBe(DEFAULT_DYNAMIC_SMEM);
    expect(t!.block).toEqual([DEFAULT_BLOCK, 1, 1]);
  });

  it('reads the block from a macro in __launch_bounds__ or a blockDim check', async () => {
    const viaMacro = '#define THREADS 256\n__global__ void __launch_bounds__(THREADS) k(float* out) { out[threadIdx.x] = 1.0f; }\n';
    expect((await cuda.launchTemplates(viaMacro))[0]?.block).toEqual([256, 1, 1]);
    const viaCheck = 'constexpr int kWarps = 3;\n__global__ void k(int* out) {\n  if (blockDim.x != 96) return;\n  out[threadIdx.x] = 1;\n}\n';
    expect((await cuda.launchTemplates(viaCheck))[0]?.block).toEqual([96, 1, 1]);
  });

  it('says where the block came from, and whether it is only a default', async () => {
    const source = async (text: string) => {
      const t = (await cuda.launchTemplates(text))[0]!;
      return [t.block![0], t.blockSource, t.blockDefault ?? false];
    };
    expect(await source('#define THREADS 256\n__global__ void __launch_bounds__(THREADS) k(float* out) { out[threadIdx.x] = 1.0f; }\n')).toEqual([256, '__launch_bounds__(THREADS)', false]);
    expect(await source('__global__ void k(int* out) {\n  if (blockDim.x != 96) return;\n  out[threadIdx.x] = 1;\n}\n')).toEqual([96, "the kernel's check of blockDim.x against 96", false]);
    expect(await source('constexpr int NUM_THREADS = 192;\n__global__ void k(int* out) { out[threadIdx.x] = 1; }\n')).toEqual([192, "the file's constant NUM_THREADS", false]);
    expect(await source('__global__ void k(int* out) { out[threadIdx.x] = 1; }\nvoid host(int* o) { k<<<1, 64>>>(o); }\n')).toEqual([64, 'the launch on line 2', false]);
    const [size, why, isDefault] = await source('__global__ void k(int* out) { out[threadIdx.x] = 1; }\n');
    expect([size, isDefault]).toEqual([DEFAULT_BLOCK, true]);
    expect(why).toMatch(/^the default of 128 threads \(nothing in the file says/);
  });

  it('gives GEMM dimensions and buffers that hold an M×K operand', async () => {
    const text = '__global__ void gemm(const __half* A, const __half* B, float* C, int M, int N, int K, float alpha, float beta) {}\n';
    const [t] = await cuda.launchTemplates(text);
    const specs = Object.fromEntries(t!.args.map(parseArg).map((s) => [s.name, s]));
    const dim = (n: string) => (specs[n] as { value: number }).value;
    expect((specs.A as { dtype: string }).dtype).toBe('f16');
    expect((specs.A as { init: { kind: string } }).init.kind).toBe('random');
    expect((specs.A as { shape: number[] }).shape[0]).toBeGreaterThanOrEqual(dim('M') * dim('K'));
    expect((specs.C as { shape: number[] }).shape[0]).toBeGreaterThanOrEqual(dim('M') * dim('N'));
    expect([dim('alpha'), dim('beta')]).toEqual([1, 0]);
  });

  it('marks template kernels unsupported and keeps the others', async () => {
    const text = 'template <int N> __global__ void t(float* p) {}\n__global__ void plain(float* p) { p[threadIdx.x] = 0; }\n';
    const ts = await cuda.launchTemplates(text, 'two.cu');
    expect(ts.map((t) => [t.kernel, t.unsupported !== undefined])).toEqual([
      ['t', true],
      ['plain', false],
    ]);
    expect(ts[0]!.unsupported).toMatch(/template/);
    expect(ts[0]!.line).toBe(0);
    expect(ts[1]!.line).toBe(1);
  });

  it('offers a template kernel as the instantiation the file launches, typed by its arguments', async () => {
    const text = [
      'template <int kStages, typename T = float> __global__ void ring(const T* in, T* out, int num_tiles) {}',
      'template <typename T> __global__ void twice(T* out) {}',
      'template __global__ void twice<int>(int*);',
      'template __global__ void twice<double>(double*);',
      'void host(const __half* a, __half* b) { ring<3, __half><<<1, 96>>>(a, b, 4); }',
    ].join('\n');
    const ts = await cuda.launchTemplates(text, 'tpl.cu');
    expect(ts.map((t) => [t.kernel, t.unsupported])).toEqual([
      ['ring<3, __half>', undefined],
      ['twice<int>', undefined],
    ]);
    expect(ts[0]!.block).toEqual([96, 1, 1]);
    expect(ts[0]!.args.map((a) => a.replace(/\[.*$/, ''))).toEqual(['in=f16', 'out=f16', 'num_tiles=4']);
    expect(ts[1]!.note).toMatch(/the file also instantiates twice<double>/);
    expect(ts[1]!.args[0]).toMatch(/^out=s32\[/);
  });

  it('never throws on bad input', async () => {
    for (const text of ['', '\u0000\uFFFD', '__global__ void k( {', '{'.repeat(2000), '__global__ void k(struct S s) {}']) {
      await expect(cuda.launchTemplates(text)).resolves.toBeInstanceOf(Array);
    }
  });
});

describe('cluster kernels', () => {
  it('__cluster_dims__ kernels run one cluster (the simulator reads the attribute itself); a launch attribute gives the cluster field', async () => {
    const declared = `__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(64) k(float* out) { out[threadIdx.x] = 1.0f; }`;
    const [a] = await cuda.launchTemplates(declared, 'k.cu');
    expect(a).toMatchObject({ kernel: 'k', grid: [2, 1, 1], block: [64, 1, 1] });
    expect(a!.cluster).toBeUndefined();
    const launched = [
      '__global__ void __launch_bounds__(64) k(float* out) { out[threadIdx.x] = 1.0f; }',
      'int main() {',
      '  float* out;',
      '  cudaLaunchAttribute attrs[1];',
      '  attrs[0].id = cudaLaunchAttributeClusterDimension;',
      '  attrs[0].val.clusterDim.x = 4;',
      '  attrs[0].val.clusterDim.y = 1;',
      '  attrs[0].val.clusterDim.z = 1;',
      '  cudaLaunchConfig_t config = {dim3(8), dim3(64), 0};',
      '  config.attrs = attrs;',
      '  config.numAttrs = 1;',
      '  cudaLaunchKernelEx(&config, k, out);',
      '}',
    ].join('\n');
    const [b] = await cuda.launchTemplates(launched, 'k.cu');
    expect(b).toMatchObject({ kernel: 'k', grid: [4, 1, 1], cluster: [4, 1, 1], block: [64, 1, 1] });
  });
});
