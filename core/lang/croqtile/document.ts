// An open Croqtile document: its text, the per-function parse and analysis caches (an edit re-parses only the
// `__co__` functions it changed), and the IR that hovers read. What `Language.loadFrontEnd` opens for the engine.
import type { AnalysisResult, HoverInfo, LintOptions, Position } from '../../api';
import { printModule } from '../../ir/print';
import type { KernelModule } from '../../ir/types';
import type { LanguageDocument } from '../language';
import { CroqtileAnalyzer } from './analyze';
import { hoverCroqtile } from './hover';

export class CroqtileDocument implements LanguageDocument {
  private readonly analyzer = new CroqtileAnalyzer();
  private module: KernelModule | undefined;
  /** The last module built and the text it was built from: hovers while typing read it (see prepareHover). */
  private hoverModule: { text: string; module: KernelModule } | undefined;
  /** Whether a hover answered from `hoverModule` of an older text since it was last built. */
  private hoverStale = false;

  constructor(private textValue: string) {}

  get text(): string {
    return this.textValue;
  }

  replaceText(text: string): void {
    this.textValue = text;
    this.module = undefined;
  }

  edit(start: number, oldEnd: number, newText: string): void {
    this.textValue = this.textValue.slice(0, start) + newText + this.textValue.slice(oldEnd);
    this.module = undefined;
  }

  analyze(options: LintOptions): AnalysisResult {
    const result = this.analyzer.analyze(this.textValue, options);
    // The analysis lowered only the functions that changed; hovers need the whole file again.
    this.module = undefined;
    return result;
  }

  kernelModule(): KernelModule {
    this.module ??= this.analyzer.fullModule(this.textValue);
    this.hoverModule = { text: this.textValue, module: this.module };
    return this.module;
  }

  irText(): string {
    return printModule(this.analyzer.fullModule(this.textValue));
  }

  hover(position: Position): HoverInfo | null {
    return hoverCroqtile(this.textValue, position, this.moduleForHover());
  }

  /** The last module when it is of this text or a hover is answered while typing (lowering every keystroke stalls it). */
  private moduleForHover(): KernelModule {
    if (this.module) return this.module;
    const last = this.hoverModule;
    if (!last) return this.kernelModule();
    if (last.text === this.textValue) return (this.module = last.module);
    this.hoverStale = true;
    return last.module;
  }

  prepareHover(): void {
    if (!this.hoverStale) return;
    this.hoverStale = false;
    this.kernelModule();
  }

  /** Releases the kept parses and findings. */
  dispose(): void {
    this.analyzer.clear();
    this.module = undefined;
    this.hoverModule = undefined;
  }
}
