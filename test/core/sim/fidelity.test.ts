/// <reference types="vite/client" />
// Simulator fidelity against real GPUs (issue 4). Every kernel in test/fixtures/sim/gpu/ ran on an
// H100/H200 through harness/run.sh; ground-truth.json holds what happened there: completed (with
// every buffer argument's final values), hang (killed by `timeout`), fault (a CUDA error), or
// not-run (sm_100 kernels, with the outcome PTX semantics predict). This test runs each kernel on
// the simulator with the launch of its `// sim:` line and checks that it ends the same way:
//   completed → `completed` and every output buffer equal to the GPU's,
//   hang → `deadlock`, fault → `misuse` or `error`, not-run → the expected outcome.
// A fixture whose header has `// sim-expect: S1|S2 [on VAR] -- reason` is one where the simulator
// is meant to differ, for the reason given there: the silent bugs (the GPU hides them, the
// simulator reports them) and bugs where the simulator stops at the root cause before the GPU's
// hang. KNOWN_GAPS lists the kernels it does not match yet, with the reason (run as `it.fails`).
// Correct kernels must also reproduce the GPU's values under the random and adversarial schedules.
//
// Multi-file fixtures live in subfolders (headers/: kernels whose mbarrier wrappers and template ring
// cursor come from `#include "pf/mbar.cuh"`, found through the folder's compile_flags.txt): the
// simulator is given the kernel's real path and discovers the include directory by itself, as the
// harness's nvcc build was given it (`compileFlags` in ground-truth.json).
//
// Float outputs must match EXACTLY, not within an ulp: the GPU binaries are built with
// -fmad=false (no FMA contraction), so every f32 add and multiply rounds once, as the simulator's
// f32 arithmetic does; each kernel fixes its summation order; and the inputs are byte-identical
// (checked below against `materialize`). Any difference is a real fidelity bug.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { materialize, parseArg } from '../../../core/sim/args';
import { type DType, load, sizeOf } from '../../../core/sim/dtypes';
import type { Dim3 } from '../../../core/sim/machine';
import type { ArgSpec } from '../../../core/sim/run';
import { simulate } from '../../../core/simulate';

const dir = path.join(__dirname, '../../fixtures/sim/gpu');

type GpuValue = number | 'NaN' | 'Infinity' | '-Infinity';
interface GpuEntry {
  status: 'completed' | 'hang' | 'fault' | 'not-run' | 'flaky';
  error?: string;
  reason?: string;
  expected?: 'completed' | 'hang' | 'fault';
  runs?: string[];
  /** The fixture's own flags as written in its folder's compile_flags.txt (multi-file fixtures). */
  compileFlags?: string;
  outputs?: Record<string, GpuValue[]>;
}
interface GroundTruth {
  device: string;
  driver: string;
  nvcc: string;
  nvccFlags: string;
  date: string;
  kernels: Record<string, GpuEntry>;
}

const rootTruth = JSON.parse(readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as GroundTruth;

/**
 * Subfolders that carry their own `ground-truth.json` (recorded with `harness/run.sh OUT SUBFOLDER`, so a
 * new feature's fixtures are recorded without re-running the whole set): their kernels' entries come
 * from there, and their independent references from `fidelity-refs/<folder>.ts` (`REFERENCES`).
 */
const ownTruth: Record<string, GroundTruth> = Object.fromEntries(
  readdirSync(dir)
    .filter((d) => d !== 'harness' && statSync(path.join(dir, d)).isDirectory() && existsSync(path.join(dir, d, 'ground-truth.json')))
    .map((d) => [d, JSON.parse(readFileSync(path.join(dir, d, 'ground-truth.json'), 'utf8')) as GroundTruth]),
);
const folderOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '');
/** Every kernel's entry, whichever ground-truth.json recorded it. */
const truth: GroundTruth = { ...rootTruth, kernels: { ...rootTruth.kernels, ...Object.assign({}, ...Object.values(ownTruth).map((t) => t.kernels)) } };

