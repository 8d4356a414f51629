// Croqtile analysis pipeline: text -> syntax tree (error-tolerant) -> kernel IR -> rules, parses and findings
// cached per `__co__` function. (Hovers are in hover.ts, re-exported here for existing importers.)
import type { AnalysisResult, BarrierSymbol, Finding, LintOptions } from '../../api';
import { shiftResults } from '../../analysis/shift';
import { barrierSymbols } from '../../analysis/symbols';
import type { KernelModule } from '../../ir/types';
import { byPosition, runRules } from '../../rules/run';
import type { CoFunction } from './ast';
import { eraMarks, eraOfMarks, lowerCroqtile } from './lower';
import { CroqtileParseCache } from './parse-cache';
import { parseCroqtile } from './parser';
import { makeLineIndex } from './positions';
import type { Era } from './sync-catalogue';

export { hoverCroqtile } from './hover';

interface FunctionEntry {
  startLine: number;
  endLine: number;
  findings: Finding[];
  symbols: BarrierSymbol[];
  /** Some message names a line number, which moving the findings to other lines would leave stale. */
  citesLines: boolean;
}

const CITES_LINE = /\bline \d/;

/**
 * Croqtile analysis with per-function caches: a `__co__` function whose text is unchanged keeps its parse (moved to
 * where it now starts; ./parse-cache.ts) and, unless its context changed, its findings (moved to its new lines).
 * Only the preprocessor, the host scan and the line index read the whole file on each edit. The era, the
 * #defines, the options and the rest of the function's first and last lines are part of every findings key, so a
 * change to any of them re-checks what it may change.
 */
export class CroqtileAnalyzer {
  /** Findings per parsed function (a kept parse keeps them while its context and surroundings are the same). */
  private results = new WeakMap<CoFunction, { key: string; entry: FunctionEntry }>();
  private readonly parses = new CroqtileParseCache();
  /** Era marks per parsed function: a kept parse keeps its marks. */
  private readonly marks = new WeakMap<CoFunction, ReadonlySet<Era | undefined>>();
  module: KernelModule | undefined;

  analyze(text: string, options: LintOptions): AnalysisResult {
    const lines = makeLineIndex(text);
    const file = parseCroqtile(text, this.parses);
    const syntaxProblems = file.errors.map((e) => ({ message: e.message, range: lines.range(e.span) }));
    const era = eraOfMarks(file.functions.map((f) => this.marksOf(f)));
    const context = `${era}\u0001${[...file.defines].join(';')}\u0001${JSON.stringify(options.rules ?? {})}`;
    const starts = file.functions.map((f) => lines.position(f.span.start));
    // Besides the function's own text (the same while its parse is kept), its findings read the rest of its first
    // and last lines (quick fixes keep what else is on them).
    const keys = file.functions.map((f, i) => {
      const lineEnd = text.indexOf('\n', f.span.end);
      return `${context}\u0002${text.slice(f.span.start - starts[i]!.character, f.span.start)}\u0002${text.slice(f.span.end, lineEnd < 0 ? text.length : lineEnd)}`;
    });
    // Messages cite lines ("the loop at line 12"): findings that do are not moved to other lines but made anew.
    const freshIndices = file.functions.flatMap((f, i) => {
      const kept = this.results.get(f);
      const valid = kept?.key === keys[i] && (kept.entry.startLine === starts[i]!.line || !kept.entry.citesLines);
      return valid ? [] : [i];
    });
    const fresh = freshIndices.map((i) => file.functions[i]!);
    let module: KernelModule;
    try {
      module = fresh.length === 0 ? { language: 'croqtile', era, kernels: [], constants: new Map() } : lowerCroqtile({ ...file, functions: fresh }, text, lines, undefined, era);
    } catch (err) {
      syntaxProblems.push({ message: `internal front-end error: ${(err as Error)?.message ?? String(err)}`, range: lines.range({ start: 0, end: 0 }) });
      module = { language: 'croqtile', kernels: [], constants: new Map() };
    }
    fresh.forEach((f, k) => {
      const kernel = module.kernels[k];
      if (!kernel) return;
      const one: KernelModule = { ...module, kernels: [kernel] };
      const found = runRules(one, options);
      const citesLines = found.some((x) => CITES_LINE.test(x.message) || x.related.some((r) => CITES_LINE.test(r.message)));
      const entry = { startLine: starts[freshIndices[k]!]!.line, endLine: lines.position(f.span.end).line, findings: found, symbols: barrierSymbols(one), citesLines };
      this.results.set(f, { key: keys[freshIndices[k]!]!, entry });
    });
    const findings: Finding[] = [];
    const symbols: BarrierSymbol[] = [];
    file.functions.forEach((f, i) => {
      const kept = this.results.get(f);
      if (!kept || kept.key !== keys[i]) return;
      kept.entry = shiftEntry(kept.entry, starts[i]!.line);
      findings.push(...kept.entry.findings);
      symbols.push(...kept.entry.symbols);
    });
    this.module = undefined;
    findings.sort(byPosition);
    return { findings, syntaxProblems, symbols };
  }

  /** The whole module, lowered on demand (hovers need every function). */
  fullModule(text: string): KernelModule {
    this.module ??= lowerCroqtile(parseCroqtile(text, this.parses), text, makeLineIndex(text));
    return this.module;
  }

  /** Drops every cached parse and result (the document was closed). */
  clear(): void {
    this.results = new WeakMap();
    this.parses.clear();
    this.module = undefined;
  }

  private marksOf(f: CoFunction): ReadonlySet<Era | undefined> {
    let m = this.marks.get(f);
    if (!m) {
      m = eraMarks(f);
      this.marks.set(f, m);
    }
    return m;
  }
}

function shiftEntry(e: FunctionEntry, startLine: number): FunctionEntry {
  const d = startLine - e.startLine;
  return { ...e, ...shiftResults(e.findings, e.symbols, d), startLine, endLine: e.endLine + d };
}

/** One-shot analysis (no cache). */
export function analyzeCroqtile(text: string, options: LintOptions): { result: AnalysisResult; module: KernelModule } {
  const analyzer = new CroqtileAnalyzer();
  const result = analyzer.analyze(text, options);
  return { result, module: analyzer.fullModule(text) };
}
