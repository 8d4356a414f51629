// An open CUDA document: its translation unit (unit.ts: the document preprocessed with its includes'
// macros, and its headers), its preprocessed text tiled into region-wise parsed syntax trees
// (chunks.ts), the per-kernel analysis cache, and the IR that hovers read. What
// `Language.loadFrontEnd` opens for the engine.
import type { AnalysisResult, HoverInfo, LintOptions, Position } from '../../api';
import { printModule } from '../../ir/print';
import type { KernelModule } from '../../ir/types';
import type { DocumentContext, LanguageDocument } from '../language';
import { offsetAt } from '../text-offsets';
import { CudaAnalyzer } from './analyze';
import { ChunkedTree } from './chunks';
import { lowerCudaNodes } from './frontend';
import { hoverCuda } from './hover';
import type { Parser } from './parser';
import { isSourceFile } from '../../project/project';
import { withContextResults } from './context-results';
import type { TreeBudget } from './tree-budget';
import { buildCudaUnit, type CudaUnit, type HeaderCache } from './unit';

const EMPTY_MODULE: KernelModule = { language: 'cuda', kernels: [], constants: new Map() };

/** What the documents of one front end share: parsed headers, and the budget of parsed text they keep. */
export interface DocumentsShared {
  headers?: HeaderCache;
  trees?: TreeBudget;
  /** Documents open on these caches: when the last one is disposed the header cache is freed. */
  open?: number;
}

export class CudaDocument implements LanguageDocument {
  /** Null once disposed: the document then analyses to nothing. */
  private chunks: ChunkedTree | null;
  /** The preprocessed text the chunks hold (same length and lines as the document's text). */
  private parsedText: string;
  /**
   * Parse-text edits made since `parsedText` was parsed, when each was a plain edit (the parse text changed
   * exactly as the document did): applied to the trees as they are, with no need to find what differs.
   */
  private pendingEdits: Array<{ start: number; oldEnd: number; newText: string }> | null = [];
  private unitCache: { text: string; generation: number; context: string | undefined; unit: CudaUnit } | undefined;
  private readonly analyzer = new CudaAnalyzer();
  private module: KernelModule | undefined;
  /** The last module built and the text it was built from: hovers while typing read it (see prepareHover). */
  private hoverModule: { text: string; module: KernelModule } | undefined;
  /** Whether a hover answered from `hoverModule` of an older text since it was last built. */
  private hoverStale = false;
  /** For a header read inside a file that includes it: that file as a document of its own, for its kernels' findings. */
  private includer: { path: string; document: CudaDocument } | undefined;
  /**
   * Whether the document is read in the translation unit of a file known to include it: only once it does not
   * parse alone (most headers are complete; an includer's unit can be a whole library), and not again with an
   * includer that did not help.
   */
  private inContext = false;
  private contextRejected: string | undefined;

  constructor(
    private readonly parser: Parser,
    private textValue: string,
    private readonly context: DocumentContext = {},
    private readonly shared: DocumentsShared = {},
    /** An including file opened for a header's sake: analysed as itself, never inside yet another file. */
    private readonly asIncluder = false,
  ) {
    this.shared.open = (this.shared.open ?? 0) + 1;
    this.parsedText = this.unit().parseText;
    this.chunks = new ChunkedTree(parser, this.parsedText);
    this.shared.trees?.use(this.chunks);
  }

  get text(): string {
    return this.textValue;
  }

  replaceText(text: string): void {
    this.textValue = text;
    this.module = undefined;
  }

  /** Only the characters the edit changes in the preprocessed text are re-parsed (at the next use). */
  edit(start: number, oldEnd: number, newText: string): void {
    const before = this.textValue;
    this.textValue = before.slice(0, start) + newText + before.slice(oldEnd);
    this.module = undefined;
    // Typing inside code leaves the includes and macros as they were: keep the unit, edit its text.
    const cached = this.unitCache;
    if (cached && cached.text === before && cached.unit.isPlainEdit(before, start, oldEnd, newText)) {
      const inStep = this.pendingEdits !== null && (this.pendingEdits.length > 0 || cached.unit.parseText === this.parsedText);
      const previous = cached.unit.parseText;
      cached.unit = cached.unit.withPlainEdit(this.textValue, start, oldEnd, newText);
      cached.text = this.textValue;
      // The grammar-gap rewrite may change the parse text beyond the edit (`,` after `= {...}`): then diff.
      const exact = inStep && cached.unit.parseText === previous.slice(0, start) + newText + previous.slice(oldEnd);
      if (exact) this.pendingEdits!.push({ start, oldEnd, newText });
      else this.pendingEdits = null;
    } else this.pendingEdits = null;
  }

  /** The translation unit of the current text, rebuilt when the text or the project changed. */
  private unit(): CudaUnit {
    const generation = this.context.project?.generation ?? 0;
    // A header's unit is that of a file known to include it: learning of one (another document's unit) rebuilds it.
    const context = this.inContext && this.context.path ? this.context.project?.contextFor?.(this.context.path) : undefined;
    const cached = this.unitCache;
    if (cached && cached.text === this.textValue && cached.generation === generation && cached.context === context) return cached.unit;
    const unit = buildCudaUnit(this.textValue, this.context.path, this.context.project, this.shared.headers, context !== undefined);
    this.unitCache = { text: this.textValue, generation, context, unit };
    return unit;
  }

