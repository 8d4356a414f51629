// CUDA analysis pipeline: syntax tree -> kernel IR -> rules, with a per-kernel cache so that an edit
// re-analyses only the kernels it can affect: a kernel's findings are reused (shifted to its new line)
// while its text, the helpers it inlines (text and position), the constants it mentions, the
// file-scope declarations it names and the block sizes the file's launches give it are unchanged.
import type { AnalysisResult, BarrierSymbol, Finding, LintOptions, Range } from '../../api';
import { shiftResults } from '../../analysis/shift';
import { barrierSymbols } from '../../analysis/symbols';
import type { KernelModule } from '../../ir/types';
import { byPosition, runRules } from '../../rules/run';
import { internalProblem, syntaxProblemsOf } from './frontend';
import { launchShapeDependency } from './launch-shapes';
import { lowerRoot, scanCuda, type CudaScan, type FnDef } from './lower';
import type { SyntaxNode } from './parser';

interface KernelEntry {
  startLine: number;
  endLine: number;
  findings: Finding[];
  symbols: BarrierSymbol[];
  helpers: string[];
  deps: string;
}

/** What a kernel's analysis depends on besides its own text, as one comparable string. */
function dependencies(scan: CudaScan, fn: FnDef, kernelText: string, helpers: string[]): string {
  const parts: string[] = [];
  let texts = kernelText;
  for (const h of helpers) {
    for (const d of scan.fns.get(h) ?? []) {
      const t = d.node.text;
      parts.push(`${h}@${d.node.startPosition.row}:${t}`);
      texts += t;
    }
  }
  const words = new Set(texts.match(/[A-Za-z_]\w*/g) ?? []);
  for (const [name, v] of scan.constants) if (words.has(name)) parts.push(`${name}=${v}`);
  for (const [name, d] of scan.fileDecls) if (words.has(name)) parts.push(`${name}:${d.type}:${d.length}`);
  // Launches elsewhere in the file, instantiations and the comment above the kernel set its shape.
  parts.push(launchShapeDependency(scan.launchBlockSizes, scan.text, fn));
  // A new helper with the name of a call in the kernel changes what gets inlined.
  for (const [name] of scan.fns) if (words.has(name) && !helpers.includes(name)) parts.push(`?${name}`);
  return parts.join('\u0001');
}

const REPLAY_BUDGET_MS = 2000;

export class CudaAnalyzer {
  private optionsKey: string | undefined;
  private kernels = new Map<string, KernelEntry>();

  analyze(tops: SyntaxNode[], text: string, options: LintOptions): AnalysisResult {
    const syntaxProblems = syntaxProblemsOf(tops);
    try {
      const scan = scanCuda(tops, text);
      const optionsKey = JSON.stringify(options.rules ?? {});
      if (optionsKey !== this.optionsKey) {
        this.kernels.clear();
        this.optionsKey = optionsKey;
      }
      const next = new Map<string, KernelEntry>();
      // Replay budget per analysis: an edit stays interactive even in a multi-megabyte file.
      const deadline = Date.now() + REPLAY_BUDGET_MS;
      const findings: Finding[] = [];
      const symbols: BarrierSymbol[] = [];
      for (const fn of scan.roots) {
        const key = fn.node.text;
        const startLine = fn.node.startPosition.row;
        const endLine = fn.node.endPosition.row;
        let entry = this.kernels.get(key) ?? next.get(key);
        if (entry && entry.deps === dependencies(scan, fn, key, entry.helpers)) {
          entry = shift(entry, startLine, endLine);
        } else {
          const kernel = lowerRoot(scan, fn);
          const module: KernelModule = { language: 'cuda', kernels: [kernel], constants: kernel.constants ?? scan.constants, deadline };
          const helpers = kernel.helpers ?? [];
          entry = { startLine, endLine, findings: runRules(module, options), symbols: barrierSymbols(module), helpers, deps: dependencies(scan, fn, key, helpers) };
          // A kernel analysed without its replay is not final: do it again next time.
          if (module.truncated) {
            findings.push(...entry.findings);
            symbols.push(...entry.symbols);
            continue;
          }
        }
        next.set(key, entry);
        findings.push(...entry.findings);
        symbols.push(...entry.symbols);
      }
      this.kernels = next;
      findings.sort(byPosition);
      return { findings, syntaxProblems, symbols: dedupSymbols(symbols) };
    } catch (err) {
      // A front-end bug must not take the language server down: report it and lint nothing.
      this.kernels.clear();
      return { findings: [], syntaxProblems: [...syntaxProblems, internalProblem(err)], symbols: [] };
    }
  }
}

/** Moves a cached kernel's ranges to its new position; ranges outside it (helpers) stay put. */
function shift(e: KernelEntry, startLine: number, endLine: number): KernelEntry {
  const inside = (r: Range): boolean => r.start.line >= e.startLine && r.end.line <= e.endLine;
  return { ...e, ...shiftResults(e.findings, e.symbols, startLine - e.startLine, inside), startLine, endLine };
}

function dedupSymbols(list: BarrierSymbol[]): BarrierSymbol[] {
  const seen = new Set<string>();
  return list.filter((s) => {
    const k = `${s.selectionRange.start.line}:${s.selectionRange.start.character}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
