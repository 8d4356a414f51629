// The engine façade: owns the parser, keeps per-document syntax trees (re-parsed region-wise), and runs the
// front end, the rules and the hover provider. Faces call nothing deeper than this file.
import type { AnalysisResult, HoverInfo, LanguageId, LintOptions, Position, Range } from './api';
import { ChunkedTree } from './lang/cuda/chunks';
import { Parser, loadCudaLanguage } from './lang/cuda/parser';
import { CudaAnalyzer } from './lang/cuda/analyze';
import { CroqtileAnalyzer, hoverCroqtile } from './lang/croqtile/analyze';
import { hoverCuda } from './lang/cuda/hover';
import { printModule } from './ir/print';
import { lowerCudaNodes } from './lang/cuda/frontend';
import type { KernelModule } from './ir/types';

export interface EngineOptions {
  /** Folder holding tree-sitter.wasm and tree-sitter-cuda.wasm (dist/ when bundled). */
  wasmDir?: string;
}

/** An LSP-style incremental change; without `range` the text replaces the whole document. */
export interface ContentChange {
  range?: Range;
  text: string;
}

const EXTENSIONS: Record<string, LanguageId> = { '.cu': 'cuda', '.cuh': 'cuda', '.co': 'croqtile' };

export function languageForPath(file: string): LanguageId | undefined {
  const dot = file.lastIndexOf('.');
  return dot < 0 ? undefined : EXTENSIONS[file.slice(dot).toLowerCase()];
}

export async function loadEngine(options: EngineOptions = {}): Promise<Engine> {
  const cuda = await loadCudaLanguage(options.wasmDir);
  const parser = new Parser();
  parser.setLanguage(cuda);
  return new Engine(parser);
}

export class Engine {
  constructor(private readonly parser: Parser) {}

  /** One-shot analysis of a whole text (the CLI path). */
  analyze(text: string, language: LanguageId, options: LintOptions = {}): AnalysisResult {
    return this.openDocument(language, text).analyze(options);
  }

  openDocument(language: LanguageId, text: string): EngineDocument {
    return new EngineDocument(this.parser, language, text);
  }
}

export class EngineDocument {
  private chunks: ChunkedTree | null = null;
  private cached: { options: LintOptions; result: AnalysisResult } | undefined;
  private module: KernelModule | undefined;
  private readonly analyzer = new CudaAnalyzer();
  private readonly croqtile = new CroqtileAnalyzer();

  constructor(private readonly parser: Parser, readonly language: LanguageId, private textValue: string) {
    if (language === 'cuda') this.chunks = new ChunkedTree(parser, textValue);
  }

  get text(): string {
    return this.textValue;
  }

  /** Applies LSP-style edits in order; ranged edits re-parse only the regions they touch. */
  update(changes: ContentChange[]): void {
    for (const change of changes) {
      if (!change.range) {
        this.textValue = change.text;
        this.chunks?.replaceAll(change.text);
        continue;
      }
      const startIndex = offsetAt(this.textValue, change.range.start);
      const oldEndIndex = Math.max(startIndex, offsetAt(this.textValue, change.range.end));
      this.chunks?.edit(startIndex, oldEndIndex, change.text);
      this.textValue = this.textValue.slice(0, startIndex) + change.text + this.textValue.slice(oldEndIndex);
    }
    this.cached = undefined;
    this.module = undefined;
  }

  analyze(options: LintOptions = {}): AnalysisResult {
    if (this.cached && this.cached.options === options) return this.cached.result;
    let result: AnalysisResult = { findings: [], syntaxProblems: [], symbols: [] };
    if (this.chunks) result = this.analyzer.analyze(this.chunks.topLevel(), this.textValue, options);
    else if (this.language === 'croqtile') {
      result = this.croqtile.analyze(this.textValue, options);
      this.module = undefined;
    }
    this.cached = { options, result };
    return result;
  }

  /** The kernel IR the rules see, as text (`phaseflip ir`): what the front end understood. */
  irText(): string {
    if (this.language === 'croqtile') return printModule(this.croqtile.fullModule(this.textValue));
    if (!this.chunks) return '';
    return printModule(lowerCudaNodes(this.chunks.topLevel(), this.textValue).module);
  }

  /** Releases the document's syntax trees; call when the editor closes it. */
  dispose(): void {
    this.chunks?.dispose();
    this.chunks = null;
    this.cached = undefined;
    this.module = undefined;
  }

  hover(position: Position): HoverInfo | null {
    if (this.language === 'croqtile') {
      this.module ??= this.croqtile.fullModule(this.textValue);
      return hoverCroqtile(this.textValue, position, this.module);
    }
    if (!this.chunks) return null;
    this.module ??= lowerCudaNodes(this.chunks.topLevel(), this.textValue).module;
    return hoverCuda(this.chunks.nodeAt(position, offsetAt(this.textValue, position)), this.textValue, position, this.module);
  }
}

export function offsetAt(text: string, pos: Position): number {
  let line = 0;
  let i = 0;
  while (line < pos.line) {
    const nl = text.indexOf('\n', i);
    if (nl < 0) return text.length;
    i = nl + 1;
    line++;
  }
  const eol = text.indexOf('\n', i);
  const lineEnd = eol < 0 ? text.length : eol;
  return Math.min(i + pos.character, lineEnd);
}
