// Launch templates derived from kernel signatures: every template of every repository kernel is a
// launch the simulator accepts (it runs to completion or to a kernel finding, never to an argument,
// parse or geometry error), the derived sizes follow the signature, and bad input yields no
// template rather than an exception.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../core/sim/args';
import {
  DEFAULT_BLOCK,
  DEFAULT_DYNAMIC_SMEM,
  launchConfiguration,
  type LaunchTemplate,
  launchTemplates,
} from '../../../core/sim/launch-template';
import { simulate, type SimulateResult } from '../../../core/sim/run';

const EXAMPLES = path.join(__dirname, '../../../examples');

function files(dir: string, ext: string): string[] {
  return readdirSync(path.join(EXAMPLES, dir))
    .filter((f) => f.endsWith(ext))
    .map((f) => `${dir}/${f}`);
}

async function run(file: string, t: LaunchTemplate, maxSteps = 20_000_000): Promise<SimulateResult> {
  const text = readFileSync(path.join(EXAMPLES, file), 'utf8');
  return simulate({
    file,
    text,
    language: t.language,
    kernel: t.kernel,
    grid: t.grid,
    block: t.block,
    dynamicSmem: t.dynamicSmem,
    args: t.args.map(parseArg),
    maxSteps,
  });
}

/**
 * Statuses that mean the launch was accepted: the kernel ran and finished, showed a bug, or used up
 * the (small) step budget of this test. Argument, geometry and parse errors stop before any step.
 */
const KERNEL_OUTCOMES = ['completed', 'deadlock', 'misuse', 'race', 'step-limit'];
/**
 * double_buffer_swap.co fixes its sizes with #define (a 128×256×256 s32 matmul over 32,768 threads
 * plus a host check); a whole run takes minutes on the simulator, so only its acceptance is tested.
 */
const TOO_LONG_TO_COMPLETE = new Set(['croqtile/seeds/double_buffer_swap.co']);

describe('every template is a launch the simulator accepts', () => {
  const cuda = [...files('seeds', '.cu'), ...files('good', '.cu')];
  const croqtile = [...files('croqtile/sim', '.co'), ...files('croqtile/seeds', '.co'), ...files('croqtile/good', '.co')];

  for (const file of [...cuda, ...croqtile])
    it(file, { timeout: 60_000 }, async () => {
      const text = readFileSync(path.join(EXAMPLES, file), 'utf8');
      const templates = await launchTemplates(text, file.endsWith('.co') ? 'croqtile' : 'cuda', file);
      expect(templates.length).toBeGreaterThan(0);
      for (const t of templates) {
        expect(t.unsupported, t.kernel).toBeUndefined();
        const r = await run(file, t, 2_000_000);
        expect(KERNEL_OUTCOMES, `${t.kernel} ${t.args.join(' ')}: ${r.message}`).toContain(r.status);
      }
    });

  // The seeds and good kernels are correct: their derived launches must run to the end.
  for (const file of [...cuda, ...croqtile].filter((f) => !TOO_LONG_TO_COMPLETE.has(f)))
    it(`${file} completes`, { timeout: 60_000 }, async () => {
      const text = readFileSync(path.join(EXAMPLES, file), 'utf8');
      for (const t of await launchTemplates(text, file.endsWith('.co') ? 'croqtile' : 'cuda', file)) {
        const r = await run(file, t);
        expect(r.status, `${t.kernel}: ${r.message}`).toBe('completed');
      }
    });

  it('hanging bug examples deadlock with the derived launch (CUDA and Croqtile)', { timeout: 60_000 }, async () => {
    for (const file of ['bugs/producer_missing_bootstrap.cu', 'bugs/token_wrong_barrier.cu', 'croqtile/bugs/missing_bootstrap.co']) {
      const [t] = await launchTemplates(readFileSync(path.join(EXAMPLES, file), 'utf8'), file.endsWith('.co') ? 'croqtile' : 'cuda', file);
      const r = await run(file, t!);
      expect(r.status, `${file}: ${r.message}`).toBe('deadlock');
    }
  });
});

