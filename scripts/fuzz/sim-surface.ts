// Fuzz surface "sim": the simulator through the engine's launch validation and `simulate`, in-process
// (a worker thread): hostile launches of the examples' kernels (bad grids, blocks, arguments, options)
// and runaway or mutated kernels under a small step limit. Every answer must be a message (a refused
// launch naming its field, a simulator report), never an internal error, a crash or a hang.
import type { LaunchDescription, LaunchTemplate } from '../../core/index';
import type { SeedFile } from './corpus';
import type { EnginePool } from './engine-pool';
import { minimiseText } from './minimise';
import { mutate } from './mutate';
import { signatureOf } from './outcome';
import type { Random } from './random';
import { type SurfaceContext, type SurfaceStats, budgetLeft, count, emptyStats } from './surface';

/** Steps a fuzzed launch may run: a runaway kernel must stop with a step-limit report well within the time limit. */
const FUZZ_MAX_STEPS = 200_000;
/** Seeds for the simulator: files that hold kernels a template can launch, and small enough to run quickly. */
const SIM_SEED_BYTES = 12 * 1024;

const HOSTILE_DIMS: unknown[] = [0, -1, 1.5, Number.NaN, Infinity, '', 'abc', '0x4', '1,2,3,4', '32x', [], [1, 2, 3, 4], [0], [-1], ['a'], [1.5], 2 ** 31, 2 ** 53, 1e300, 1025, 2048, [1024, 2], [65536, 65536, 65536], null, {}, true];
const HOSTILE_ARGS: unknown[] = [
  'x', '=3', 'x=', 'x==', 'x=f32', 'x=f32[', 'x=f32[]', 'x=f32[-1]', 'x=f32[0]', 'x=f32[1e12]', 'x=f32[4294967296]', 'x=f32[65536,65536,65536]', 'x=f33[4]', 'x=f32[4]:random(', 'x=f32[4]:random(-1)',
  'x=f32[4]:fill(abc)', 'x=f32[4]:fill()', 'x=f32[4]:iota:iota', 'x=f32[4]:file()', 'x=1e999', 'x=-0', 'x=NaN', 'x=true', 'x=0x', '1x=3', 'x=f32[4,]', 'x=f32[,4]', 'x=f16[3]:fill(1e9)', 'n=99999999999999999999', 42, null, {},
];
const HOSTILE_OTHER: [keyof LaunchDescription, unknown[]][] = [
  ['kernel', ['', 'nope', 42, 'a b', '__global__', 'x'.repeat(10_000), null]],
  ['dynamicSmem', [-1, 1.5, 1e9, '1024', Number.NaN, 227 * 1024 + 1]],
  ['maxSteps', [0, -5, 1.5, '100', Number.NaN, Infinity]],
  ['seed', [-1, 2 ** 40, 1.5, 'x', Number.NaN]],
  ['schedule', ['chaos', '', 0, null]],
];
/** Bodies that never end: the step limit must stop them. */
const RUNAWAY = ['while (true) {}', 'for (;;) { __syncwarp(); }', 'while (1) { __syncthreads(); }', 'for (int i = 0; i >= 0; ++i) {}'];

interface SimSeed {
  seed: SeedFile;
  template: LaunchTemplate;
}

function baseLaunch(s: SimSeed): LaunchDescription {
  const t = s.template;
  return { file: s.seed.path, kernel: t.kernel, grid: t.grid, block: t.block, args: [...t.args], dynamicSmem: t.dynamicSmem, maxSteps: FUZZ_MAX_STEPS };
}

/** One hostile launch: the seed's good launch with one field (or one argument) spoiled. */
function hostileLaunch(s: SimSeed, rng: Random): { launch: LaunchDescription; text: string; what: string } {
  const launch = baseLaunch(s);
  const choice = rng.int(4);
  if (choice === 0 || (choice === 1 && s.seed.language === 'croqtile')) {
    const field = rng.pick(['grid', 'block'] as const);
    const value = rng.pick(HOSTILE_DIMS);
    launch[field] = value;
    return { launch, text: s.seed.text, what: `${field}=${JSON.stringify(value)}` };
  }
  if (choice === 1 || choice === 2) {
    const value = rng.pick(HOSTILE_ARGS);
    const args = [...(launch.args as string[])];
    if (args.length > 0 && rng.chance(0.6)) args[rng.int(args.length)] = value as string;
    else if (rng.chance(0.5)) args.push(value as string);
    else args.push(args[0] ?? 'x=1', args[0] ?? 'x=1');
    launch.args = args;
    return { launch, text: s.seed.text, what: `args=${JSON.stringify(args)}` };
  }
  const [field, values] = rng.pick(HOSTILE_OTHER);
  const value = rng.pick(values);
  (launch as unknown as Record<string, unknown>)[field] = value;
  return { launch, text: s.seed.text, what: `${field}=${JSON.stringify(value)}` };
}

