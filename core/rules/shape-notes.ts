// Findings that depend on a block size nothing gives. A kernel with no launch, no launch setting, no
// `__launch_bounds__`, no `blockDim.x` check and no `// phaseflip: block=N` comment is linted at the
// candidate sizes; what it reports there is checked at every other plausible size (facts.ts). What holds
// at all of them is reported as usual; what does not becomes an information note that says which sizes
// it holds at, so a correct kernel launched elsewhere with another block is never flagged.
import type { Fix } from '../api';
import { blockSizeKnown, CANDIDATE_BLOCK_SIZES, KernelFacts, type ReplayCache } from '../analysis/facts';
import type { KernelModule } from '../ir/types';
import { reportKey, rulePass } from './rule-pass';
import type { RuleDef, RuleReport } from './types';

/**
 * The reports of `reported` (by reportKey) that depend on a block size nothing in the source gives,
 * rewritten as information notes. A kernel whose block size is not known is first linted at the
 * candidate sizes (the pass that produced `reported`); only when that found something is it replayed
 * at every plausible size, and what no longer holds there is a note saying at which sizes it holds.
 */
export function shapeDependentNotes(module: KernelModule, kernels: KernelFacts[], rules: RuleDef[], reported: ReadonlySet<string>, replays: ReplayCache): Map<string, RuleReport> {
  const out = new Map<string, RuleReport>();
  if (!reported.size) return out;
  const keysOf = (facts: KernelFacts): { keys: Set<string>; reports: Map<string, RuleReport> } => {
    const reports = new Map<string, RuleReport>();
    for (const rule of rules) for (const r of rulePass(rule, module, [facts])) if (!reports.has(reportKey(rule, r))) reports.set(reportKey(rule, r), r);
    return { keys: new Set(reports.keys()), reports };
  };
  for (const facts of kernels) {
    if (blockSizeKnown(facts.kernel)) continue;
    const kernel = facts.kernel;
    // A module of one kernel (the editor's and the CLI's case) needs no second pass to know its reports.
    const assumed = keysOf(kernels.length === 1 ? facts : new KernelFacts(kernel, module, { replays }));
    const own = [...assumed.keys].filter((k) => reported.has(k));
    if (!own.length) continue;
    const wide = new KernelFacts(kernel, module, { widen: true, replays });
    const everywhere = keysOf(wide).keys;
    const dependent = own.filter((k) => !everywhere.has(k));
    if (!dependent.length) continue;
    // Which of the plausible sizes each note holds at, and at which sizes the kernel has none of them.
    const keysAt = new Map<number, Set<string>>();
    for (const size of wide.blockSizes()) {
      const one = new KernelFacts(kernel, module, { sizes: [size], replays });
      if (one.runs()) keysAt.set(size, keysOf(one).keys);
    }
    const clean = [...keysAt].filter(([, keys]) => [...keys].every((k) => everywhere.has(k))).map(([size]) => size);
    const fix = clean.length === 1 ? declareBlockFix(kernel.name, kernel.range.start.line, clean[0]) : undefined;
    for (const key of dependent) {
      const report = assumed.reports.get(key)!;
      const holds = [...keysAt].filter(([, keys]) => keys.has(key)).map(([s]) => s).sort((a, b) => a - b);
      const not = [...keysAt].filter(([, keys]) => !keys.has(key)).map(([s]) => s).sort((a, b) => a - b);
      out.set(key, { ...report, message: noteMessage(report.message, holds, not), fixes: fix ? [fix] : [] });
    }
  }
  return out;
}

function sizesText(sizes: number[]): string {
  return sizes.length <= 1 ? String(sizes[0] ?? '') : `${sizes.slice(0, -1).join(', ')} and ${sizes[sizes.length - 1]}`;
}

function noteMessage(message: string, holds: number[], not: number[]): string {
  const where = holds.length ? ` This holds at a block of ${sizesText(holds)} threads${not.length ? `, not at ${sizesText(not)}` : ''}.` : '';
  return `Depends on blockDim.x, which is not known here; assuming ${CANDIDATE_BLOCK_SIZES[0]} threads: ${message}${where} Set the block size with a launch in this translation unit, the setting \`phaseflip.launch\` (\`--launch KERNEL:block=N\` on the command line), \`__launch_bounds__(N)\`, or a \`// phaseflip: block=N\` comment above the kernel.`;
}

/** Inserts `// phaseflip: block=N` on its own line above the kernel's definition. */
function declareBlockFix(kernel: string, line: number, threads: number): Fix {
  return {
    title: `Declare that \`${kernel}\` runs with ${threads} threads (\`// phaseflip: block=${threads}\`), the one size tried at which its barrier protocol holds`,
    edits: [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText: `// phaseflip: block=${threads}\n` }],
  };
}
