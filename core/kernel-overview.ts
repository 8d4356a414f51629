// A kernel at a glance, for the code lens above a kernel whose language gives its extent (a tilus Script):
// the autotune space analysed, the barriers it allocates and the findings inside it, from the same analysis
// (suppressions and severities applied) that the diagnostics come from.
import type { AnalysisResult, BarrierSymbol, Finding, Position, Range } from './api';

export interface KernelOverview {
  name: string;
  /** Zero-based line where the kernel's definition starts (decorators included): where the lens goes. */
  line: number;
  /** The autotune space, when the language has one (tilus). */
  autotune?: { combinations: number; analysed: number };
  /** Barrier symbols declared inside the kernel, in source order. */
  barriers: BarrierSymbol[];
  /** Findings located inside the kernel, in source order. */
  findings: Finding[];
}

/** One overview per kernel of `result` that has an extent, in source order. */
export function kernelOverviews(result: AnalysisResult): KernelOverview[] {
  const out: KernelOverview[] = [];
  for (const k of result.kernels ?? []) {
    const extent = k.extent;
    if (!extent || extent.file !== undefined) continue;
    out.push({
      name: k.name,
      line: extent.start.line,
      ...(k.autotune ? { autotune: { ...k.autotune } } : {}),
      barriers: result.symbols.filter((s) => s.range.file === undefined && inside(extent, s.selectionRange.start)),
      findings: result.findings.filter((f) => f.range.file === undefined && inside(extent, f.range.start)),
    });
  }
  return out.sort((a, b) => a.line - b.line);
}

function inside(r: Range, p: Position): boolean {
  const afterStart = p.line > r.start.line || (p.line === r.start.line && p.character >= r.start.character);
  const beforeEnd = p.line < r.end.line || (p.line === r.end.line && p.character <= r.end.character);
  return afterStart && beforeEnd;
}