interface Fixture {
  name: string;
  /** Relative to the fixture folder: `ring_prologue_fill.cu`, `headers/header_tma_ring.cu`. */
  file: string;
  /** The path the simulator is given: a multi-file fixture's absolute path, so its includes and compile_flags.txt are found. */
  simFile: string;
  text: string;
  kernel: string;
  grid: Dim3;
  block: Dim3;
  /** `--cluster X[,Y,Z]`: the launch's cluster attribute (cudaLaunchKernelEx in the harness). */
  cluster?: Dim3;
  dynamicSmem?: number;
  args: ArgSpec[];
  /** Simulator outcomes the header says to expect instead of the GPU's, why, and the shared variable a race must name. */
  simExpect?: { statuses: string[]; reason: string; on?: string };
}

function dim3(text: string, what: string, file: string): Dim3 {
  const parts = text.split(',').map(Number);
  if (parts.length < 1 || parts.length > 3 || parts.some((p) => !Number.isInteger(p) || p < 1)) throw new Error(`${file}: --${what} ${text} is not X[,Y[,Z]]`);
  return [parts[0], parts[1] ?? 1, parts[2] ?? 1];
}

/** Reads the `// sim:` launch line (the `phaseflip sim` options) and the `// sim-expect:` line. */
function readFixture(file: string): Fixture {
  const text = readFileSync(path.join(dir, file), 'utf8');
  const sim = /^\/\/ sim: (.*)$/m.exec(text);
  if (!sim) throw new Error(`${file}: no '// sim:' line`);
  const words = sim[1].trim().split(/\s+/);
  const simFile = file.includes('/') ? path.join(dir, file) : file;
  const fx: Fixture = { name: path.basename(file).replace(/\.cu$/, ''), file, simFile, text, kernel: '', grid: [1, 1, 1], block: [1, 1, 1], args: [] };
  for (let i = 0; i < words.length; i += 2) {
    const [flag, value] = [words[i], words[i + 1]];
    if (value === undefined) throw new Error(`${file}: '${flag}' has no value`);
    if (flag === '--kernel') fx.kernel = value;
    else if (flag === '--grid') fx.grid = dim3(value, 'grid', file);
    else if (flag === '--block') fx.block = dim3(value, 'block', file);
    else if (flag === '--cluster') fx.cluster = dim3(value, 'cluster', file);
    else if (flag === '--dynamic-smem') fx.dynamicSmem = Number(value);
    else if (flag === '--arg') fx.args.push(parseArg(value));
    else throw new Error(`${file}: unknown option '${flag}' in the sim line`);
  }
  const expectLine = /^\/\/ sim-expect: ([\w|-]+)(?: on (\w+))?\s*(?:--\s*(.*))?$/m.exec(text);
  if (expectLine) {
    // The reason may continue on the following comment lines indented by three spaces.
    const reason = [expectLine[3] ?? ''];
    for (const line of text.slice(expectLine.index + expectLine[0].length + 1).split('\n')) {
      if (!line.startsWith('//   ')) break;
      reason.push(line.slice(2).trim());
    }
    fx.simExpect = { statuses: expectLine[1].split('|'), reason: reason.join(' ').trim(), on: expectLine[2] };
  }
  return fx;
}

/** The folder's .cu files, then those of its subfolders one level down (the harness's gen.py reads the same). */
function fixtureFiles(): string[] {
  const top = readdirSync(dir).sort();
  const folders = top.filter((d) => d !== 'harness' && statSync(path.join(dir, d)).isDirectory());
  return [
    ...top.filter((f) => f.endsWith('.cu')),
    ...folders.flatMap((d) =>
      readdirSync(path.join(dir, d))
        .filter((f) => f.endsWith('.cu'))
        .sort()
        .map((f) => `${d}/${f}`),
    ),
  ];
}

const fixtures = fixtureFiles().map(readFixture);

/** What the simulator must report for a GPU outcome. */
function wantedStatuses(fx: Fixture, gpu: GpuEntry): string[] {
  if (fx.simExpect) return fx.simExpect.statuses;
  const outcome = gpu.status === 'not-run' ? gpu.expected : gpu.status;
  switch (outcome) {
    case 'completed':
      return ['completed'];
    case 'hang':
      return ['deadlock'];
    case 'fault':
      return ['misuse', 'error'];
    default:
      throw new Error(`${fx.name}: ground truth has no usable outcome (${JSON.stringify(gpu)})`);
  }
}

