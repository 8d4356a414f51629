// Launch shapes and templates, never guessed: every source of a CUDA kernel's block size (launch APIs,
// `dim3` locals, template arguments, explicit instantiations, `// phaseflip:` comments, the kernel's own
// `blockDim.x` checks) sets the size it is analysed at; with none, findings that do not hold at every
// plausible size are information notes that say what was not known, with a fix when one size fits.
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../../core/api';
import { parseShapeComment } from '../../../../core/lang/cuda/shape-comments';
import { getEngine, lintCuda } from '../../../helpers/engine';

/** Every thread arrives on a barrier initialised for 64: correct exactly when the block has 64 threads. */
const KERNEL = `#include <cuda/barrier>
__global__ void k(float* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, 64);
  __syncthreads();
  bar.arrive_and_wait();
  out[threadIdx.x] = 1.f;
}
`;

/** The same kernel with the count a template parameter. */
const TEMPLATE = `#include <cuda/barrier>
template <int N>
__global__ void k(float* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, N);
  __syncthreads();
  bar.arrive_and_wait();
}
`;

const host = (body: string): string => `\nvoid run(float* out, cudaStream_t stream) {\n  ${body}\n}\n`;
const codes = (fs: Finding[]): string[] => fs.map((f) => `${f.code} ${f.severity}`);
const ARRIVE_LINE = 5;

/** The kernel's findings: none when `text` gives it 64 threads, the real error at arrive_and_wait at 128. */
async function expectShape(text: string, threads: 64 | 128): Promise<void> {
  const found = await lintCuda(text);
  const arrive = text.split('\n').findIndex((l) => l.includes('bar.arrive_and_wait'));
  if (threads === 64) expect(found.map((f) => `${f.range.start.line}: ${f.code} ${f.message}`)).toEqual([]);
  else expect(found.map((f) => `${f.range.start.line}: ${f.code} ${f.severity}`)).toEqual([`${arrive}: PF401 error`]);
}

async function hover(text: string, needle: string): Promise<string> {
  const doc = (await getEngine()).openDocument('cuda', text);
  doc.analyze();
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  return doc.hover({ line, character: lines[line].indexOf(needle) })?.markdown ?? '';
}

describe('the issue: a correct kernel launched with fewer threads than the guess', () => {
  it('launched with 64 threads in the file: clean', async () => {
    await expectShape(KERNEL + host('k<<<1, 64, 0, stream>>>(out);'), 64);
  });

  it('launched with 128 threads: the real error', async () => {
    await expectShape(KERNEL + host('k<<<1, 128, 0, stream>>>(out);'), 128);
  });

  it('not launched in the file: an information note that says what was not known, never a warning', async () => {
    const [note, ...rest] = await lintCuda(KERNEL);
    expect(rest).toEqual([]);
    expect(note).toMatchObject({ code: 'PF401', severity: 'information' });
    expect(note.range.start.line).toBe(ARRIVE_LINE);
    expect(note.message).toMatch(/^Depends on blockDim\.x, which is not known here/);
    expect(note.message).toMatch(/holds at a block of 128, 256, 384 and 1024 threads, not at 32 and 64/);
    expect(note.message).toMatch(/`\/\/ phaseflip: block=N`/);
  });

  it('the note offers the one size at which the kernel is clean as a `// phaseflip: block=N` comment, and the fix works', async () => {
    const [note] = await lintCuda(KERNEL);
    expect(note.fixes).toHaveLength(1);
    const [edit] = note.fixes[0].edits;
    expect(edit).toEqual({ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, newText: '// phaseflip: block=64\n' });
    const lines = KERNEL.split('\n');
    lines.splice(1, 0, edit.newText.trimEnd());
    expect(await lintCuda(lines.join('\n'))).toEqual([]);
  });

  it('no fix when no single size is clean', async () => {
    // Initialised for 64 in one barrier and 96 in another: no block size satisfies both.
    const text = KERNEL.replace('init(&bar, 64);', '{ init(&bar, 64); init(&bar2, 96); }')
      .replace('bar;\n', 'bar, bar2;\n')
      .replace('bar.arrive_and_wait();', 'bar.arrive_and_wait();\n  bar2.arrive_and_wait();');
    const found = await lintCuda(text);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((f) => f.severity === 'information')).toBe(true);
    expect(found.flatMap((f) => f.fixes)).toEqual([]);
  });

  it('a finding that holds at every plausible size stays a warning or error', async () => {
    // One arrival per thread on a barrier initialised for 1: wrong whatever the block.
    const found = await lintCuda(KERNEL.replace('init(&bar, 64)', 'init(&bar, 1)'));
    expect(codes(found)).toEqual(['PF401 error']);
  });

  it('the hover says the block size is not known and which sizes were tried', async () => {
    const md = await hover(KERNEL, 'k(float');
    expect(md).toMatch(/block size is not known here, so the analysis tries 128, 256 and 384 threads and checks 32, 64 and 1024 threads/);
    expect(md).toMatch(/information note/);
  });
});

