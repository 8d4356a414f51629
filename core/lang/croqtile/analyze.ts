// Croqtile analysis pipeline: text -> syntax tree (error-tolerant) -> kernel IR -> rules, cached per
// `__co__` function. (Hovers are in hover.ts, re-exported here for existing importers.)
import type { AnalysisResult, BarrierSymbol, Finding, LintOptions } from '../../api';
import { shiftResults } from '../../analysis/shift';
import { barrierSymbols } from '../../analysis/symbols';
import type { KernelModule } from '../../ir/types';
import { byPosition, runRules } from '../../rules/run';
import type { CoFunction } from './ast';
import { detectEra, lowerCroqtile } from './lower';
import { parseCroqtile } from './parser';
import { makeLineIndex } from './positions';

export { hoverCroqtile } from './hover';

interface FunctionEntry {
  startLine: number;
  endLine: number;
  findings: Finding[];
  symbols: BarrierSymbol[];
}

/**
 * Croqtile analysis with a per-function cache: the whole file is re-parsed (the parser is linear and
 * fast), but only `__co__` functions whose text changed are lowered and checked again. The era, the
 * #defines and the options are part of every key, so a change to any of them re-checks everything.
 */
export class CroqtileAnalyzer {
  private cache = new Map<string, FunctionEntry>();
  module: KernelModule | undefined;

  analyze(text: string, options: LintOptions): AnalysisResult {
    const lines = makeLineIndex(text);
    const file = parseCroqtile(text);
    const syntaxProblems = file.errors.map((e) => ({ message: e.message, range: lines.range(e.span) }));
    const context = `${detectEra(file)}\u0001${[...file.defines].join(';')}\u0001${JSON.stringify(options.rules ?? {})}`;
    const keyOf = (f: CoFunction): string => `${context}\u0002${text.slice(f.span.start, f.span.end)}`;
    const fresh = file.functions.filter((f) => !this.cache.has(keyOf(f)));
    let module: KernelModule;
    try {
      module = lowerCroqtile(file, text, lines, (f) => fresh.includes(f));
    } catch (err) {
      syntaxProblems.push({ message: `internal front-end error: ${(err as Error)?.message ?? String(err)}`, range: lines.range({ start: 0, end: 0 }) });
      module = { language: 'croqtile', kernels: [], constants: new Map() };
    }
    const next = new Map<string, FunctionEntry>();
    const findings: Finding[] = [];
    const symbols: BarrierSymbol[] = [];
    fresh.forEach((f, i) => {
      const kernel = module.kernels[i];
      if (!kernel) return;
      const one: KernelModule = { ...module, kernels: [kernel] };
      next.set(keyOf(f), { startLine: lines.position(f.span.start).line, endLine: lines.position(f.span.end).line, findings: runRules(one, options), symbols: barrierSymbols(one) });
    });
    for (const f of file.functions) {
      const key = keyOf(f);
      let entry = next.get(key) ?? this.cache.get(key);
      if (!entry) continue;
      entry = shiftEntry(entry, lines.position(f.span.start).line);
      next.set(key, entry);
      findings.push(...entry.findings);
      symbols.push(...entry.symbols);
    }
    this.cache = next;
    this.module = undefined;
    findings.sort(byPosition);
    return { findings, syntaxProblems, symbols };
  }

  /** The whole module, lowered on demand (hovers need every function). */
  fullModule(text: string): KernelModule {
    this.module ??= lowerCroqtile(parseCroqtile(text), text, makeLineIndex(text));
    return this.module;
  }
}

function shiftEntry(e: FunctionEntry, startLine: number): FunctionEntry {
  const d = startLine - e.startLine;
  return { ...shiftResults(e.findings, e.symbols, d), startLine, endLine: e.endLine + d };
}

/** One-shot analysis (no cache). */
export function analyzeCroqtile(text: string, options: LintOptions): { result: AnalysisResult; module: KernelModule } {
  const analyzer = new CroqtileAnalyzer();
  const result = analyzer.analyze(text, options);
  return { result, module: analyzer.fullModule(text) };
}
