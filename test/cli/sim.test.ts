// `phaseflip sim` (cli/sim.ts), run in-process. The language executors are still being built, so
// most tests inject a fake `simulate` (test/cli/fake-simulate.ts) that runs scripted kernels on a
// real Machine: the barrier states, checksums, reports and trace events are the runtime's own.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/cli';
import { SIM_HELP, exitCodeFor, outcomeOf, runSim, type SimDeps } from '../../cli/sim';
import { load } from '../../core/sim/dtypes';
import { SimError } from '../../core/sim/machine';
import { Buffer as SimBuffer, checksum } from '../../core/sim/memory';
import { parseNpy, toNpy } from '../../core/sim/npy';
import type { SimulateRequest } from '../../core/sim/run';
import { fakeSimulate } from './fake-simulate';
const ROOT = path.join(__dirname, '..', '..');

// Created while the test tables are collected: they name files in it.
const dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-sim-'));
const at = (name: string) => path.join(dir, name);

beforeAll(() => {
  writeFileSync(at('k.cu'), '__global__ void k(float* out) {}\n');
  writeFileSync(at('p.co'), '__co__ void p() {}\n');
  writeFileSync(at('notes.txt'), 'not a kernel');
  mkdirSync(at('out'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** Requests the fake simulator received. */
  seen: SimulateRequest[];
}

async function sim(argv: string[], deps: SimDeps & { streamPrints?: boolean } = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const seen: SimulateRequest[] = [];
  const code = await runSim(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) }, { simulate: fakeSimulate({ streamPrints: deps.streamPrints, seen }), ...deps });
  return { code, stdout, stderr, seen };
}

/** A CUDA launch of a fake kernel with a 64-float output buffer. */
const launch = (kernel: string, ...more: string[]) => [at('k.cu'), '--kernel', kernel, '--grid', '1', '--block', '64', '--arg', 'out=f32[64]', ...more];

interface JsonResult {
  status: string;
  message: string;
  details: { kind: string; blocked?: unknown[]; missing?: { barrier: string; pending: number }[] } | null;
  phaseFlips: number;
  cycles: number;
  steps: number;
  barriers: { label: string; block: number; phase: number; pending: number; expected: number; tx: number; initialized: boolean; waiting: { thread: number; parity?: number }[] }[];
  buffers: { name: string; dtype: string; shape: number[]; checksum: string }[];
  stdout: string;
}

describe('phaseflip sim --help', () => {
  it('documents every flag, the JSON keys, the exit codes and three examples', async () => {
    const r = await sim(['--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--kernel NAME', '--grid X[,Y,Z]', '--block X[,Y,Z]', '--cluster X[,Y,Z]', '--arg NAME=SPEC', '--dynamic-smem BYTES', '--seed N', '--schedule POLICY', 'round-robin', 'random', 'adversarial', '--max-steps N', '--json', '--trace FILE', '--dump NAME=FILE.npy']) {
      expect(r.stdout).toContain(flag);
    }
    for (const key of ['status', 'message', 'details', 'phaseFlips', 'cycles', 'steps', 'barriers', 'buffers', 'stdout']) expect(r.stdout).toMatch(new RegExp(`^  ${key} `, 'm'));
    expect(r.stdout).toContain('Exit status: 0 completed; 1 the kernel is wrong');
    const examples = r.stdout.slice(r.stdout.indexOf('Examples:'));
    expect(examples.match(/^ {2}phaseflip sim /gm)).toHaveLength(3);
  });

  it('is reachable through the main command line, which lists it', async () => {
    let out = '';
    const io = { stdout: (s: string) => void (out += s), stderr: () => undefined };
    expect(await main(['sim', '--help'], io)).toBe(0);
    expect(out).toBe(SIM_HELP);
    out = '';
    expect(await main(['--help'], io)).toBe(0);
    expect(out).toContain('phaseflip sim FILE [options]');
  });
});

describe('bad arguments exit 2 before anything runs', () => {
  const cases: [string, string[], RegExp][] = [
    ['no file', ['--grid', '1', '--block', '32'], /no file given/],
    ['two files', [at('k.cu'), at('p.co')], /sim runs one file, got 2/],
    ['unknown extension', [at('notes.txt')], /don't know how to simulate .*notes\.txt: expected a \.cu, \.cuh or \.co file/],
    ['CUDA without geometry', [at('k.cu')], /a CUDA launch needs --grid and --block/],
    ['CUDA without --block', [at('k.cu'), '--grid', '2'], /a CUDA launch needs --block \(e\.g\./],
    ['zero grid', [at('k.cu'), '--grid', '0', '--block', '32'], /--grid expects X\[,Y,Z\] with positive integers, got '0'/],
    ['four dimensions', [at('k.cu'), '--grid', '1,2,3,4', '--block', '32'], /--grid expects X\[,Y,Z\]/],
    ['letters in --block', [at('k.cu'), '--grid', '1', '--block', 'many'], /--block expects X\[,Y,Z\]/],
    ['too many threads', [at('k.cu'), '--grid', '1', '--block', '64,32'], /2048 threads per block exceeds the hardware limit of 1024/],
    ['a cluster that does not divide the grid', [at('k.cu'), '--grid', '3', '--block', '32', '--cluster', '2'], /bad launch configuration: grid 3,1,1 is not a whole number of 2x1x1 clusters/],
    ['letters in --cluster', [at('k.cu'), '--grid', '2', '--block', '32', '--cluster', 'two'], /--cluster expects X\[,Y,Z\] with positive integers, got 'two'/],
    ['too much shared memory', [at('k.cu'), '--grid', '1', '--block', '32', '--dynamic-smem', '1000000'], /dynamic shared memory 1000000 bytes is outside/],
    ['unknown schedule', [at('k.cu'), '--schedule', 'fair'], /unknown schedule 'fair': expected one of round-robin, random, adversarial/],
    ['zero --max-steps', [at('k.cu'), '--max-steps', '0'], /--max-steps expects a positive integer, got '0'/],
    ['unknown --latency', [at('k.cu'), '--latency', 'dram=400'], /--latency 'dram=400': expected OP=CYCLES with OP one of statement, bulkCopy, cpAsync, mma, tcgen05/],
    ['negative --latency', [at('k.cu'), '--latency', 'mma=-1'], /--latency mma expects a non-negative integer, got '-1'/],
    ['negative --seed', [at('k.cu'), '--seed', '-1'], /--seed expects a non-negative integer up to 4294967295, got '-1'/],
    ['fractional --dynamic-smem', [at('k.cu'), '--dynamic-smem', '1.5'], /--dynamic-smem expects a non-negative integer/],
    ['--arg without =', [at('k.cu'), '--arg', 'out'], /--arg 'out': expected NAME=SPEC/],
    ['--arg with an unknown type', [at('k.cu'), '--arg', 'out=f8[4]'], /unknown element type 'f8'/],
    ['--arg with a bad initialiser', [at('k.cu'), '--arg', 'out=f32[4]:ones'], /unknown initialiser 'ones'/],
    ['--arg given twice', [at('k.cu'), '--arg', 'n=1', '--arg', 'n=2'], /--arg n is given twice/],
    ['--dump without a file', [at('k.cu'), '--dump', 'out'], /--dump expects NAME=FILE\.npy, got 'out'/],
    ['a value for --json', [at('k.cu'), '--json=yes'], /--json takes no value/],
    ['a flag without its value', [at('k.cu'), '--kernel'], /--kernel needs a value/],
    ['an unknown flag', [at('k.cu'), '--fast'], /unknown option '--fast' for 'phaseflip sim'/],
  ];
  it.each(cases)('%s', async (_name, argv, message) => {
    const r = await sim(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain("Run 'phaseflip sim --help' for usage.");
    expect(r.stdout).toBe('');
    expect(r.seen).toEqual([]);
  });

  it('an unreadable source is an I/O error', async () => {
    const r = await sim([at('missing.cu'), '--grid', '1', '--block', '32']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`phaseflip: cannot read ${at('missing.cu')}: no such file or directory\n`);
    expect(r.seen).toEqual([]);
  });
});

describe('the request handed to the simulator', () => {
  it('carries every option, with the language from the extension', async () => {
    const r = await sim([at('k.cu'), '--kernel', 'pipeline', '--grid', '1,1', '--block', '64', '--dynamic-smem', '1024', '--seed', '7', '--schedule', 'adversarial', '--max-steps=1_000_000', '--arg', 'out=f32[64]:fill(2)', '--arg', 'scale=0x10']);
    expect(r.code).toBe(0);
    const req = r.seen[0];
    expect(req).toMatchObject({ file: at('k.cu'), language: 'cuda', kernel: 'pipeline', grid: [1, 1, 1], block: [64, 1, 1], dynamicSmem: 1024, seed: 7, schedule: 'adversarial', maxSteps: 1_000_000 });
    expect(req.text).toBe('__global__ void k(float* out) {}\n');
    expect(req.args).toEqual([
      { name: 'out', kind: 'buffer', dtype: 'f32', shape: [64], init: { kind: 'fill', value: 2 }, text: 'out=f32[64]:fill(2)' },
      { name: 'scale', kind: 'scalar', value: 16, text: 'scale=0x10' },
    ]);
    expect(req.trace).toBeUndefined();
  });

  it('passes --latency settings through, later ones adding to earlier ones', async () => {
    const r = await sim([at('p.co'), '--kernel', 'pipeline', '--latency', 'bulkCopy=5000', '--latency', 'mma=0']);
    expect(r.code).toBe(0);
    expect(r.seen[0].latencies).toEqual({ bulkCopy: 5000, mma: 0 });
  });

  it('lets a Croqtile program leave out --grid and --block', async () => {
    const r = await sim([at('p.co'), '--max-steps', '1e6', '--kernel', 'pipeline']);
    expect(r.code).toBe(0);
    expect(r.seen[0]).toMatchObject({ language: 'croqtile', maxSteps: 1_000_000 });
    expect(r.seen[0].grid).toBeUndefined();
    expect(r.seen[0].block).toBeUndefined();
  });
});

describe('text output and exit codes', () => {
  it('completed: status, summary, barrier table, checksums, program output; exit 0', async () => {
    const r = await sim(launch('pipeline'));
    expect(r.code).toBe(0);
    const json = JSON.parse((await sim(launch('pipeline', '--json'))).stdout) as JsonResult;
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`status: completed (${at('k.cu')}, kernel pipeline, seed 1, round-robin schedule)`);
    expect(lines[1]).toBe(json.message);
    expect(lines[2]).toBe(`phase flips: 1   cycles: ${json.cycles.toLocaleString('en-US')}   statements: ${json.steps.toLocaleString('en-US')}`);
    expect(r.stdout).toMatch(/^ {2}block +barrier +phase +pending +tx +waiting$/m);
    expect(r.stdout).toMatch(/^ {2}0 +full +1 \(parity 1\) +33 of 33 +0 +-$/m);
    expect(r.stdout).toContain(`  out  f32[64]  checksum ${json.buffers[0].checksum}\n`);
    expect(r.stdout.endsWith('program output:\nblock 0: consumers done\n')).toBe(true);
    expect(r.stderr).toBe('');
  });

  it('program output streamed while running is not repeated at the end', async () => {
    const r = await sim(launch('pipeline'), { streamPrints: true });
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('block 0: consumers done\nstatus: completed')).toBe(true);
    expect(r.stdout).not.toContain('program output:');
  });

  it('deadlock: the wait-for picture and who waits on the barrier; exit 1', async () => {
    const r = await sim(launch('hang'));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^status: deadlock /);
    // The machine's own report (its wording is the runtime's), whole, right after the status line.
    const json = JSON.parse((await sim(launch('hang', '--json'))).stdout) as JsonResult;
    expect(json.message).toContain('full (parity 0)');
    expect(r.stdout.split('\n').slice(1).join('\n').startsWith(`${json.message}\nphase flips: 0 `)).toBe(true);
    expect(r.stdout).toMatch(/^ {2}0 +full +0 \(parity 0\) +1 of 34 +0 +threads 0-31 on parity 0$/m);
  });

  // The messages are the runtime's: check the CLI prints them whole, plus a keyword to be sure
  // the fake kernel failed the way it was meant to.
  const findings: [string, string, RegExp, number][] = [
    ['overarrive', 'misuse', /arrive.* on full/, 1],
    ['race', 'race', /race on shared 'stage'/, 1],
    ['oob', 'fault', /out-of-bounds global access/, 1],
    ['spin', 'step-limit', /5,000/, 1],
    ['unsupported', 'unsupported', /not supported by the simulator: asm\("nanosleep\.u32"\) at line 2/, 2],
  ];
  it.each(findings)('%s: status %s, exit %i', async (kernel, status, keyword, code) => {
    const r = await sim(launch(kernel, '--max-steps', '5000'));
    expect(r.code).toBe(code);
    const json = JSON.parse((await sim(launch(kernel, '--max-steps', '5000', '--json'))).stdout) as JsonResult;
    expect(json.status).toBe(status);
    expect(json.message).toMatch(keyword);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^status: ${status} `));
    expect(lines.slice(1).join('\n').startsWith(`${json.message}\nphase flips: `)).toBe(true);
  });

  it('many barriers are cut short in text and all listed in JSON', async () => {
    const r = await sim(launch('pipeline', '--grid', '30'));
    expect(r.stdout).toContain('barriers (30):');
    expect(r.stdout).toContain('  … 6 more (--json lists them all)');
    const json = JSON.parse((await sim(launch('pipeline', '--grid', '30', '--json'))).stdout) as JsonResult;
    expect(json.barriers.map((b) => b.block)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });
});

describe('--json', () => {
  it('prints one object with the documented keys in order', async () => {
    const r = await sim(launch('pipeline', '--json'), { streamPrints: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const json = JSON.parse(r.stdout) as JsonResult;
    expect(Object.keys(json)).toEqual(['status', 'message', 'details', 'phaseFlips', 'cycles', 'steps', 'barriers', 'buffers', 'stdout']);
    expect(json).toMatchObject({ status: 'completed', details: null, phaseFlips: 1, stdout: 'block 0: consumers done\n' });
    expect(json.cycles).toBeGreaterThanOrEqual(600);
    expect(json.barriers).toEqual([{ label: 'full', block: 0, phase: 1, pending: 33, expected: 33, tx: 0, initialized: true, waiting: [] }]);
    expect(Object.keys(json.barriers[0])).toEqual(['label', 'block', 'phase', 'pending', 'expected', 'tx', 'initialized', 'waiting']);
    expect(json.buffers).toEqual([{ name: 'out', dtype: 'f32', shape: [64], checksum: expect.stringMatching(/^[0-9a-f]{8}$/) }]);
  });

  it('a deadlock carries the report and the waiters', async () => {
    const r = await sim(launch('hang', '--json'));
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout) as JsonResult;
    expect(json.status).toBe('deadlock');
    expect(json.details?.kind).toBe('deadlock');
    expect(json.details?.blocked).toHaveLength(32);
    expect(json.details?.missing).toEqual([expect.objectContaining({ barrier: 'full', pending: 1 })]);
    expect(json.barriers[0].waiting).toEqual(Array.from({ length: 32 }, (_, thread) => ({ thread, parity: 0 })));
    expect(json.message).toBe(json.message.trim());
  });

  it('the same seed gives the same result; the schedule is honoured', async () => {
    const a = await sim(launch('pipeline', '--json', '--schedule', 'random', '--seed', '3'));
    const b = await sim(launch('pipeline', '--json', '--schedule', 'random', '--seed', '3'));
    expect(a.stdout).toBe(b.stdout);
    expect(a.seen[0].schedule).toBe('random');
  });
});

describe('errors raised by the simulator before it runs', () => {
  const throwing = (e: unknown) => async (): Promise<never> => {
    throw e;
  };

  it('an unsupported construct is printed as the machine renders it; exit 2', async () => {
    const r = await sim(launch('pipeline'), { simulate: throwing(new SimError('texture fetch tex1Dfetch', { line: 3 }, 'unsupported')) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('phaseflip: not supported by the simulator: texture fetch tex1Dfetch at line 4\n');
    expect(r.stdout).toBe('');
  });

  it('with --json the error is also a result object: bad-input for the request, unsupported for a construct, error for our own crash', async () => {
    const r = await sim(launch('pipeline', '--json'), { simulate: throwing(new SimError("no kernel named 'gemm' in k.cu")) });
    expect(r.code).toBe(2);
    const json = JSON.parse(r.stdout) as JsonResult;
    expect(json).toMatchObject({ status: 'bad-input', message: "no kernel named 'gemm' in k.cu", details: null, barriers: [], buffers: [] });
    expect(r.stderr).toBe("phaseflip: no kernel named 'gemm' in k.cu\n");
    const unsupported = await sim(launch('pipeline', '--json'), { simulate: throwing(new SimError('texture fetch tex1Dfetch', { line: 3 }, 'unsupported')) });
    expect([unsupported.code, (JSON.parse(unsupported.stdout) as JsonResult).status]).toEqual([2, 'unsupported']);
    const crash = await sim(launch('pipeline', '--json'), { simulate: throwing(new TypeError('x is undefined')) });
    expect([crash.code, (JSON.parse(crash.stdout) as JsonResult).status]).toEqual([2, 'error']);
  });

  it('a tilus script is not supported by the simulator: said so, unsupported in --json, nothing dumped, exit 2', async () => {
    writeFileSync(at('script.py'), readFileSync(path.join(ROOT, 'examples/tilus/good/tma_pipeline.py'), 'utf8'));
    const message = `not supported by the simulator: tilus file ${at('script.py')} (tilus files are linted with phaseflip lint, not simulated; the simulator runs .cu, .cuh and .co files)`;
    const text = await sim([at('script.py'), '--kernel', 'TmaPipeline']);
    expect([text.code, text.stdout, text.stderr]).toEqual([2, '', `phaseflip: ${message}\n`]);
    const json = await sim([at('script.py'), '--kernel', 'TmaPipeline', '--dump', `out=${at('out/tilus.npy')}`, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'unsupported', message, details: null, steps: 0 });
    expect(existsSync(at('out/tilus.npy'))).toBe(false);
  });

  it('an unreadable input is bad-input in --json too, and nothing is dumped', async () => {
    const r = await sim(launch('pipeline', '--arg', `in=f32[64]:file(${at('nope.npy')})`, '--dump', `out=${at('out/never.npy')}`, '--json'));
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'bad-input', message: expect.stringMatching(/nope\.npy: no such file or directory/) });
    expect(existsSync(at('out/never.npy'))).toBe(false);
  });

  it('a crash inside the simulator is reported as internal, exit 2', async () => {
    const r = await sim(launch('pipeline'), { simulate: throwing(new TypeError('x is undefined')) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^phaseflip: internal simulator error: TypeError: x is undefined/);
  });

  it('the real simulator prints its unsupported error cleanly', async () => {
    // Uses core/sim/run.ts `simulate`: today the CUDA executor is a placeholder that refuses every
    // file; a texture object is not something the simulator plans to model either.
    writeFileSync(at('tex.cu'), '__global__ void k(cudaTextureObject_t t, float* o) { o[0] = tex1Dfetch<float>(t, 0); }\n');
    let stdout = '';
    let stderr = '';
    const code = await runSim([at('tex.cu'), '--kernel', 'k', '--grid', '1', '--block', '32', '--arg', 'o=f32[1]', '--arg', 't=0'], { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
    expect(code).toBe(2);
    // Thrown while preparing (stderr) or reported by the machine while running (the text result).
    expect(`${stderr}${stdout}`).toMatch(/(^phaseflip: |\n)not supported by the simulator: /);
    expect(`${stderr}${stdout}`).not.toMatch(/internal|\n\s+at /);
  });
});

describe('phaseflip sim: an unsupported construct inside a header', () => {
  it('names the header and its line (an .im2col tensor copy in a helper found through -I); exit 2', async () => {
    const fixture = path.join(__dirname, '../fixtures/sim/unsupported-in-header');
    let stdout = '';
    const code = await runSim([path.join(fixture, 'im2col_in_header.cu'), '--kernel', 'k', '--grid', '1', '--block', '32', '-I', path.join(fixture, 'include'), '--arg', 'A=f32[4,8,32]', '--arg', 't=tensormap(A,box=[32,1,1])', '--arg', 'out=f32[32]'], { stdout: (s) => void (stdout += s), stderr: (s) => void (stdout += s) });
    expect(code).toBe(2);
    expect(stdout).toContain("not supported by the simulator: PTX instruction 'cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes' (im2col mode; only tile mode is modelled) at line 5 ← tma_im2col tma_helpers.cuh:7\n");
  });
});

describe('outcomes: the kernel\'s own failures against what the simulator could not do', () => {
  const ended = (kind: string, message: string) => ({ status: 'error' as const, report: { kind: kind as 'error', message, threads: [] } });
  it('a trap, a null pointer or an out-of-bounds access is the kernel\'s fault (exit 1); an internal error or an unsupported construct is not (exit 2)', () => {
    const cases: [ReturnType<typeof ended>, string, number][] = [
      [ended('error', '__trap() was called: the kernel aborts (warp 0 lane 0, line 3)'), 'fault', 1],
      [ended('error', 'atomicAdd: null pointer (warp 1 lane 4, line 9)'), 'fault', 1],
      [ended('oob', 'out-of-bounds global access to out[64]'), 'fault', 1],
      [ended('error', 'internal simulator error at line 3 (warp 0 lane 0): x is undefined'), 'error', 2],
      [ended('unsupported', 'not supported by the simulator: texture fetch at line 2'), 'unsupported', 2],
    ];
    for (const [result, outcome, code] of cases) expect([outcomeOf(result), exitCodeFor(result)], result.report.message).toEqual([outcome, code]);
    expect([outcomeOf({ status: 'deadlock' }), exitCodeFor({ status: 'deadlock' })]).toEqual(['deadlock', 1]);
    expect([outcomeOf({ status: 'completed' }), exitCodeFor({ status: 'completed' })]).toEqual(['completed', 0]);
  });

  it('the real simulator reports a kernel that calls __trap() as a fault, exit 1, and dumps what it wrote', async () => {
    writeFileSync(at('trap.cu'), '__global__ void k(float* o) {\n  o[threadIdx.x] = 1.0f;\n  if (threadIdx.x == 3) __trap();\n}\n');
    let stdout = '';
    const code = await runSim([at('trap.cu'), '--kernel', 'k', '--grid', '1', '--block', '32', '--arg', 'o=f32[32]', '--json', '--dump', `o=${at('out/trap.npy')}`], { stdout: (s) => void (stdout += s), stderr: () => {} });
    const json = JSON.parse(stdout) as JsonResult;
    expect([code, json.status]).toEqual([1, 'fault']);
    expect(json.message).toMatch(/__trap\(\)/);
    expect(existsSync(at('out/trap.npy'))).toBe(true);
  });
});

describe('.npy inputs and --dump', () => {
  const f32Bytes = (values: number[]) => new Uint8Array(Float32Array.from(values).buffer);
  const floats = (file: string) => {
    const npy = parseNpy(new Uint8Array(readFileSync(file)));
    const view = new DataView(npy.bytes.buffer, npy.bytes.byteOffset, npy.bytes.byteLength);
    return { npy, values: Array.from({ length: npy.bytes.length / 4 }, (_, i) => load(view, i * 4, npy.dtype)) };
  };

  it('reads :file(PATH.npy) into the argument and dumps results the run computed', async () => {
    const input = Array.from({ length: 64 }, (_, i) => i * 0.5 - 3);
    writeFileSync(at('in.npy'), toNpy('f32', [64], f32Bytes(input)));
    const r = await sim(launch('pipeline', '--arg', `in=f32[64]:file(${at('in.npy')})`, '--arg', 'scale=3', '--dump', `out=${at('out/out.npy')}`, '--json'));
    expect(r.code).toBe(0);
    const { npy, values } = floats(at('out/out.npy'));
    expect(npy.dtype).toBe('f32');
    expect(npy.shape).toEqual([64]);
    // The fake kernel's consumers (threads 0-31) write out[tid] = in[tid] * scale.
    expect(values).toEqual(input.map((x, i) => (i < 32 ? x * 3 : 0)));
    const json = JSON.parse(r.stdout) as JsonResult;
    const dumped = new SimBuffer(0, 'out', 'global', npy.bytes.length);
    dumped.bytes.set(npy.bytes);
    expect(json.buffers.find((b) => b.name === 'out')!.checksum).toBe(checksum(dumped));
    expect(r.stderr).toBe(''); // --json keeps stderr for problems only
  });

  it('writes nothing when the kernel did not run (an unsupported construct), and says so', async () => {
    const r = await sim(launch('unsupported', '--dump', `out=${at('out/unsupported.npy')}`));
    expect(r.code).toBe(2);
    expect(existsSync(at('out/unsupported.npy'))).toBe(false);
    expect(r.stderr).toBe('phaseflip: --dump: nothing written, the kernel did not run (unsupported)\n');
    // A kernel that failed on its own account ran: its buffers are dumped for the post-mortem.
    const hang = await sim(launch('hang', '--dump', `out=${at('out/hang.npy')}`));
    expect(hang.code).toBe(1);
    expect(existsSync(at('out/hang.npy'))).toBe(true);
  });

  it('says where it wrote in text mode', async () => {
    const r = await sim(launch('pipeline', '--dump', `out=${at('out/o2.npy')}`));
    expect(r.stderr).toBe(`phaseflip: wrote ${at('out/o2.npy')}: out f32[64]\n`);
  });

  it('a bf16 argument accepts the raw bits of a uint16 file', async () => {
    const bits = Uint16Array.from([0x3f80, 0xc000]);
    writeFileSync(at('w.npy'), toNpy('u16', [2], new Uint8Array(bits.buffer)));
    const r = await sim(launch('pipeline', '--arg', `w=bf16[2]:file(${at('w.npy')})`));
    expect(r.code).toBe(0);
    const w = r.seen[0].args!.find((a) => a.name === 'w')!;
    expect(w.kind === 'buffer' && w.init.kind === 'file' && w.init.data).toEqual({ dtype: 'bf16', shape: [2], bytes: new Uint8Array(bits.buffer) });
  });

  it('dumps bf16 as uint16 bits with a note', async () => {
    const r = await sim(launch('pipeline', '--arg', 'w=bf16[4]:fill(1.5)', '--dump', `w=${at('out/w.npy')}`, '--json'));
    expect(r.code).toBe(0);
    const npy = parseNpy(new Uint8Array(readFileSync(at('out/w.npy'))));
    expect(npy.descr).toBe('<u2');
    expect(Array.from(new Uint16Array(npy.bytes.buffer, npy.bytes.byteOffset, 4))).toEqual([0x3fc0, 0x3fc0, 0x3fc0, 0x3fc0]);
    expect(r.stderr).toMatch(/note: w\.npy holds bf16 'w' as its raw bits in uint16 \(<u2\)/);
  });

  const badInputs: [string, () => string, RegExp][] = [
    ['a missing file', () => `in=f32[64]:file(${at('nope.npy')})`, /--arg in=f32\[64\]:file\(.*nope\.npy\): cannot read .*nope\.npy: no such file or directory/],
    ['a file that is not .npy', () => `in=f32[64]:file(${at('k.cu')})`, /k\.cu: not a NumPy \.npy file/],
    ['another element type', () => (writeFileSync(at('i.npy'), toNpy('s32', [64], new Uint8Array(256))), `in=f32[64]:file(${at('i.npy')})`), /i\.npy holds s32 \('<i4'\), not f32/],
    ['another shape', () => (writeFileSync(at('s.npy'), toNpy('f32', [8, 8], new Uint8Array(256))), `in=f32[64]:file(${at('s.npy')})`), /s\.npy has shape \[8,8\], not \[64\]/],
    ['f32 for a bf16 argument', () => (writeFileSync(at('b.npy'), toNpy('f32', [2], new Uint8Array(8))), `w=bf16[2]:file(${at('b.npy')})`), /holds f32 \('<f4'\), not bf16 \(a bf16 argument reads its raw bits from a uint16 \(<u2\) file/],
  ];
  it.each(badInputs)('%s is a clear error, exit 2', async (_name, arg, message) => {
    const r = await sim(launch('pipeline', '--arg', arg()));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.seen).toEqual([]);
  });

  it('an unknown --dump name lists the buffers; the result is still printed; exit 2', async () => {
    const r = await sim(launch('pipeline', '--arg', 'in=f32[64]', '--dump', `C=${at('out/c.npy')}`));
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^status: completed/);
    expect(r.stderr).toBe(`phaseflip: --dump C=${at('out/c.npy')}: no buffer named 'C'; the buffers are: out, in\n`);
  });

  it('an unwritable --dump path is an I/O error, exit 2', async () => {
    const r = await sim(launch('pipeline', '--dump', `out=${at('no/such/dir/o.npy')}`));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write .*o\.npy: no such file or directory/);
  });
});

describe('--trace', () => {
  interface Trace {
    traceEvents: { name: string; ph: string; pid: number; tid?: number; ts?: number; args?: Record<string, unknown> }[];
    otherData: Record<string, string>;
  }

  it('asks the simulator to trace and writes a Chrome trace that parses', async () => {
    const r = await sim(launch('pipeline', '--grid', '2', '--trace', at('out/t.json')));
    expect(r.code).toBe(0);
    expect(r.seen[0].trace).toBe(true);
    expect(r.stderr).toMatch(/^phaseflip: wrote .*t\.json: \d+ simulator events \(open it in ui\.perfetto\.dev\)\n$/);
    const trace = JSON.parse(readFileSync(at('out/t.json'), 'utf8')) as Trace;
    const procs = trace.traceEvents.filter((e) => e.name === 'process_name').map((e) => e.args!.name);
    expect(procs).toEqual(['block 0', 'block 1']);
    const threads = trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => e.args!.name);
    // Role names come from the result's thread list (the fake sets them per warp).
    expect(threads).toEqual(expect.arrayContaining(['warp 0 · consumer', 'warp 1 · producer', 'barrier full']));
    expect(trace.traceEvents.filter((e) => e.ph === 'i' && e.name === 'full phase 0 complete')).toHaveLength(2);
    expect(trace.otherData.title).toBe(`${at('k.cu')} · pipeline`);
    expect(trace.otherData.timeUnit).toMatch(/simulated cycles/);
  });

  it('a deadlock trace shows the wait that never woke; --json keeps stdout pure', async () => {
    const r = await sim(launch('hang', '--json', '--trace', at('out/hang.json')));
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).status).toBe('deadlock');
    expect(r.stderr).toBe('');
    const trace = JSON.parse(readFileSync(at('out/hang.json'), 'utf8')) as Trace;
    expect(trace.traceEvents.some((e) => e.ph === 'X' && e.name === 'wait full (parity 0) (never woke)')).toBe(true);
  });

  it('an unwritable trace path is an I/O error, exit 2', async () => {
    const r = await sim(launch('pipeline', '--trace', at('no/such/dir/t.json')));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write .*t\.json: no such file or directory/);
  });
});

describe('progress', () => {
  const withProgress = () => {
    const run = fakeSimulate();
    return async (req: SimulateRequest) => {
      req.onProgress?.(500_000, 1_000_000);
      req.onProgress?.(1_000_000, 1_000_000);
      return run(req);
    };
  };

  it('draws one \\r line on a terminal and clears it before the result', async () => {
    let clock = 0;
    const r = await sim(launch('pipeline'), { simulate: withProgress(), stderrIsTTY: true, now: () => (clock += 1000) });
    expect(r.stderr).toBe('\rsimulating: 500,000 of 1,000,000 statements (500k/s)\x1b[K' + '\rsimulating: 1,000,000 of 1,000,000 statements (500k/s)\x1b[K' + '\r\x1b[K');
    expect(r.stdout).toMatch(/^status: completed/);
  });

  it('stays silent when stderr is not a terminal', async () => {
    const r = await sim(launch('pipeline'), { simulate: withProgress(), stderrIsTTY: false });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^status: completed/);
  });
});
