// Public data types of the engine. Faces (server/, cli/, client/, debugger/) only see these plain
// shapes: positions are zero-based line/character like LSP, but nothing here depends on LSP or DAP.

export type LanguageId = 'cuda' | 'croqtile' | 'tilus';

export interface Position {
  /** Zero-based line. */
  line: number;
  /** Zero-based UTF-16 column, as LSP counts it. */
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
  /**
   * Absolute path of the file the range lies in, when that is not the analysed document itself: a
   * header of its translation unit. Absent for the document's own ranges.
   */
  file?: string;
}

export type Severity = 'error' | 'warning' | 'information' | 'hint';

/** The four rule families of the issue tracker, and the findings about suppression directives (PF0xx); every finding belongs to exactly one. */
export type Family = 'phase' | 'bootstrap' | 'commit' | 'count' | 'suppression';

export interface RelatedLocation {
  range: Range;
  message: string;
}

export interface TextEdit {
  range: Range;
  newText: string;
}

export interface Fix {
  title: string;
  edits: TextEdit[];
  /** The fix a user would pick by default (VS Code's "preferred" quick fix). */
  preferred?: boolean;
}

export interface Finding {
  /** Stable code such as PF103. */
  code: string;
  /** Kebab-case rule id, also the docs slug, e.g. `parity-never-flips`. */
  ruleId: string;
  family: Family;
  severity: Severity;
  /** What happens at run time and why, in one or two sentences. */
  message: string;
  range: Range;
  related: RelatedLocation[];
  /** Link to the rule's documentation. */
  docsUrl: string;
  fixes: Fix[];
}

/** A syntax problem found by the front end; reported once, never fatal. */
export interface SyntaxProblem {
  message: string;
  range: Range;
}

export interface HoverInfo {
  /** Markdown shown to the user. */
  markdown: string;
  range: Range;
}

export interface BarrierSymbol {
  name: string;
  /** e.g. "mbarrier[4] (cuda::barrier<thread_scope_block>)". */
  detail: string;
  range: Range;
  selectionRange: Range;
}

/**
 * An information-level note about what the analysis could not understand (an include not found, a
 * barrier helper not resolved, a launch shape not known), so that "no findings" never hides "not
 * understood". Not a rule finding: no code, no fix.
 */
export interface AnalysisNote {
  kind: 'include-not-found' | 'unresolved-helper' | 'flags' | 'header-alone' | 'analysis-budget';
  message: string;
  range: Range;
}

/**
 * How much of one analysed kernel the front end understood (the honest coverage figure): a kernel is
 * fully understood when `notUnderstood` is 0, i.e. every call that looks like a barrier operation
 * resolved to an API the rules know (directly or through inlined helpers).
 */
export interface KernelCoverage {
  name: string;
  /** The kernel's name; `file` is set when the kernel is defined in a header of the translation unit. */
  range: Range;
  /** Barrier operations (init, arrive, wait, expect-tx, copies completing on a barrier, ...) found after inlining, counted statically. */
  barrierOps: number;
  /** Distinct calls that look like barrier operations but resolved to nothing; each has an `unresolved-helper` note. */
  notUnderstood: number;
  /**
   * The kernel's whole definition, decorators included (tilus: the Script class), when the language gives
   * one: the editor summarises the barriers and findings inside it in a code lens (core/kernel-overview.ts).
   */
  extent?: Range;
  /** tilus, for a Script with `@tilus.autotune`: its combinations, and how many were analysed (the first ones, past the budget). */
  autotune?: { combinations: number; analysed: number };
}

export interface AnalysisResult {
  findings: Finding[];
  syntaxProblems: SyntaxProblem[];
  symbols: BarrierSymbol[];
  /** Information-level notes on what was not understood (see `AnalysisNote`). */
  notes?: AnalysisNote[];
  /** One entry per kernel analysed (front ends that lower kernels report it; Croqtile does not yet). */
  kernels?: KernelCoverage[];
  /**
   * Absolute paths of the other files the analysis read (the headers of the translation unit): an
   * editor re-analyses the document when one of them changes.
   */
  dependencies?: string[];
  /**
   * For each dependency, the `#include` line of the document through which it is reached (an editor
   * shows a finding in a closed header there, as clangd does: "in included file").
   */
  includeSites?: Record<string, Range>;
  /**
   * The file whose translation unit the document was analysed in, when another file's: a header known to be
   * included by it is read with the macros and declarations that come before its `#include` there.
   */
  context?: string;
}

/** User configuration the faces pass through; everything optional. */
export interface LintOptions {
  /** Rule id or code -> severity override, or 'off'. */
  rules?: Record<string, Severity | 'off'>;
}

export const DOCS_BASE_URL = 'https://github.com/phaseflip/phaseflip/blob/main/docs/rules/';
