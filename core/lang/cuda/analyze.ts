// CUDA analysis pipeline: syntax tree -> kernel IR -> rules, with a per-kernel cache so that an edit
// re-analyses only the kernels it can affect: a kernel's findings are reused (shifted to its new line)
// while its text, the helpers it inlines (text and position), the constants it mentions, the
// file-scope declarations it names and the block sizes the file's launches give it are unchanged.
import type { AnalysisNote, AnalysisResult, BarrierSymbol, Finding, KernelCoverage, LintOptions, Range } from '../../api';
import { shiftRange, shiftResults } from '../../analysis/shift';
import { barrierSymbols } from '../../analysis/symbols';
import type { Kernel, KernelModule } from '../../ir/types';
import { visitStmts } from '../../ir/visit';
import { isSourceFile } from '../../project/project';
import { byPosition, findingKey, mergeFindings, runRules } from '../../rules/run';
import { offsetAt } from '../text-offsets';
import { boundedDepth, internalProblem, syntaxProblemsOf } from './frontend';
import { launchShapeDependency } from './launch-shapes';
import { unreachedAsmInstructions } from './asm-instructions';
import { classBarrierInits } from './class-barrier-init';
import { lowerRoot, rootsOf, scanCuda, type CudaScan, type FnDef } from './lower';
import type { SyntaxNode } from './parser';
import { rangeOf } from './syntax-nodes';
import { type FunctionLookup, type LowerContext, ScanCache } from './scan';
import type { CudaUnit } from './unit';

interface KernelEntry {
  startLine: number;
  endLine: number;
  findings: Finding[];
  symbols: BarrierSymbol[];
  notes: AnalysisNote[];
  coverage: KernelCoverage;
  helpers: string[];
  deps: string;
}

/** What a kernel's analysis depends on besides its own text, as one comparable string. */
function dependencies(scan: CudaScan, functions: FunctionLookup, fn: FnDef, fnText: string, kernelText: string, helpers: string[], byName: HelperNameFacts): string {
  const parts: string[] = [];
  const words = new Set(wordsOf(kernelText));
  for (const h of helpers) {
    const facts = helperNameFacts(functions, h, byName);
    parts.push(facts.key);
    for (const w of facts.words) words.add(w);
  }
  // Looked up by the words used (a unit can define thousands of integer macros; a kernel uses a few).
  for (const w of words) {
    const value = scan.constants.get(w);
    if (value !== undefined) parts.push(`${w}=${value}`);
  }
  for (const w of words) {
    const d = scan.fileDecls.get(w);
    if (d) parts.push(`${w}:${d.type}:${d.length}`);
  }
  // Launches elsewhere in the file, instantiations and the comment above the kernel set its shape.
  parts.push(launchShapeDependency(scan.launchBlockSizes, fnText, fn));
  // A new helper with the name of a call in the kernel changes what gets inlined.
  for (const w of words) if (scan.fns.has(w) && !helpers.includes(w)) parts.push(`?${w}`);
  return parts.join('\u0001');
}

/** The definitions of one helper name as one key and their identifiers, per analysis (see helperNameFacts). */
type HelperNameFacts = Map<string, { key: string; words: readonly string[] }>;

/**
 * Every definition of a helper name (its overloads, or one per namespace) as one key and one set of
 * identifiers, built once per analysis: a file of N namespaces each defining the same helpers made every
 * kernel's key name all N definitions (quadratic time and memory; 6 s of a 2.5 MB file).
 */
function helperNameFacts(functions: FunctionLookup, name: string, byName: HelperNameFacts): { key: string; words: readonly string[] } {
  let facts = byName.get(name);
  if (!facts) {
    const keys: string[] = [];
    const words = new Set<string>();
    for (const d of functions.get(name) ?? []) {
      const one = helperFacts(d);
      keys.push(`${d.file ?? ''}:${one.row}:${one.digest}`);
      for (const w of one.words) words.add(w);
    }
    // Many definitions are folded into a digest so that the key stays short.
    const joined = keys.join(',');
    facts = { key: `${name}@${keys.length > 4 ? textDigest(joined) : joined}`, words: [...words] };
    byName.set(name, facts);
  }
  return facts;
}

/**
 * A helper's text, first line and identifiers, once per definition: a header's definitions live as long as
 * the header is unchanged, and each analysis checks every kernel's helpers again.
 */
const helperFactsCache = new WeakMap<FnDef, { digest: string; row: number; words: readonly string[] }>();
function helperFacts(d: FnDef): { digest: string; row: number; words: readonly string[] } {
  let facts = helperFactsCache.get(d);
  if (!facts) {
    const text = d.node.text;
    facts = { digest: textDigest(text), row: d.node.startPosition.row, words: wordsOf(text) };
    helperFactsCache.set(d, facts);
  }
  return facts;
}

