// An open CUDA document: its text tiled into region-wise parsed syntax trees (chunks.ts), the
// per-kernel analysis cache, and the IR that hovers read. What `Language.loadFrontEnd` opens for the engine.
import type { AnalysisResult, HoverInfo, LintOptions, Position } from '../../api';
import { printModule } from '../../ir/print';
import type { KernelModule } from '../../ir/types';
import type { LanguageDocument } from '../language';
import { offsetAt } from '../text-offsets';
import { CudaAnalyzer } from './analyze';
import { ChunkedTree } from './chunks';
import { lowerCudaNodes } from './frontend';
import { hoverCuda } from './hover';
import type { Parser } from './parser';

const EMPTY_MODULE: KernelModule = { language: 'cuda', kernels: [], constants: new Map() };

export class CudaDocument implements LanguageDocument {
  /** Null once disposed: the document then analyses to nothing. */
  private chunks: ChunkedTree | null;
  private readonly analyzer = new CudaAnalyzer();
  private module: KernelModule | undefined;

  constructor(parser: Parser, private textValue: string) {
    this.chunks = new ChunkedTree(parser, textValue);
  }

  get text(): string {
    return this.textValue;
  }

  replaceText(text: string): void {
    this.textValue = text;
    this.chunks?.replaceAll(text);
    this.module = undefined;
  }

  /** Re-parses only the chunks the edit touches. */
  edit(start: number, oldEnd: number, newText: string): void {
    this.chunks?.edit(start, oldEnd, newText);
    this.textValue = this.textValue.slice(0, start) + newText + this.textValue.slice(oldEnd);
    this.module = undefined;
  }

  analyze(options: LintOptions): AnalysisResult {
    if (!this.chunks) return { findings: [], syntaxProblems: [], symbols: [] };
    return this.analyzer.analyze(this.chunks.topLevel(), this.textValue, options);
  }

  kernelModule(): KernelModule {
    if (!this.chunks) return EMPTY_MODULE;
    this.module ??= lowerCudaNodes(this.chunks.topLevel(), this.textValue).module;
    return this.module;
  }

  irText(): string {
    if (!this.chunks) return '';
    return printModule(lowerCudaNodes(this.chunks.topLevel(), this.textValue).module);
  }

  hover(position: Position): HoverInfo | null {
    if (!this.chunks) return null;
    const module = this.kernelModule();
    return hoverCuda(this.chunks.nodeAt(position, offsetAt(this.textValue, position)), this.textValue, position, module);
  }

  dispose(): void {
    this.chunks?.dispose();
    this.chunks = null;
    this.module = undefined;
  }
}
