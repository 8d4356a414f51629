// False-positive guard: real, correct kernels must lint clean. Runs over local copies of public
// repositories (CUTLASS, CCCL, DeepGEMM, ThunderKittens, FlashAttention, FlashMLA, DeepEP,
// cuda-samples) when PHASEFLIP_CORPUS names a folder holding them; skips with a reason otherwise.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEngine } from '../helpers/engine';

const corpus = process.env.PHASEFLIP_CORPUS;
const EXT = /\.(cu|cuh|h|hpp|inl)$/;
// Only files that touch barriers are worth the time; the rest cannot produce findings.
const BARRIER_HINT = /mbarrier|barrier|semaphore|umma_arrive|tcgen05|cp\.async|init_semaphore/;

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const p = path.join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else if (EXT.test(name) && st.size < 2_000_000) out.push(p);
  }
}

describe.skipIf(!corpus)('real kernels lint clean', () => {
  it('has no warning or error on any file of the corpus', async () => {
    const files: string[] = [];
    walk(corpus!, files);
    const engine = await getEngine();
    const problems: string[] = [];
    let linted = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      if (!BARRIER_HINT.test(text)) continue;
      linted++;
      for (const d of engine.analyze(text, 'cuda').findings) {
        if (d.severity === 'error' || d.severity === 'warning') problems.push(`${path.relative(corpus!, f)}:${d.range.start.line + 1}: ${d.code} ${d.message}`);
      }
    }
    console.log(`corpus: ${linted} barrier-related files of ${files.length} linted, ${problems.length} findings`);
    expect(problems).toEqual([]);
  }, 1_200_000);
});

if (!corpus) {
  console.log('real-kernels corpus test skipped: set PHASEFLIP_CORPUS to a folder with checkouts of CUTLASS, CCCL, DeepGEMM, ThunderKittens, flash-attention, FlashMLA, DeepEP, cuda-samples (see test/corpus/README.md)');
}