/**
 * A helper's text as a short key (length and two independent 32-bit hashes): every kernel's dependency key
 * names the texts of the helpers it inlines, and spelling them out made those keys tens of kilobytes.
 */
function textDigest(text: string): string {
  let fnv = 0x811c9dc5;
  let djb = 5381;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    fnv = Math.imul(fnv ^ c, 0x01000193);
    djb = (Math.imul(djb, 33) + c) | 0;
  }
  return `${text.length}.${(fnv >>> 0).toString(36)}.${(djb >>> 0).toString(36)}`;
}

/** Identifiers of a kernel's or helper's text, remembered: every analysis checks every kernel's inputs again. */
const wordCache = new Map<string, readonly string[]>();
function wordsOf(text: string): readonly string[] {
  let words = wordCache.get(text);
  if (!words) {
    if (wordCache.size >= 4096) wordCache.clear();
    words = [...new Set(text.match(/[A-Za-z_]\w*/g) ?? [])];
    wordCache.set(text, words);
  }
  return words;
}


/**
 * Wall-clock budget of one analysis of a file (syntax checks, scan, lowering and rules of its kernels):
 * past it the kernels not yet analysed (and not cached from an earlier analysis) are skipped with an
 * information note, so a multi-megabyte file answers instead of hanging. The language server analyses
 * again after edits, and the kernels done are cached, so each analysis gets further.
 */
export const ANALYSIS_BUDGET_MS = 8000;

/** The share of the file's budget the protocol replay of its kernels may take (2 s of the default 8 s). */
const REPLAY_SHARE = 4;

/** The budget in force: PHASEFLIP_ANALYSIS_BUDGET_MS overrides it (a batch lint of huge files can afford more; tests less). */
export function analysisBudgetMs(): number {
  const fromEnv = typeof process !== 'undefined' ? Number(process.env?.PHASEFLIP_ANALYSIS_BUDGET_MS) : NaN;
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : ANALYSIS_BUDGET_MS;
}

export class CudaAnalyzer {
  private optionsKey: string | undefined;
  private kernels = new Map<string, KernelEntry>();
  private readonly scanCache = new ScanCache();