/** A runaway loop put at the start of the kernel's body (CUDA), or a mutated kernel. */
function spoiledKernel(s: SimSeed, ctx: SurfaceContext): { launch: LaunchDescription; text: string; what: string; mutations: string[] } {
  const launch = baseLaunch(s);
  const declaration = s.seed.text.search(new RegExp(`\\b${s.template.kernel}\\s*\\(`));
  const body = declaration >= 0 ? s.seed.text.indexOf('{', declaration) : -1;
  if (s.seed.language === 'cuda' && body >= 0 && ctx.rng.chance(0.3)) {
    const loop = ctx.rng.pick(RUNAWAY);
    return { launch, text: `${s.seed.text.slice(0, body + 1)} ${loop} ${s.seed.text.slice(body + 1)}`, what: `runaway: ${loop}`, mutations: ['runaway'] };
  }
  const mutation = mutate(s.seed.text, s.seed.language, ctx.rng, { maxRepeat: Math.min(ctx.limits.maxRepeat, 8) });
  return { launch, text: mutation.text, what: `mutated: ${mutation.steps.join(', ')}`, mutations: mutation.steps };
}

export async function fuzzSim(ctx: SurfaceContext, pool: EnginePool, seeds: readonly SeedFile[]): Promise<SurfaceStats> {
  const stats = emptyStats('sim');
  const started = Date.now();
  const simSeeds: SimSeed[] = [];
  for (const seed of seeds.filter((s) => s.text.length <= SIM_SEED_BYTES && /^examples\//.test(s.path))) {
    const reply = (await pool.run({ kind: 'templates', text: seed.text, language: seed.language }, 30_000)).reply;
    for (const template of reply?.templates ?? []) if (!template.unsupported) simSeeds.push({ seed, template });
  }
  if (simSeeds.length === 0) throw new Error('fuzz sim: no launchable kernel among the examples');
  while (budgetLeft(stats, ctx.budget, started)) {
    const s = ctx.rng.pick(simSeeds);
    const input = ctx.rng.chance(0.5) ? { ...hostileLaunch(s, ctx.rng), mutations: ['hostile-launch'] } : spoiledKernel(s, ctx);
    const run = await pool.run({ kind: 'sim', text: input.text, launch: input.launch }, ctx.budget.limitMs);
    if (!count(stats, run, run.rssMiB)) continue;
    const outcome = run.verdict === 'hang' ? { ...run, detail: `${run.detail} (${input.mutations[0]})` } : run;
    const signature = signatureOf('sim', s.seed.language, outcome);
    ctx.log(`sim: ${outcome.verdict} on ${s.seed.path} ${s.template.kernel} (${input.what.slice(0, 120)}): ${outcome.detail.split('\n')[0].slice(0, 160)}`);
    if (ctx.store.has(signature)) continue;
    const sameFailure = async (candidate: string) => {
      const again = await pool.run({ kind: 'sim', text: candidate, launch: input.launch }, ctx.budget.limitMs);
      return again.verdict === outcome.verdict && (again.verdict === 'hang' || signatureOf('sim', s.seed.language, again) === signature);
    };
    const minimal = await minimiseText(input.text, sameFailure, { tests: 300, deadline: Date.now() + ctx.minimiseSeconds * 1000 });
    const replayed = await sameFailure(minimal);
    // NaN and Infinity do not survive JSON: the record keeps them as strings (still hostile values).
    const launch = JSON.parse(JSON.stringify(input.launch, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v))) as LaunchDescription;
    const file = ctx.store.save(
      { surface: 'sim', language: s.seed.language, verdict: outcome.verdict, signature, detail: outcome.detail, ms: Math.round(outcome.ms), limitMs: ctx.budget.limitMs, seed: ctx.seed, mutations: input.mutations, origin: s.seed.path, launch, replayed },
      minimal,
      s.seed.language === 'cuda' ? 'cu' : 'co',
    );
    stats.saved.push(file);
    ctx.log(`sim: saved ${file} (${minimal.length} of ${input.text.length} chars)`);
  }
  return stats;
}