describe('launch APIs', () => {
  it('cudaLaunchKernelEx with a brace-initialised config', async () => {
    await expectShape(KERNEL + host('cudaLaunchConfig_t config = {dim3(4), dim3(64), 0};\n  cudaLaunchKernelEx(&config, k, out);'), 64);
    await expectShape(KERNEL + host('cudaLaunchConfig_t config = {dim3(4), dim3(128), 0};\n  cudaLaunchKernelEx(&config, k, out);'), 128);
  });

  it('cudaLaunchKernelEx with designated initialisers and assigned fields', async () => {
    await expectShape(KERNEL + host('cudaLaunchConfig_t config = {.gridDim = 4, .blockDim = 64};\n  cudaLaunchKernelEx(&config, k, out);'), 64);
    await expectShape(KERNEL + host('cudaLaunchConfig_t config;\n  config.gridDim = dim3(8);\n  config.blockDim = dim3(128);\n  cudaLaunchKernelEx(&config, k, out);'), 128);
    await expectShape(KERNEL + host('cudaLaunchConfig_t config = {};\n  config.blockDim.x = 64;\n  config.blockDim.y = 1;\n  cudaLaunchKernelEx(config, k, out);'), 64);
  });

  it('a config field assigned twice is not known', async () => {
    const found = await lintCuda(KERNEL + host('cudaLaunchConfig_t config;\n  config.blockDim = dim3(64);\n  if (out) config.blockDim = dim3(128);\n  cudaLaunchKernelEx(&config, k, out);'));
    expect(codes(found)).toEqual(['PF401 information']);
  });

  it('cudaLaunchKernelEx: grid, dynamic shared memory and the cluster attribute reach the hover', async () => {
    const text = KERNEL + host(
      [
        'cudaLaunchAttribute attrs[1];',
        'attrs[0].id = cudaLaunchAttributeClusterDimension;',
        'attrs[0].val.clusterDim.x = 2;',
        'attrs[0].val.clusterDim.y = 1;',
        'attrs[0].val.clusterDim.z = 1;',
        'cudaLaunchConfig_t config = {dim3(132), dim3(64), 4096};',
        'config.attrs = attrs;',
        'config.numAttrs = 1;',
        'cudaLaunchKernelEx(&config, k, out);',
      ].join('\n  '),
    );
    const md = await hover(text, 'k(float');
    expect(md).toMatch(/analysed at a block of 64 threads, the size its launch in this file uses \(`cudaLaunchKernelEx`, line \d+\)/);
    expect(md).toMatch(/- grid: 132, from the launch/);
    expect(md).toMatch(/- cluster: \(2, 1, 1\), from the launch attribute `cudaLaunchAttributeClusterDimension`/);
    expect(md).toMatch(/- dynamic shared memory: 4096 bytes/);
  });

  it('cudaLaunchKernel and cudaLaunchCooperativeKernel with the kernel cast to void*', async () => {
    await expectShape(KERNEL + host('void* args[] = {&out};\n  cudaLaunchKernel((void*)k, dim3(1), dim3(64), args, 0, stream);'), 64);
    await expectShape(KERNEL + host('void* args[] = {&out};\n  cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&k), 1, 128, args, 0, stream);'), 128);
  });

  it('a dim3 local and a constexpr or #define constant', async () => {
    await expectShape(KERNEL + host('dim3 block(64);\n  void* args[] = {&out};\n  cudaLaunchKernel((void*)k, dim3(1), block, args, 0, stream);'), 64);
    await expectShape(`#define THREADS 128\n${KERNEL}${host('k<<<1, THREADS>>>(out);')}`.replace('\n__global__', '__global__'), 128);
    await expectShape(`constexpr int kThreads = 64;\n${KERNEL}${host('k<<<1, kThreads>>>(out);')}`.replace('\n__global__', '__global__'), 64);
  });
});