  analyze(allTops: SyntaxNode[], text: string, options: LintOptions, unit?: CudaUnit, generation = 0, budgetMs = analysisBudgetMs()): AnalysisResult {
    const started = Date.now();
    const syntaxProblems = syntaxProblemsOf(allTops);
    // Declarations nested too deeply for the recursive walks below are left out with a problem of their own.
    const { tops, problems: depthProblems } = boundedDepth(allTops);
    syntaxProblems.push(...depthProblems);
    try {
      const scan = unit ? unit.scan(tops, text, this.scanCache) : scanCuda(tops, text, { cache: this.scanCache });
      const context: LowerContext | undefined = unit?.lowerContext(scan);
      const functions = context?.functions ?? scan.fns;
      // The headers read (and the project's state) are part of every kernel's inputs.
      const optionsKey = `${JSON.stringify(options.rules ?? {})}\u0001${generation}\u0001${unit?.dependencies.join('\u0001') ?? ''}`;
      if (optionsKey !== this.optionsKey) {
        this.kernels.clear();
        this.optionsKey = optionsKey;
      }
      const next = new Map<string, KernelEntry>();
      // Replay budget per analysis: an edit stays interactive even in a multi-megabyte file.
      const deadline = Date.now() + budgetMs / REPLAY_SHARE;
      const findings: Finding[] = [];
      const symbols: BarrierSymbol[] = [];
      const notes: AnalysisNote[] = unit?.notes() ?? [];
      const alone = unit ? headerAloneNote(unit, syntaxProblems.length) : undefined;
      if (alone) notes.push(alone);
      const kernels: KernelCoverage[] = [];
      const byName: HelperNameFacts = new Map();
      const budgetEnd = started + budgetMs;
      const skipped: FnDef[] = [];
      const occurrences = new Map<string, number>();
      const replaySkipped: Kernel[] = [];
      for (const fn of rootsOf(scan, context)) {
        // A kernel of a header is keyed by its file too: its lines are the header's.
        const kernelText = fn.file ? `${fn.file}\u0001${fn.node.text}` : fn.node.text;
        // Kernels of the same text (one per namespace, a generated file) are told apart by their order:
        // sharing one entry made each find the other's lines and be analysed again every time.
        const seen = occurrences.get(kernelText) ?? 0;
        occurrences.set(kernelText, seen + 1);
        const key = seen ? `${kernelText}\u0002${seen}` : kernelText;
        const startLine = fn.node.startPosition.row;
        const endLine = fn.node.endPosition.row;
        // The text the kernel is written in: a header's for a kernel defined there.
        const fnText = fn.file ? (context?.fileText(fn.file) ?? '') : scan.text;
        let entry = this.kernels.get(key) ?? next.get(key);
        // Messages cite line numbers ("the loop at line 12"): a kernel that moved is analysed again
        // when any of its findings does, since shifting moves ranges, not text.
        const moved = entry !== undefined && !fn.file && entry.startLine !== startLine && entry.findings.some((f) => /\bline \d/.test(f.message));
        if (entry && !moved && entry.deps === dependencies(scan, functions, fn, fnText, kernelText, entry.helpers, byName)) {
          if (!fn.file) entry = shift(entry, startLine, endLine);
        } else if (Date.now() > budgetEnd) {
          skipped.push(fn);
          continue;
        } else {
          const kernel = lowerRoot(scan, fn, context);
          const module: KernelModule = { language: 'cuda', kernels: [kernel], constants: kernel.constants ?? scan.constants, deadline };
          const helpers = kernel.helpers ?? [];
          const kernelFindings = relateToKernel(runRules(module, options), kernel, scan.text);
          const kernelNotes = (kernel.notUnderstood ?? []).map((u): AnalysisNote => ({ kind: 'unresolved-helper', message: `not understood in kernel '${kernel.name}': ${u.what}; barrier findings for it may be incomplete`, range: u.range }));
          entry = { startLine, endLine, findings: kernelFindings, symbols: barrierSymbols(module), notes: kernelNotes, coverage: coverageOf(kernel), helpers, deps: dependencies(scan, functions, fn, fnText, kernelText, helpers, byName) };
          // A kernel analysed without its replay is not final: do it again next time.
          if (module.truncated) {
            replaySkipped.push(kernel);
            findings.push(...entry.findings);
            symbols.push(...entry.symbols);
            notes.push(...entry.notes);
            kernels.push(entry.coverage);
            continue;
          }
        }
        next.set(key, entry);
        findings.push(...entry.findings);
        symbols.push(...entry.symbols);
        notes.push(...entry.notes);
        kernels.push(entry.coverage);
      }
      this.kernels = next;
      notes.push(...budgetNotes(skipped, replaySkipped, Date.now() - started, budgetMs));
      findings.push(...this.unreachedHelperFindings(scan, text, next, options, functions));
      findings.sort(byPosition);
      const result: AnalysisResult = { findings: mergeFindings(findings), syntaxProblems, symbols: dedupSymbols(symbols.filter((s) => s.range.file === undefined)) };
      if (notes.length) result.notes = notes;
      if (kernels.length) result.kernels = kernels;
      if (unit?.dependencies.length) {
        result.dependencies = unit.dependencies;
        result.includeSites = unit.includeSites();
      }
      if (unit?.contextPath) result.context = unit.contextPath;
      return result;
    } catch (err) {
      // A front-end bug must not take the language server down: report it and lint nothing.
      this.kernels.clear();
      return { findings: [], syntaxProblems: [...syntaxProblems, internalProblem(err)], symbols: [] };
    }
  }

  /**
   * Rules that read a function's own text, run on the document's functions no kernel reaches (a header of
   * wrappers, a library class): today the PTX spelling check of their asm. Kernels' helpers were checked
   * with their kernels.
   */
  private unreachedHelperFindings(scan: CudaScan, text: string, kernels: Map<string, KernelEntry>, options: LintOptions, functions: FunctionLookup): Finding[] {
    const reached = new Set<string>();
    for (const e of kernels.values()) for (const h of e.helpers) reached.add(h);
    const roots = new Set(scan.roots);
    const unreached = [...scan.fns.values()].flat().filter((fn) => !fn.file && !fn.isKernel && !reached.has(fn.name) && !roots.has(fn));
    const asmInstructions = unreachedAsmInstructions(unreached, text);
    // Classes are read whole (their initialising constructor may be a root): the members' own file only.
    const inits = classBarrierInits([...scan.fns.values()].flat(), functions);
    if (!asmInstructions.length && !inits.length) return [];
    return runRules({ language: 'cuda', kernels: [], constants: scan.constants, asmInstructions, classBarrierInits: inits }, options);
  }
}

/**
 * Information notes for the kernels an analysis left out for its budget: one for the kernels not analysed
 * at all, one for those whose barrier replay was cut short (their replay-based rules stayed silent). One note
 * each, at the first such kernel, so that a file of thousands of kernels does not get thousands of notes.
 */
