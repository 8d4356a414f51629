// Launch templates derived from kernel signatures: every template of every repository kernel is a
// launch the simulator accepts (it runs to completion or to a kernel finding, never to an argument,
// parse or geometry error), and a template becomes a launch.json configuration. What each language
// derives from its signatures is tested in test/core/lang/<language>/launch-template.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../core/sim/args';
import { launchTemplates } from '../../../core/languages';
import { launchConfiguration, type LaunchTemplate } from '../../../core/sim/launch-template';
import type { SimulateResult } from '../../../core/sim/run';
import { simulate } from '../../../core/simulate';

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

describe('launchConfiguration', () => {
  it('writes one-dimensional geometry as numbers and copies the args', () => {
    const t: LaunchTemplate = { kernel: 'k', language: 'cuda', line: 3, grid: [1, 1, 1], block: [32, 4, 1], args: ['n=4'], dynamicSmem: 1024 };
    const c = launchConfiguration(t, '/w/k.cu');
    expect(c).toEqual({ type: 'phaseflip', request: 'launch', name: 'Debug k', program: '/w/k.cu', kernel: 'k', grid: 1, block: [32, 4, 1], args: ['n=4'], dynamicSmem: 1024 });
    c.args.push('x=1');
    expect(t.args).toEqual(['n=4']);
  });
});