describe('template arguments', () => {
  it('bind the kernel\'s own template parameters from its launch: k<64><<<1, 64>>>', async () => {
    // Unbound, the count N is unknown and the barrier is not judged at all.
    expect(await lintCuda(TEMPLATE + host('k<64><<<1, 64>>>(out);'))).toEqual([]);
    const found = await lintCuda(TEMPLATE + host('k<64><<<1, 128>>>(out);'));
    expect(found.map((f) => `${f.range.start.line}: ${f.code} ${f.severity}`)).toEqual([`${ARRIVE_LINE + 1}: PF401 error`]);
    expect(found[0].message).toMatch(/initialised for 64/);
  });

  it('bind them from an explicit instantiation', async () => {
    const text = `${TEMPLATE}template __global__ void k<64>(float*);\n`;
    const found = await lintCuda(text.replace('template <int N>\n', 'template <int N>\n// phaseflip: block=128\n'));
    expect(found.map((f) => `${f.code} ${f.severity}`)).toEqual(['PF401 error']);
    expect(await lintCuda(text.replace('template <int N>\n', '// phaseflip: block=64\ntemplate <int N>\n'))).toEqual([]);
  });

  it('two launches with different template arguments bind nothing', async () => {
    expect(await lintCuda(TEMPLATE + host('k<64><<<1, 128>>>(out);\n  k<128><<<1, 128>>>(out);'))).toEqual([]);
  });

  it('the hover names the bound arguments', async () => {
    expect(await hover(TEMPLATE + host('k<64><<<1, 64>>>(out);'), 'k(float')).toMatch(/template arguments: N = 64/);
  });
});

