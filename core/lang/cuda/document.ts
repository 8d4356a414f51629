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
import { buildCudaUnit, type CudaUnit, type HeaderCache } from './unit';

const EMPTY_MODULE: KernelModule = { language: 'cuda', kernels: [], constants: new Map() };

export class CudaDocument implements LanguageDocument {
  /** Null once disposed: the document then analyses to nothing. */
  private chunks: ChunkedTree | null;
  /** The preprocessed text the chunks hold (same length and lines as the document's text). */
  private parsedText: string;
  private unitCache: { text: string; generation: number; unit: CudaUnit } | undefined;
  private readonly analyzer = new CudaAnalyzer();
  private module: KernelModule | undefined;

  constructor(
    parser: Parser,
    private textValue: string,
    private readonly context: DocumentContext = {},
    private readonly headers?: HeaderCache,
  ) {
    this.parsedText = this.unit().parseText;
    this.chunks = new ChunkedTree(parser, this.parsedText);
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
      cached.unit = cached.unit.withPlainEdit(this.textValue, start, oldEnd, newText);
      cached.text = this.textValue;
    }
  }

  /** The translation unit of the current text, rebuilt when the text or the project changed. */
  private unit(): CudaUnit {
    const generation = this.context.project?.generation ?? 0;
    const cached = this.unitCache;
    if (cached && cached.text === this.textValue && cached.generation === generation) return cached.unit;
    const unit = buildCudaUnit(this.textValue, this.context.path, this.context.project, this.headers);
    this.unitCache = { text: this.textValue, generation, unit };
    return unit;
  }

  /** Brings the syntax trees up to the current preprocessed text, re-parsing only what differs. */
  private synced(): ChunkedTree | null {
    if (!this.chunks) return null;
    const next = this.unit().parseText;
    const old = this.parsedText;
    if (next !== old) {
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
    const chunks = this.synced();
    if (!chunks) return { findings: [], syntaxProblems: [], symbols: [] };
    return this.analyzer.analyze(chunks.topLevel(), this.textValue, options, this.unit(), this.context.project?.generation ?? 0);
  }

  kernelModule(): KernelModule {
    const chunks = this.synced();
    if (!chunks) return EMPTY_MODULE;
    this.module ??= lowerCudaNodes(chunks.topLevel(), this.textValue, this.unit()).module;
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
    const module = this.kernelModule();
    return hoverCuda(chunks.nodeAt(position, offsetAt(this.textValue, position)), this.textValue, position, module);
  }

  dispose(): void {
    this.chunks?.dispose();
    this.chunks = null;
    this.module = undefined;
    this.unitCache = undefined;
  }
}