function budgetNotes(skipped: FnDef[], replaySkipped: Kernel[], elapsedMs: number, budgetMs: number): AnalysisNote[] {
  const notes: AnalysisNote[] = [];
  const more = (n: number): string => (n > 1 ? ` and ${n - 1} more` : '');
  const first = skipped.find((fn) => !fn.file);
  if (first) {
    notes.push({ kind: 'analysis-budget', message: `analysis skipped for kernel '${first.name}'${more(skipped.length)}: too large (the file's analysis took ${elapsedMs} ms of its ${budgetMs} ms budget)`, range: rangeOf(first.nameNode) });
  }
  const replay = replaySkipped.find((k) => k.nameRange.file === undefined);
  if (replay) {
    notes.push({ kind: 'analysis-budget', message: `barrier replay skipped for kernel '${replay.name}'${more(replaySkipped.length)}: too large (${Math.round(budgetMs / REPLAY_SHARE)} ms); findings that need the replay may be missing`, range: replay.nameRange });
  }
  return notes;
}

/** What the front end understood of a kernel: its barrier operations and the calls it could not resolve. */
function coverageOf(kernel: Kernel): KernelCoverage {
  let barrierOps = 0;
  visitStmts(kernel.body, (s) => {
    if (s.kind === 'op') barrierOps++;
  });
  return { name: kernel.name, range: kernel.nameRange, barrierOps, notUnderstood: kernel.notUnderstood?.length ?? 0 };
}

/** At most this many launch sites are named per finding (a kernel launched in a loop of configurations). */
const MAX_RELATED_LAUNCHES = 4;

/**
 * A finding located in a header names the kernel it was derived from (related information), and the
 * launches in the document that gave the block size it was analysed at, since the header's line alone
 * does not say which of the kernels that use the helper, launched how, has the problem.
 */
function relateToKernel(findings: Finding[], kernel: Kernel, documentText: string): Finding[] {
  const shape = kernel.launchShape;
  const launches = shape?.source === 'launch-site' ? (shape.sites ?? []).filter((s) => s.block).slice(0, MAX_RELATED_LAUNCHES) : [];
  for (const f of findings) {
    if (f.range.file === undefined) continue;
    if (kernel.nameRange.file !== f.range.file) f.related = [...f.related, { range: kernel.nameRange, message: `reached from kernel '${kernel.name}'` }];
    for (const site of launches) {
      const block = site.block![1] === 1 && site.block![2] === 1 ? `${site.block![0]} threads` : `(${site.block!.join(', ')})`;
      f.related.push({ range: wholeLine(documentText, site.line), message: `'${kernel.name}' launched here with a block of ${block}` });
    }
    // A fix must edit the file the finding is in; one whose edits lost it would land in the document.
    f.fixes = f.fixes.filter((x) => x.edits.every((e) => e.range.file === f.range.file));
  }
  return findings;
}

/** Line `line` of the document from its first non-blank character, without its line break. */
function wholeLine(text: string, line: number): Range {
  const start = offsetAt(text, { line, character: 0 });
  const end = text.indexOf('\n', start);
  const content = text.slice(start, end < 0 ? text.length : end).replace(/\r$/, '');
  const indent = content.length - content.trimStart().length;
  return { start: { line, character: indent }, end: { line, character: content.length } };
}

/** Moves a cached kernel's ranges to its new position; ranges outside it (helpers) stay put. */
function shift(e: KernelEntry, startLine: number, endLine: number): KernelEntry {
  const inside = (r: Range): boolean => r.file === undefined && r.start.line >= e.startLine && r.end.line <= e.endLine;
  const delta = startLine - e.startLine;
  const notes = e.notes.map((n) => (inside(n.range) ? { ...n, range: shiftRange(n.range, delta) } : n));
  const coverage = inside(e.coverage.range) ? { ...e.coverage, range: shiftRange(e.coverage.range, delta) } : e.coverage;
  return { ...e, ...shiftResults(e.findings, e.symbols, delta, inside), notes, coverage, startLine, endLine };
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

/**
 * A header parsed as a file of its own whose text does not parse: most likely a part of a library meant to be
 * read after its includer's macros (or inside a class body). Said once, at the top, instead of staying silent.
 */
function headerAloneNote(unit: CudaUnit, syntaxErrors: number): AnalysisNote | undefined {
  if (!unit.hasPath || unit.contextPath || syntaxErrors === 0 || isSourceFile(unit.tu.main.path)) return undefined;
  const count = syntaxErrors >= 20 ? 'at least 20' : String(syntaxErrors);
  return {
    kind: 'header-alone',
    message: `this header was read alone (no file known to include it) and does not parse as a file of its own (${count} syntax errors): it may need the macros or declarations of a file that includes it; lint it together with that file`,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
  };
}