describe('CUDA signatures', () => {
  it('takes the block from __launch_bounds__, a pointer per buffer and scalars by name', async () => {
    const text = readFileSync(path.join(EXAMPLES, 'good/producer_missing_bootstrap.cu'), 'utf8');
    const [t] = await launchTemplates(text, 'cuda', 'k.cu');
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
    const [t] = await launchTemplates(text, 'cuda', 'k.cu');
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
    expect((await launchTemplates(viaMacro, 'cuda'))[0]?.block).toEqual([256, 1, 1]);
    const viaCheck = 'constexpr int kWarps = 3;\n__global__ void k(int* out) {\n  if (blockDim.x != 96) return;\n  out[threadIdx.x] = 1;\n}\n';
    expect((await launchTemplates(viaCheck, 'cuda'))[0]?.block).toEqual([96, 1, 1]);
  });

  it('gives GEMM dimensions and buffers that hold an M×K operand', async () => {
    const text = '__global__ void gemm(const __half* A, const __half* B, float* C, int M, int N, int K, float alpha, float beta) {}\n';
    const [t] = await launchTemplates(text, 'cuda');
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
    const ts = await launchTemplates(text, 'cuda', 'two.cu');
    expect(ts.map((t) => [t.kernel, t.unsupported !== undefined])).toEqual([
      ['t', true],
      ['plain', false],
    ]);
    expect(ts[0]!.unsupported).toMatch(/template/);
    expect(ts[0]!.line).toBe(0);
    expect(ts[1]!.line).toBe(1);
  });

  it('never throws on bad input', async () => {
    for (const text of ['', '\u0000\uFFFD', '__global__ void k( {', '{'.repeat(2000), '__global__ void k(struct S s) {}']) {
      await expect(launchTemplates(text, 'cuda')).resolves.toBeInstanceOf(Array);
      await expect(launchTemplates(text, 'croqtile')).resolves.toBeInstanceOf(Array);
    }
  });
});

describe('Croqtile signatures', () => {
  it('makes symbolic dimensions whole multiples of their tiles and loops long enough to wrap the ring', async () => {
    const text = readFileSync(path.join(EXAMPLES, 'croqtile/sim/gemm_1p1c.co'), 'utf8');
    const [t] = await launchTemplates(text, 'croqtile', 'g.co');
    expect(t).toMatchObject({ kernel: 'gemm_1p1c', language: 'croqtile' });
    expect(t!.grid).toBeUndefined();
    const [lhs, rhs, output] = t!.args.map(parseArg) as { shape: number[]; init: { kind: string } }[];
    const [M, K] = lhs!.shape;
    expect(M! % 128).toBe(0); // TILE_M
    expect(K! % 64).toBe(0); // TILE_K
    expect(K! / 64).toBeGreaterThanOrEqual(2 * 2); // two passes over STAGES = 2
    expect(rhs!.shape[1]).toBe(K); // the shared K binds consistently
    expect(output!.shape).toEqual([M, rhs!.shape[0]]);
    expect(output!.init.kind).toBe('zeros');
    expect(lhs!.init.kind).toBe('random');
  });

  it('evaluates #define dimensions and gives parameterless programs no args', async () => {
    const swap = readFileSync(path.join(EXAMPLES, 'croqtile/seeds/double_buffer_swap.co'), 'utf8');
    const [t] = await launchTemplates(swap, 'croqtile');
    expect(t!.args.map(parseArg).map((s) => (s as { shape: number[] }).shape)).toEqual([
      [128, 256],
      [256, 256],
    ]);
    const selfinit = readFileSync(path.join(EXAMPLES, 'croqtile/sim/gemm_selfinit.co'), 'utf8');
    expect((await launchTemplates(selfinit, 'croqtile'))[0]).toMatchObject({ kernel: 'gemm_selfinit', args: [] });
  });
});

describe('launchConfiguration', () => {
  it('writes one-dimensional geometry as numbers and copies the args', () => {
    const t: LaunchTemplate = { kernel: 'k', language: 'cuda', line: 3, grid: [1, 1, 1], block: [32, 4, 1], args: ['n=4'], dynamicSmem: 1024 };
    const c = launchConfiguration(t, '/w/k.cu');
    expect(c).toEqual({ type: 'phaseflip', request: 'launch', name: 'Debug k', program: '/w/k.cu', kernel: 'k', grid: 1, block: [32, 4, 1], args: ['n=4'], dynamicSmem: 1024 });
    c.args.push('x=1');
    expect(t.args).toEqual(['n=4']);
  });
});