describe('// phaseflip: comments', () => {
  it('above the kernel or at the top of its body set the block', async () => {
    await expectShape(KERNEL.replace('__global__', '// phaseflip: block=64\n__global__'), 64);
    await expectShape(KERNEL.replace('__global__', '// Two warps.\n// phaseflip: block=128,1,1\n__global__'), 128);
    await expectShape(KERNEL.replace('float* out) {', 'float* out) {\n  // phaseflip: block=64 grid=8').replace('bar.arrive_and_wait', 'bar.arrive_and_wait'), 64);
  });

  it('a comment separated from the kernel by code is not the kernel\'s', async () => {
    const text = KERNEL.replace('__global__', '// phaseflip: block=64\nint unrelated;\n__global__');
    expect(codes(await lintCuda(text))).toEqual(['PF401 information']);
  });

  it('win over the launches in the file (the user\'s explicit word)', async () => {
    await expectShape(KERNEL.replace('__global__', '// phaseflip: block=64\n__global__') + host('k<<<1, 128>>>(out);'), 64);
  });

  it('give grid, cluster and shared memory to the hover', async () => {
    const md = await hover(KERNEL.replace('__global__', '// phaseflip: block=64 grid=16 cluster=2 smem=1024\n__global__'), 'k(float');
    expect(md).toMatch(/analysed at a block of 64 threads, from its `\/\/ phaseflip: block=…` comment/);
    expect(md).toMatch(/- grid: 16, from the comment/);
    expect(md).toMatch(/- cluster: \(2, 1, 1\), from the `\/\/ phaseflip:` comment/);
    expect(md).toMatch(/- dynamic shared memory: 1024 bytes/);
  });

  it('parse sizes as numbers, triples, NxM and constants; anything else is not a shape comment', () => {
    const c = new Map([['kThreads', 256]]);
    expect(parseShapeComment('// phaseflip: block=128', c)).toEqual({ block: [128, 1, 1] });
    expect(parseShapeComment('// phaseflip: block = 32, 4, 1 grid=(8,2)', c)).toEqual({ block: [32, 4, 1], grid: [8, 2, 1] });
    expect(parseShapeComment('/* phaseflip: block=32x4 cluster=2 */', c)).toEqual({ block: [32, 4, 1], cluster: [2, 1, 1] });
    expect(parseShapeComment('// phaseflip: block=kThreads smem=0', c)).toEqual({ block: [256, 1, 1], smem: 0 });
    expect(parseShapeComment('// phaseflip: block=2048', c)).toBeUndefined();
    expect(parseShapeComment('// phaseflip: block=nThreads', c)).toBeUndefined();
    expect(parseShapeComment('// block=128', c)).toBeUndefined();
  });
});

describe("the kernel's own checks of blockDim.x", () => {
  it('assert(blockDim.x == N) and if (blockDim.x != N) return / __trap()', async () => {
    await expectShape(KERNEL.replace('float* out) {', 'float* out) {\n  assert(blockDim.x == 64);'), 64);
    await expectShape(KERNEL.replace('float* out) {', 'float* out) {\n  if (blockDim.x != 128) return;'), 128);
    await expectShape(KERNEL.replace('float* out) {', 'float* out) {\n  if (128 != blockDim.x) { __trap(); }'), 128);
    await expectShape(KERNEL.replace('float* out) {', 'float* out) {\n  DEVICE_ASSERT(blockDim.x == 64 && blockDim.y == 1);'), 64);
  });

  it('only direct equality checks count', async () => {
    for (const check of ['assert(blockDim.x >= 64);', 'if (blockDim.x != 64) out[0] = 0;', 'static_assert(sizeof(float) == 4);', 'assert(blockDim.x == 64); assert(blockDim.x == 128);']) {
      expect(codes(await lintCuda(KERNEL.replace('float* out) {', `float* out) {\n  ${check}`)))).toEqual(['PF401 information']);
    }
  });

  it('a launch in the file wins over the check', async () => {
    await expectShape(KERNEL.replace('float* out) {', 'float* out) {\n  assert(blockDim.x == 64);') + host('k<<<1, 128>>>(out);'), 128);
  });
});

describe('__cluster_dims__', () => {
  it('is recorded on the kernel and shown by the hover', async () => {
    // Written before `__global__`, the one place tree-sitter-cuda still sees a kernel definition after it.
    const text = KERNEL.replace('__global__ void k(', '__cluster_dims__(2, 1, 1) __global__ void k(');
    const md = await hover(text, 'k(float');
    expect(md).toMatch(/- cluster: \(2, 1, 1\), from `__cluster_dims__`/);
  });
});

describe('incremental analysis', () => {
  it('adding a comment above the kernel re-analyses it', async () => {
    const doc = (await getEngine()).openDocument('cuda', KERNEL);
    expect(codes(doc.analyze().findings)).toEqual(['PF401 information']);
    doc.update([{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: '// phaseflip: block=128\n' }]);
    expect(codes(doc.analyze().findings)).toEqual(['PF401 error']);
  });
});