function gpuNumber(v: GpuValue): number {
  return v === 'NaN' ? NaN : v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v;
}

function values(bytes: Uint8Array, dtype: DType): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const es = sizeOf(dtype);
  const out: number[] = [];
  for (let off = 0; off + es <= bytes.byteLength; off += es) out.push(load(view, off, dtype));
  return out;
}

/** "out[3]: GPU 1.5, simulator 1.25" for the first few differences, or '' when equal. */
function differences(name: string, gpu: GpuValue[], sim: number[], other = 'simulator'): string {
  if (gpu.length !== sim.length) return `${name}: GPU has ${gpu.length} values, the ${other} ${sim.length}`;
  const bad: string[] = [];
  let count = 0;
  for (let i = 0; i < gpu.length; i++) {
    const g = gpuNumber(gpu[i]);
    const same = Number.isNaN(g) ? Number.isNaN(sim[i]) : g === sim[i];
    if (same) continue;
    if (++count <= 5) bad.push(`${name}[${i}]: GPU ${g}, ${other} ${sim[i]}`);
  }
  return count ? `${count} of ${gpu.length} values differ: ${bad.join('; ')}${count > 5 ? '; …' : ''}` : '';
}

function inputBuffers(fx: Fixture): Extract<ArgSpec, { kind: 'buffer' }>[] {
  // Parameters declared `const T*`: the kernel only reads them, so their GPU contents are the inputs.
  return fx.args.filter((a): a is Extract<ArgSpec, { kind: 'buffer' }> => a.kind === 'buffer' && new RegExp(`const\\s+[\\w:]+\\s*\\*\\s*(__restrict__\\s*)?${a.name}\\b`).test(fx.text));
}