  /** Brings the syntax trees up to the current preprocessed text, re-parsing only what differs. */
  private synced(): ChunkedTree | null {
    if (!this.chunks) return null;
    // Before any node of these trees is read: may free other documents' trees, never these.
    this.shared.trees?.use(this.chunks);
    const next = this.unit().parseText;
    const old = this.parsedText;
    const pending = this.pendingEdits;
    this.pendingEdits = [];
    if (pending && pending.length > 0 && next !== old) {
      for (const e of pending) this.chunks.edit(e.start, e.oldEnd, e.newText);
      this.parsedText = next;
    } else if (next !== old) {
      let start = 0;
      const limit = Math.min(old.length, next.length);
      while (start < limit && old.charCodeAt(start) === next.charCodeAt(start)) start++;
      let oldEnd = old.length;
      let newEnd = next.length;
      while (oldEnd > start && newEnd > start && old.charCodeAt(oldEnd - 1) === next.charCodeAt(newEnd - 1)) {
        oldEnd--;
        newEnd--;
      }
      this.chunks.edit(start, oldEnd, next.slice(start, newEnd));
      this.parsedText = next;
    }
    return this.chunks;
  }

  analyze(options: LintOptions): AnalysisResult {
    const alone = this.analyzeUnit(options);
    const path = this.context.path;
    const context = path && !this.asIncluder && !this.inContext && alone.syntaxProblems.length > 0 && !isSourceFile(path) ? this.context.project?.contextFor?.(path) : undefined;
    if (!context || context === this.contextRejected) return alone;
    this.inContext = true;
    const inContext = this.analyzeUnit(options);
    if (inContext.context && inContext.syntaxProblems.length < alone.syntaxProblems.length) return inContext;
    // No better inside that file: read alone again, and do not try it again.
    this.inContext = false;
    this.contextRejected = context;
    return this.analyzeUnit(options);
  }

  private analyzeUnit(options: LintOptions): AnalysisResult {
    const chunks = this.synced();
    if (!chunks) return { findings: [], syntaxProblems: [], symbols: [] };
    const unit = this.unit();
    const own = this.analyzer.analyze(chunks.topLevel(), this.textValue, options, unit, this.context.project?.generation ?? 0);
    const includer = unit.contextPath ? this.includerDocument(unit.contextPath) : undefined;
    return includer && this.context.path ? withContextResults(own, includer.analyze(options), this.context.path, unit.contextPath!) : own;
  }

  /** The file this header is read in, as a document (its text from the project: the editor's when open). */
  private includerDocument(contextPath: string): CudaDocument | undefined {
    const project = this.context.project;
    const text = project?.readFile(contextPath);
    if (!project || text === undefined) return undefined;
    if (this.includer?.path !== contextPath) {
      this.includer?.document.dispose();
      this.includer = { path: contextPath, document: new CudaDocument(this.parser, text, { path: contextPath, project }, this.shared, true) };
    } else if (this.includer.document.text !== text) this.includer.document.replaceText(text);
    return this.includer.document;
  }

  kernelModule(): KernelModule {
    const chunks = this.synced();
    if (!chunks) return EMPTY_MODULE;
    this.module ??= lowerCudaNodes(chunks.topLevel(), this.textValue, this.unit()).module;
    this.hoverModule = { text: this.textValue, module: this.module };
    return this.module;
  }

  irText(): string {
    const chunks = this.synced();
    if (!chunks) return '';
    return printModule(lowerCudaNodes(chunks.topLevel(), this.textValue, this.unit()).module);
  }

  hover(position: Position): HoverInfo | null {
    const chunks = this.synced();
    if (!chunks) return null;
    return hoverCuda(chunks.nodeAt(position, offsetAt(this.textValue, position)), this.textValue, position, () => this.moduleForHover());
  }

  /** The current module when built, else the last one (lowering the whole file per keystroke would stall typing). */
  private moduleForHover(): KernelModule {
    if (this.module) return this.module;
    const last = this.hoverModule;
    if (!last) return this.kernelModule();
    if (last.text !== this.textValue) this.hoverStale = true;
    return last.module;
  }

  prepareHover(): void {
    if (!this.hoverStale) return;
    this.hoverStale = false;
    this.kernelModule();
  }

  dispose(): void {
    if (this.chunks) {
      this.shared.open = (this.shared.open ?? 1) - 1;
      if (this.shared.open === 0) this.shared.headers?.clear();
    }
    if (this.chunks) this.shared.trees?.forget(this.chunks);
    this.chunks?.dispose();
    this.chunks = null;
    this.includer?.document.dispose();
    this.includer = undefined;
    this.module = undefined;
    this.hoverModule = undefined;
    this.unitCache = undefined;
  }
}
