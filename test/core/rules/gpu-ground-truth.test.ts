// The lint rules' GPU ground truth (test/fixtures/cuda/gpu): each bug class of a rule as a runnable kernel,
// with its fixed twin, recorded on an H100 by the simulator's harness (ground-truth.json). A `bug_` kernel
// hung, faulted or computed wrong values there and the linter flags exactly its `// expect:` lines; a
// `good_` kernel completed and lints clean; and the simulator ends each one as the GPU did.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../core/sim/args';
import { load, sizeOf } from '../../../core/sim/dtypes';
import type { Dim3 } from '../../../core/sim/machine';
import type { ArgSpec } from '../../../core/sim/run';
import { simulate } from '../../../core/simulate';
import { lintCuda } from '../../helpers/engine';
import { expectations } from '../examples.test';

const dir = path.join(__dirname, '../../fixtures/cuda/gpu');

interface GpuEntry {
  status: 'completed' | 'hang' | 'fault' | 'not-run' | 'flaky';
  outputs?: Record<string, (number | string)[]>;
}
const truth = JSON.parse(readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as { device: string; kernels: Record<string, GpuEntry> };
const files = readdirSync(dir).filter((f) => f.endsWith('.cu')).sort();

function simLine(text: string, file: string): { kernel: string; grid: Dim3; block: Dim3; dynamicSmem?: number; args: ArgSpec[] } {
  const m = /^\/\/ sim: (.*)$/m.exec(text);
  if (!m) throw new Error(`${file}: no '// sim:' line`);
  const words = m[1].trim().split(/\s+/);
  const out = { kernel: '', grid: [1, 1, 1] as Dim3, block: [1, 1, 1] as Dim3, dynamicSmem: undefined as number | undefined, args: [] as ArgSpec[] };
  const dim = (v: string): Dim3 => [...v.split(',').map(Number), 1, 1].slice(0, 3) as Dim3;
  for (let i = 0; i < words.length; i += 2) {
    const [flag, value] = [words[i], words[i + 1]];
    if (flag === '--kernel') out.kernel = value;
    else if (flag === '--grid') out.grid = dim(value);
    else if (flag === '--block') out.block = dim(value);
    else if (flag === '--dynamic-smem') out.dynamicSmem = Number(value);
    else if (flag === '--arg') out.args.push(parseArg(value));
    else throw new Error(`${file}: unknown option '${flag}'`);
  }
  return out;
}

describe('lint rules on GPU ground truth (test/fixtures/cuda/gpu)', () => {
  it('was recorded on a Hopper GPU, one entry per kernel', () => {
    expect(truth.device).toMatch(/H100|H200/);
    expect(Object.keys(truth.kernels).sort()).toEqual(files.map((f) => f.replace(/\.cu$/, '')));
  });

  for (const file of files) {
    const name = file.replace(/\.cu$/, '');
    const text = readFileSync(path.join(dir, file), 'utf8');
    const gpu = truth.kernels[name];
    const said = /^\/\/ Expected on the GPU: (\w+)/m.exec(text)?.[1];
    it(`${name}: GPU ${gpu?.status}; the linter ${name.startsWith('good_') ? 'is silent' : 'flags its expect lines'}`, async () => {
      expect(gpu, `${name} has a ground-truth entry`).toBeDefined();
      if (name.startsWith('bug_')) {
        // `flaky`: the two runs disagree (a hang in one, or different wrong values): a bug either way.
        expect(['hang', 'fault', 'completed', 'flaky']).toContain(gpu.status);
        if (said) expect(gpu.status, `${name}: the header says what the GPU did`).toBe(said);
      } else if (name.startsWith('silent_')) {
        // A bug the GPU hides in this launch: it completes, and the linter reports it anyway.
        expect(gpu.status).toBe('completed');
      } else {
        expect(name.startsWith('good_'), `${name}: bug_, silent_ or good_`).toBe(true);
        expect(gpu.status).toBe('completed');
      }
      const want = expectations(text).map(([l, c]) => `${l + 1}: ${c}`);
      if (!name.startsWith('good_')) expect(want.length, `${name} marks the line the linter must flag`).toBeGreaterThan(0);
      const got = (await lintCuda(text)).map((f) => `${f.range.start.line + 1}: ${f.code}`);
      expect(got.sort()).toEqual(want.sort());
    });

    it(`${name}: the simulator ends as the GPU did`, async () => {
      const launch = simLine(text, file);
      const result = await simulate({ file, text, language: 'cuda', kernel: launch.kernel, grid: launch.grid, block: launch.block, dynamicSmem: launch.dynamicSmem, args: launch.args, maxSteps: 20_000_000 });
      // `// sim-expect: S1|S2 -- reason`: the simulator stops at the root cause before the GPU's outcome.
      const simExpect = /^\/\/ sim-expect: ([\w|-]+)/m.exec(text)?.[1].split('|');
      if (gpu.status === 'flaky') expect(simExpect, `${name}: a flaky GPU outcome needs a sim-expect line`).toBeDefined();
      const want = simExpect ?? (gpu.status === 'completed' ? ['completed'] : gpu.status === 'hang' ? ['deadlock'] : ['misuse', 'error', 'race']);
      expect(want, `${name}: GPU ${gpu.status}, simulator '${result.status}': ${result.message}`).toContain(result.status);
      if (gpu.status !== 'completed' || simExpect) return;
      for (const b of result.buffers) {
        const bytes = b.buffer.bytes;
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const sim = Array.from({ length: bytes.byteLength / sizeOf(b.dtype) }, (_, i) => load(view, i * sizeOf(b.dtype), b.dtype));
        expect(sim, `${name}: buffer '${b.name}' after the kernel, simulator vs GPU`).toEqual(gpu.outputs?.[b.name]);
      }
    }, 60_000);
  }
});