describe('GPU ground truth (test/fixtures/sim/gpu)', () => {
  it('was recorded on a real Hopper GPU for every fixture', () => {
    expect(truth.device, 'ground-truth.json names the GPU').toMatch(/H100|H200/);
    expect(truth.nvccFlags).toContain('-fmad=false');
    expect(fixtures.length).toBeGreaterThanOrEqual(15);
    expect(Object.keys(rootTruth.kernels).sort(), 'one ground-truth.json entry per fixture not in a folder with its own').toEqual(fixtures.filter((f) => !ownTruth[folderOf(f.file)]).map((f) => f.name).sort());
    for (const [folder, t] of Object.entries(ownTruth)) {
      expect(t.device, `${folder}/ground-truth.json names the GPU`).toMatch(/H100|H200/);
      expect(t.nvccFlags, `${folder}/ground-truth.json`).toContain('-fmad=false');
      expect(Object.keys(t.kernels).sort(), `${folder}/ground-truth.json: one entry per fixture of the folder`).toEqual(fixtures.filter((f) => folderOf(f.file) === folder).map((f) => f.name).sort());
    }
    // A template kernel is named with its arguments (`template_pipeline_ring<4,float>`).
    for (const fx of fixtures) expect(fx.kernel.replace(/<.*>$/, ''), `${fx.file}: --kernel names the file's kernel`).toBe(fx.name);
    for (const name of Object.keys(KNOWN_GAPS)) expect(fixtures.map((fx) => fx.name), 'KNOWN_GAPS names a fixture').toContain(name);
  });

  it('has the outcomes the fixture headers describe', () => {
    for (const fx of fixtures) {
      const gpu = truth.kernels[fx.name];
      const says = /^\/\/ (?:Expected on the GPU[^:]*|expect-gpu): (completes|hang|fault)/m.exec(fx.text)?.[1];
      const isBug = /^\/\/ (SILENT )?BUG\b/m.test(fx.text);
      const expected = says === 'completes' ? 'completed' : (says ?? (isBug ? undefined : 'completed'));
      expect(expected, `${fx.file}: the header says what the GPU does`).toBeDefined();
      const seen = gpu.status === 'not-run' ? gpu.expected : gpu.status;
      expect(seen, `${fx.name}: GPU ${gpu.status}${gpu.error ? ` (${gpu.error})` : ''}, header expects ${expected}`).toBe(expected);
    }
  });

  it('ran on exactly the inputs materialize() builds (same SPEC, same bytes)', () => {
    let checked = 0;
    for (const fx of fixtures) {
      const gpu = truth.kernels[fx.name];
      if (gpu.status !== 'completed') continue;
      expect(gpu.outputs, `${fx.name}: a completed kernel has recorded outputs`).toBeDefined();
      for (const spec of inputBuffers(fx)) {
        const buf = materialize(spec, 0).buffer;
        const diff = differences(spec.name, gpu.outputs![spec.name], values(buf.bytes, spec.dtype), 'materialize()');
        expect(diff, `${fx.name}: input '${spec.text}'`).toBe('');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('completed kernels computed what the kernel means (independent JS references)', () => {
    const completed = fixtures.filter((fx) => truth.kernels[fx.name].status === 'completed' && !fx.name.startsWith('bug_')).map((fx) => fx.name).sort();
    expect(Object.keys(REFERENCES).sort(), 'one reference per correct or silently buggy kernel').toEqual(completed);
    for (const [name, reference] of Object.entries(REFERENCES)) {
      const fx = fixtures.find((f) => f.name === name)!;
      const gpu = truth.kernels[name];
      expect(gpu.status, name).toBe('completed');
      // A tensor map is not an input the references read: they compute from the buffers it views.
      const inputs = Object.fromEntries(fx.args.flatMap((a) => (a.kind === 'tensormap' ? [] : [[a.name, a.kind === 'scalar' ? [a.value] : values(materialize(a, 0).buffer.bytes, a.dtype)]])));
      for (const [out, want] of Object.entries(reference(inputs))) expect(differences(out, gpu.outputs![out], want, 'reference'), `${name}: GPU output vs reference`).toBe('');
    }
  });
});

/**
 * Kernels the simulator does not match yet, each with the reason. They run as `it.fails`: the
 * test goes red as soon as the simulator matches, so the entry is removed together with the fix.
 */
const KNOWN_GAPS: Record<string, string> = {};

describe('simulator fidelity: the simulator ends like the GPU', () => {
  for (const fx of fixtures) {
    const gpu = truth.kernels[fx.name];
    if (!gpu) continue; // reported by the ground-truth test above
    const gpuSays = gpu.status === 'not-run' ? `not run on the GPU (${gpu.reason}; PTX semantics: ${gpu.expected})` : `GPU ${gpu.status}`;
    const title = `${fx.name}: ${gpuSays} → simulator ${wantedStatuses(fx, gpu).join(' or ')}${fx.simExpect ? ' (differs on purpose)' : ''}`;
    if (gpu.status === 'flaky') {
      it.skip(`${fx.name}: the two GPU runs disagreed (${gpu.reason}), so there is no single outcome to match`, () => {});
      continue;
    }
    const gap = KNOWN_GAPS[fx.name];
    (gap ? it.fails : it)(
      gap ? `${title} [KNOWN GAP, expected to fail: ${gap}]` : title,
      async () => {
        const want = wantedStatuses(fx, gpu);
        let result;
        try {
          result = await simulate({ file: fx.simFile, text: fx.text, language: 'cuda', kernel: fx.kernel, grid: fx.grid, block: fx.block, cluster: fx.cluster, dynamicSmem: fx.dynamicSmem, args: fx.args, maxSteps: 20_000_000 });
        } catch (e) {
          throw new Error(`${fx.name}: simulate() threw instead of returning a result: ${(e as Error).message}`);
        }
        const why = fx.simExpect ? ` (expected because: ${fx.simExpect.reason})` : '';
        expect(want, `${fx.name}: ${gpuSays}${gpu.error ? ` [${gpu.error}]` : ''}; expected simulator status ${want.join(' or ')}${why}, got '${result.status}': ${result.message}`).toContain(result.status);
        if (fx.simExpect?.on && result.status === 'race') expect(result.message, `${fx.name}: the race report names the shared variable '${fx.simExpect.on}'`).toContain(`'${fx.simExpect.on}'`);
        // A fixture meant to end differently may still complete (`sim-expect: completed|race`): then its values must be the GPU's.
        if (gpu.status !== 'completed' || (fx.simExpect && result.status !== 'completed')) return;
        for (const b of result.buffers) {
          const expected = gpu.outputs?.[b.name];
          expect(expected, `${fx.name}: the GPU recorded no buffer '${b.name}'`).toBeDefined();
          expect(differences(b.name, expected!, values(b.buffer.bytes, b.dtype)), `${fx.name}: buffer '${b.name}' after the kernel, GPU vs simulator`).toBe('');
        }
        expect(result.buffers.map((b) => b.name).sort(), `${fx.name}: the simulator returns every buffer argument`).toEqual(Object.keys(gpu.outputs ?? {}).sort());
      },
      60_000,
    );
  }
});

describe('simulator fidelity: correct kernels give the GPU values under every schedule', () => {
  // A correct kernel's result cannot depend on the interleaving, so every scheduler policy must
  // reproduce the GPU's buffers (the default round-robin run is checked above).
  const schedules = [
    { schedule: 'random', seed: 1 },
    { schedule: 'random', seed: 7 },
    { schedule: 'adversarial', seed: 1 },
  ] as const;
  for (const fx of fixtures.filter((f) => truth.kernels[f.name]?.status === 'completed' && !f.simExpect && !/^\/\/ (SILENT )?BUG\b/m.test(f.text))) {
    const gpu = truth.kernels[fx.name];
    it(
      `${fx.name}: ${schedules.map((s) => `${s.schedule}(${s.seed})`).join(', ')}`,
      async () => {
        for (const { schedule, seed } of schedules) {
          const result = await simulate({ file: fx.simFile, text: fx.text, language: 'cuda', kernel: fx.kernel, grid: fx.grid, block: fx.block, cluster: fx.cluster, dynamicSmem: fx.dynamicSmem, args: fx.args, schedule, seed, maxSteps: 20_000_000 });
          expect(result.status, `${fx.name} under ${schedule} (seed ${seed}): ${result.message}`).toBe('completed');
          for (const b of result.buffers) expect(differences(b.name, gpu.outputs![b.name], values(b.buffer.bytes, b.dtype)), `${fx.name} under ${schedule} (seed ${seed}): buffer '${b.name}', GPU vs simulator`).toBe('');
        }
      },
      120_000,
    );
  }
});

describe('multi-file fixtures: the include directory from the command line or a flags file', () => {
  // The fidelity runs above find `-Iinclude` in headers/compile_flags.txt by themselves. Here the
  // same kernel runs from a copy of the folder without that file: it must fail, naming the include
  // it could not find, until the directory is given explicitly (as `phaseflip sim -I` does) or
  // the flags file is named (`--compile-commands`); then it must give the GPU's values again.
  const fx = fixtures.find((f) => f.name === 'header_tma_ring')!;
  const gpu = truth.kernels.header_tma_ring;

  it('the harness built the headers fixtures with the flags of their compile_flags.txt', () => {
    const written = readFileSync(path.join(dir, 'headers/compile_flags.txt'), 'utf8').trim().split(/\s+/).join(' ');
    for (const f of fixtures.filter((x) => x.file.startsWith('headers/'))) expect(truth.kernels[f.name].compileFlags, f.name).toBe(`${written} (headers/compile_flags.txt)`);
    expect(fixtures.filter((x) => x.file.startsWith('headers/')).length).toBeGreaterThanOrEqual(3);
  });

  it('without flags the includes are not found; -I or the flags file named explicitly brings the GPU values back', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-headers-'));
    try {
      cpSync(path.join(dir, 'headers/include'), path.join(tmp, 'include'), { recursive: true });
      const file = path.join(tmp, 'header_tma_ring.cu');
      cpSync(path.join(dir, fx.file), file);
      const base = { file, text: fx.text, language: 'cuda' as const, kernel: fx.kernel, grid: fx.grid, block: fx.block, args: fx.args, maxSteps: 20_000_000 };
      const bare = await simulate(base);
      expect(bare.status, bare.message).toBe('error');
      expect(bare.message).toContain('pf::mbar_init');
      expect(bare.message).toContain('"pf/mbar.cuh"');
      const flagsFile = path.join(dir, 'headers/compile_flags.txt');
      for (const compile of [{ includeDirs: [path.join(tmp, 'include')] }, { compileCommands: flagsFile }]) {
        const result = await simulate({ ...base, compile });
        expect(result.status, `${JSON.stringify(compile)}: ${result.message}`).toBe('completed');
        for (const b of result.buffers) expect(differences(b.name, gpu.outputs![b.name], values(b.buffer.bytes, b.dtype)), `${JSON.stringify(compile)}: buffer '${b.name}'`).toBe('');
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});

// ------------------------------------------------------------------------------------------------
// Independent references for the kernels the GPU completes: what each kernel computes, written
// from its header comment in plain JS with f32 rounding after every operation (Math.fround), in the
// kernel's order. They check the ground truth itself (a fixture kernel with an unintended bug would
// make "same outputs" meaningless), and they show that the silent bugs' GPU output looks right.

const f = Math.fround;
type Inputs = Record<string, number[]>;

function ringSum(tiles: number, consumers: number, read: (k: number, c: number) => number): number[] {
  const out: number[] = [];
  for (let c = 0; c < consumers; c++) {
    let acc = 0;
    for (let k = 0; k < tiles; k++) acc = f(acc + read(k, c));
    out.push(acc);
  }
  return out;
}

/** References of the folders with their own ground truth (`fidelity-refs/<folder>.ts` exports `REFERENCES`). */
const FOLDER_REFERENCES = Object.assign(
  {},
  ...Object.values(import.meta.glob<{ REFERENCES: Record<string, (x: Inputs) => Record<string, number[]>> }>('./fidelity-refs/*.ts', { eager: true })).map((m) => m.REFERENCES),
) as Record<string, (x: Inputs) => Record<string, number[]>>;

const REFERENCES: Record<string, (x: Inputs) => Record<string, number[]>> = {
  ...FOLDER_REFERENCES,
  ring_producer_parity1: ({ in: x, num_tiles: [n] }) => ({
    out: [0, 1].flatMap((b) => ringSum(n, 64, (k, c) => f(f(x[b * n * 32 + k * 32 + ((c + k) % 32)] * 2) * (k + 1)))),
  }),
  ring_prologue_fill: ({ in: x, num_tiles: [n] }) => ({ out: ringSum(n, 64, (k, c) => x[k * 32 + ((3 * c + k) % 32)]) }),
  template_pipeline_ring: ({ in: x, num_tiles: [n] }) => ({
    out: [0, 1].flatMap((b) => ringSum(n, 64, (k, c) => f(x[b * n * 32 + k * 32 + ((c + 2 * k) % 32)] * 3))),
  }),
  ring_consumer_prearrive: ({ in: x, num_tiles: [n] }) => ({
    out: [0, 1].flatMap((b) => ringSum(n, 64, (k, c) => f((c < 32 ? 1 : -1) * f(x[b * n * 32 + k * 32 + (c % 32)] - k)))),
  }),
  tma_ring_2stage: ({ in: x, num_tiles: [n] }) => ({ out: [0, 1].flatMap((b) => ringSum(n, 64, (k, c) => x[b * n * 32 + k * 32 + ((c * 5 + k) % 32)])) }),
  header_tma_ring: ({ in: x, num_tiles: [n] }) => ({ out: [0, 1].flatMap((b) => ringSum(n, 64, (k, c) => x[b * n * 32 + k * 32 + ((3 * c + k) % 32)])) }),
  header_template_ring: ({ in: x, num_tiles: [n] }) => ({
    out: [0, 1].flatMap((b) => ringSum(n, 64, (k, c) => f((c < 32 ? 1 : -1) * f(x[b * n * 32 + k * 32 + (c % 32)] - k)))),
  }),
  cp_async_pipeline: ({ in: x, num_tiles: [n] }) => ({ out: ringSum(n, 64, (k, c) => f(x[k * 64 + c] + x[k * 64 + 63 - c])) }),
  barrier_prodcons: ({ in: x, num_tiles: [n] }) => ({ out: ringSum(n, 64, (k, c) => f(x[k * 32 + ((c + 7 * k) % 32)] * 0.5)) }),
  split_arrive_wait: ({ in: x, num_steps: [n] }) => {
    const out = new Array<number>(128);
    for (let t = 0; t < 64; t++) {
      let local = t;
      let acc = 0;
      for (let k = 0; k < n; k++) {
        local = f(f(local * 0.75) + 1);
        acc = f(acc + x[k * 64 + ((t + 1) % 64)]);
      }
      out[t] = f(acc + local);
      out[64 + t] = local;
    }
    return { out };
  },
  vector_types: ({ in: x, iin }) => {
    // Thread i of 128: float4 i is x[4i..4i+3]; out holds float2 (x+y + the x of thread (63 - t) of its block, z*w).
    const out = new Array<number>(256).fill(0);
    for (let i = 0; i < 128; i++) {
      const b = Math.floor(i / 64);
      const t = i % 64;
      const mirror = b * 64 + (63 - t);
      out[2 * i] = f(f(x[4 * i] + x[4 * i + 1]) + x[4 * mirror]);
      out[2 * i + 1] = f(x[4 * i + 2] * x[4 * i + 3]);
    }
    // The first 64 threads repack int2 pairs (2i, 2i+1) into an int4: a.x, a.y - 1, 2 * b.x, sizeof(int4) + alignof(float2).
    const iout = new Array<number>(256).fill(0);
    for (let i = 0; i < 64; i++) iout.splice(4 * i, 4, iin[4 * i], iin[4 * i + 1] - 1, 2 * iin[4 * i + 2], 24);
    return { out, iout };
  },
  shuffle_reduce: ({ in: x }) => {
    const out = new Array<number>(10).fill(0);
    for (let b = 0; b < 2; b++) {
      const partial: number[] = [];
      for (let w = 0; w < 4; w++) {
        let v = x.slice(b * 128 + w * 32, b * 128 + w * 32 + 32);
        for (let m = 16; m >= 1; m /= 2) v = v.map((val, lane) => f(val + v[lane ^ m]));
        partial.push(v[0]);
        out[2 + b * 4 + w] = v[0];
      }
      let p = Array.from({ length: 32 }, (_, lane) => (lane < 4 ? partial[lane] : 0));
      for (let d = 2; d >= 1; d /= 2) p = p.map((val, lane) => f(val + (lane + d < 32 ? p[lane + d] : val)));
      out[b] = p[0];
    }
    return { out };
  },
  arrive_drop_early_exit: ({ in: x, num_steps: [n] }) => {
    const slot = [new Array<number>(64).fill(-1), new Array<number>(64).fill(-2)];
    const len = Array.from({ length: 64 }, (_, t) => n - (t % 4));
    const acc = new Array<number>(64).fill(0);
    for (let k = 0; k < n; k++) {
      for (let t = 0; t < 64; t++) if (k < len[t]) slot[k & 1][t] = x[k * 64 + t];
      for (let t = 0; t < 64; t++) if (k < len[t]) acc[t] = f(acc[t] + slot[k & 1][(t + 1) % 64]);
    }
    return { out: [...acc, ...len] };
  },
  completion_function: ({ in: x, num_steps: [n] }) => {
    const out = new Array<number>(132).fill(0);
    const acc = new Array<number>(128).fill(0);
    let running = 0;
    for (let k = 0; k < n; k++) {
      let sum = 0;
      for (let i = 0; i < 128; i++) sum = f(sum + x[k * 128 + i]);
      out[128 + k] = sum;
      running = f(running + sum);
      for (let t = 0; t < 128; t++) acc[t] = f(acc[t] + f(running + x[k * 128 + t]));
    }
    acc.forEach((v, t) => (out[t] = v));
    return { out };
  },
  silent_read_before_wait: ({ in: x, spin: [n] }) => {
    let work = 1;
    for (let i = 0; i < n; i++) work = f(f(work * 0.5) + 1);
    return { out: x.map((v) => f(f(v * 2) + work)) };
  },
  silent_discarded_token: ({ in: x, num_steps: [n] }) => ({ out: ringSum(n, 64, (k, t) => x[k * 64 + (t ^ 1)]) }),
};
