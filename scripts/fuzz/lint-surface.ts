// Fuzz surface "lint": mutated examples and fixtures through the engine's analysis in-process (a
// worker thread, so that a hang can be ended), each with a per-input time limit.
import type { SeedFile } from './corpus';
import type { EnginePool } from './engine-pool';
import { minimiseText } from './minimise';
import { mutate } from './mutate';
import { type Outcome, signatureOf } from './outcome';
import { type SurfaceContext, type SurfaceStats, budgetLeft, count, emptyStats } from './surface';

/** The mutation that most likely made an input hang, so that hangs of one kind are saved once. */
export function hangKind(steps: readonly string[]): string {
  const telling = ['spaces-after-token', 'deep-nesting', 'duplicate-foreach', 'huge-literal', 'duplicate-lines'];
  return telling.find((t) => steps.includes(t)) ?? 'other';
}

export async function fuzzLint(ctx: SurfaceContext, pool: EnginePool, seeds: readonly SeedFile[]): Promise<SurfaceStats> {
  const stats = emptyStats('lint');
  const started = Date.now();
  const donors = { cuda: seeds.filter((s) => s.language === 'cuda').map((s) => s.text), croqtile: seeds.filter((s) => s.language === 'croqtile').map((s) => s.text) };
  while (budgetLeft(stats, ctx.budget, started)) {
    const seed = ctx.rng.pick(seeds);
    const mutation = mutate(seed.text, seed.language, ctx.rng, ctx.limits, donors[seed.language]);
    const run = await pool.run({ kind: 'lint', text: mutation.text, language: seed.language }, ctx.budget.limitMs);
    if (!count(stats, run, run.rssMiB)) continue;
    const outcome: Outcome = run.verdict === 'hang' ? { ...run, detail: `${run.detail} (${hangKind(mutation.steps)})` } : run;
    const signature = signatureOf('lint', seed.language, outcome);
    ctx.log(`lint: ${outcome.verdict} on a mutation of ${seed.path} (${mutation.steps.join(', ')}, ${mutation.text.length} chars): ${outcome.detail.split('\n')[0].slice(0, 160)}`);
    if (ctx.store.has(signature)) continue;
    const sameFailure = async (candidate: string) => {
      const again = await pool.run({ kind: 'lint', text: candidate, language: seed.language }, ctx.budget.limitMs);
      if (again.verdict !== outcome.verdict) return false;
      return again.verdict === 'hang' || signatureOf('lint', seed.language, again) === signature;
    };
    const minimal = await minimiseText(mutation.text, sameFailure, { tests: 400, deadline: Date.now() + ctx.minimiseSeconds * 1000 });
    const replayed = await sameFailure(minimal);
    const file = ctx.store.save(
      { surface: 'lint', language: seed.language, verdict: outcome.verdict, signature, detail: outcome.detail, ms: Math.round(outcome.ms), limitMs: ctx.budget.limitMs, seed: ctx.seed, mutations: mutation.steps, origin: seed.path, replayed },
      minimal,
      seed.language === 'cuda' ? 'cu' : 'co',
    );
    stats.saved.push(file);
    ctx.log(`lint: saved ${file} (${minimal.length} of ${mutation.text.length} chars)`);
  }
  return stats;
}
