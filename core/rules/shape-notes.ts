// Findings that depend on a block size nothing in the source gives. A kernel with no launch, no
// `__launch_bounds__`, no `blockDim.x` check and no `// phaseflip: block=N` comment is replayed at the
// candidate sizes and at every other plausible size (facts.ts). What holds at all of them is reported
// as usual; what holds at the candidate sizes only is reported here as an information note that says
// which sizes it holds at, so a correct kernel launched elsewhere with another block is never flagged.
import type { Fix } from '../api';
import { blockSizeKnown, CANDIDATE_BLOCK_SIZES, KernelFacts, type ReplayCache } from '../analysis/facts';
import type { KernelModule } from '../ir/types';
import { reportKey, rulePass } from './rule-pass';
import type { RuleDef, RuleReport } from './types';

export interface ShapeNote {
  rule: RuleDef;
  report: RuleReport;
}

/**
 * The information notes of every kernel whose block size is not known: reports of `rules` at the
 * candidate sizes that were not reported at every plausible size (`reported` holds those, by reportKey).
 */
export function shapeDependentNotes(module: KernelModule, kernels: KernelFacts[], rules: RuleDef[], reported: ReadonlySet<string>, replays: ReplayCache): ShapeNote[] {
  const out: ShapeNote[] = [];
  for (const facts of kernels) {
    if (blockSizeKnown(facts.kernel)) continue;
    const kernel = facts.kernel;
    const assumed = new KernelFacts(kernel, module, { sizes: CANDIDATE_BLOCK_SIZES, replays });
    const notes: ShapeNote[] = [];
    const noted = new Set<string>();
    for (const rule of rules) {
      for (const r of rulePass(rule, module, [assumed])) {
        const key = reportKey(rule, r);
        if (reported.has(key) || noted.has(key)) continue;
        noted.add(key);
        notes.push({ rule, report: r });
      }
    }
    if (!notes.length) continue;
    // Which of the plausible sizes each note holds at, and at which sizes the kernel has none.
    const keysAt = new Map<number, Set<string>>();
    for (const size of facts.blockSizes()) {
      const one = new KernelFacts(kernel, module, { sizes: [size], replays });
      if (!one.runs()) continue;
      const keys = new Set<string>();
      for (const rule of rules) for (const r of rulePass(rule, module, [one])) keys.add(reportKey(rule, r));
      keysAt.set(size, keys);
    }
    const clean = [...keysAt].filter(([, keys]) => [...keys].every((k) => reported.has(k))).map(([size]) => size);
    const fix = clean.length === 1 ? declareBlockFix(kernel.name, kernel.range.start.line, clean[0]) : undefined;
    for (const n of notes) {
      const key = reportKey(n.rule, n.report);
      const holds = [...keysAt].filter(([, keys]) => keys.has(key)).map(([s]) => s).sort((a, b) => a - b);
      const not = [...keysAt].filter(([, keys]) => !keys.has(key)).map(([s]) => s).sort((a, b) => a - b);
      out.push({ rule: n.rule, report: { ...n.report, message: noteMessage(n.report.message, holds, not), fixes: fix ? [fix] : [] } });
    }
  }
  return out;
}

function sizesText(sizes: number[]): string {
  return sizes.length <= 1 ? String(sizes[0] ?? '') : `${sizes.slice(0, -1).join(', ')} and ${sizes[sizes.length - 1]}`;
}

function noteMessage(message: string, holds: number[], not: number[]): string {
  const where = holds.length ? ` This holds at a block of ${sizesText(holds)} threads${not.length ? `, not at ${sizesText(not)}` : ''}.` : '';
  return `Depends on blockDim.x, which is not known here; assuming ${CANDIDATE_BLOCK_SIZES[0]} threads: ${message}${where} Set the block size with a launch in this translation unit, \`__launch_bounds__(N)\`, or a \`// phaseflip: block=N\` comment above the kernel.`;
}

/** Inserts `// phaseflip: block=N` on its own line above the kernel's definition. */
function declareBlockFix(kernel: string, line: number, threads: number): Fix {
  return {
    title: `Declare that \`${kernel}\` runs with ${threads} threads (\`// phaseflip: block=${threads}\`), the one size tried at which its barrier protocol holds`,
    edits: [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText: `// phaseflip: block=${threads}\n` }],
  };
}
