// An open tilus document (a Python file): its text and the analysis of its last version. A Python file
// that does not import tilus is not analysed (no findings, no hovers), whatever the editor opened it as.
import type { AnalysisResult, HoverInfo, LintOptions, Position } from '../../api';
import { printModule } from '../../ir/print';
import type { KernelModule } from '../../ir/types';
import type { LanguageDocument } from '../language';
import { analyzeTilus, lowerTilusFile, type TilusFile, tilusModule } from './analyze';
import { hoverTilus } from './hover';

const EMPTY: AnalysisResult = { findings: [], syntaxProblems: [], symbols: [] };

export class TilusDocument implements LanguageDocument {
  private file: { text: string; file: TilusFile } | undefined;

  constructor(private textValue: string) {}

  get text(): string {
    return this.textValue;
  }

  replaceText(text: string): void {
    this.textValue = text;
  }

  edit(start: number, oldEnd: number, newText: string): void {
    this.textValue = this.textValue.slice(0, start) + newText + this.textValue.slice(oldEnd);
  }

  analyze(options: LintOptions): AnalysisResult {
    const { result, file } = analyzeTilus(this.textValue, options);
    this.file = { text: this.textValue, file };
    return file.tilus ? result : EMPTY;
  }

  private lowered(): TilusFile {
    if (this.file?.text !== this.textValue) this.file = { text: this.textValue, file: lowerTilusFile(this.textValue) };
    return this.file.file;
  }

  kernelModule(): KernelModule {
    return tilusModule(this.lowered());
  }

  irText(): string {
    const file = this.lowered();
    const parts: string[] = [];
    for (const s of file.scripts) {
      for (const v of s.variants) {
        const labels = v.combinations.map((c) => c.label).filter(Boolean);
        if (labels.length) parts.push(`# ${s.script.name}: ${labels.length} autotune combination(s): ${labels.slice(0, 4).join(' | ')}${labels.length > 4 ? ' | …' : ''}`);
        parts.push(printModule({ language: 'tilus', kernels: [v.kernel], constants: new Map() }));
      }
    }
    return parts.join('\n');
  }

  hover(position: Position): HoverInfo | null {
    // Hovers read the last analysis while it is of this text, else lower the current text (Python files are small).
    return hoverTilus(this.textValue, position, this.lowered());
  }

  dispose(): void {
    this.file = undefined;
  }
}
