// The engine façade: loads every language's front end, keeps per-document state (text, syntax trees
// re-parsed where the language can, analysis caches) and runs the front end, the rules and the hover
// provider. Faces call nothing deeper than this file; languages come from the registry (languages.ts).
import type { AnalysisResult, Finding, HoverInfo, LanguageId, LintOptions, Position, Range } from './api';
import type { FrontEnd, LanguageDocument } from './lang/language';
import type { ProjectServices } from './project/services';
import { offsetAt } from './lang/text-offsets';
import { LANGUAGES, languageForPath } from './languages';
import { isExcludedByConfig } from './project/config-file';
import { isSourceFile } from './project/project';
import { mergeRuleSettings } from './rule-settings';
import { applySuppressions } from './suppressions';

export { languageForPath, offsetAt };

export interface EngineOptions {
  /** Folder holding tree-sitter.wasm and tree-sitter-cuda.wasm (dist/ when bundled). */
  wasmDir?: string;
  /**
   * Where documents' includes are read from and which compile flags apply (core/project/project.ts).
   * Without one, a document is analysed alone, as if it included nothing.
   */
  project?: ProjectServices;
  /**
   * The languages whose front ends to load (default: every language). A command that knows its files loads only
   * theirs: linting CUDA never builds Croqtile's hover tables, linting Croqtile never compiles a grammar.
   */
  languages?: readonly LanguageId[];
}

/** An LSP-style incremental change; without `range` the text replaces the whole document. */
export interface ContentChange {
  range?: Range;
  text: string;
}

export async function loadEngine(options: EngineOptions = {}): Promise<Engine> {
  const wanted = options.languages;
  const languages = wanted ? LANGUAGES.filter((l) => wanted.includes(l.id)) : LANGUAGES;
  const frontEnds = await Promise.all(languages.map(async (l): Promise<[LanguageId, FrontEnd]> => [l.id, await l.loadFrontEnd(options)]));
  return new Engine(new Map(frontEnds), options.project);
}

export class Engine {
  constructor(
    private readonly frontEnds: ReadonlyMap<LanguageId, FrontEnd>,
    /** The project documents with a path read their includes through. */
    readonly project?: ProjectServices,
  ) {}

  /**
   * One-shot analysis of a whole text (the CLI path). With `path` (absolute), the text is analysed as
   * the translation unit of that file: with its includes and compile flags from the engine's project.
   */
  analyze(text: string, language: LanguageId, options: LintOptions = {}, path?: string): AnalysisResult {
    const document = this.openDocument(language, text, path);
    try {
      return document.analyze(options);
    } finally {
      document.dispose();
    }
  }

  /** Entries in every front end's shared caches (`cuda.headers`, `cuda.trees`, ...): what closing documents must free. */
  cacheSizes(): Record<string, number> {
    const sizes: Record<string, number> = {};
    for (const [language, frontEnd] of this.frontEnds) for (const [cache, n] of Object.entries(frontEnd.cacheSizes?.() ?? {})) sizes[`${language}.${cache}`] = n;
    return sizes;
  }

  openDocument(language: LanguageId, text: string, path?: string): EngineDocument {
    const frontEnd = this.frontEnds.get(language);
    if (!frontEnd) throw new Error(LANGUAGES.some((l) => l.id === language) ? `the engine was loaded without the ${language} front end` : `unknown language '${language}'`);
    return new EngineDocument(language, frontEnd.openDocument(text, path ? { path, project: this.project } : {}), path ? this.project : undefined, path);
  }
}

export class EngineDocument {
  private cached: { options: LintOptions; generation: number; context: string | undefined; result: AnalysisResult } | undefined;
  /** The last result, kept across edits: requests while typing answer from it rather than analyse again. */
  private last: AnalysisResult | undefined;

  constructor(
    readonly language: LanguageId,
    private readonly document: LanguageDocument,
    /** The project its includes are read through: a new generation (a header changed) invalidates the cached result. */
    private readonly project?: ProjectServices,
    /** The document's path: a header's translation unit is that of the file known to include it (`contextFor`). */
    private readonly path?: string,
  ) {}

  get text(): string {
    return this.document.text;
  }

  /** Applies LSP-style edits in order; ranged edits re-parse only the regions they touch. */
  update(changes: ContentChange[]): void {
    for (const change of changes) {
      if (!change.range) {
        this.document.replaceText(change.text);
        continue;
      }
      const text = this.document.text;
      const startIndex = offsetAt(text, change.range.start);
      const oldEndIndex = Math.max(startIndex, offsetAt(text, change.range.end));
      this.document.edit(startIndex, oldEndIndex, change.text);
    }
    this.cached = undefined;
  }

  analyze(options: LintOptions = {}): AnalysisResult {
    const generation = this.project?.generation ?? 0;
    const context = this.path ? this.project?.contextFor?.(this.path) : undefined;
    if (this.cached && this.cached.options === options && this.cached.generation === generation && this.cached.context === context) return this.cached.result;
    // The project's .phaseflip.json sets rule severities under the caller's (the editor's settings, --rule).
    const config = this.path ? this.project?.projectConfig?.(this.path) : undefined;
    const effective = config && Object.keys(config.rules).length ? { ...options, rules: mergeRuleSettings(config.rules, options.rules ?? {}) } : options;
    const analysed = this.document.analyze(effective);
    // A header's directives may serve another file that includes it: only a translation unit's own file reports unused ones.
    const reportUnused = this.path === undefined || isSourceFile(this.path);
    const kept = applySuppressions({ findings: analysed.findings, text: this.document.text, path: this.path, readFile: (file) => this.project?.readFile(file), options: effective, reportUnused });
    const findings = this.outsideExcludedHeaders(kept);
    const result = findings.length === analysed.findings.length && findings.every((f, i) => f === analysed.findings[i]) ? analysed : { ...analysed, findings };
    this.cached = { options, generation, context, result };
    this.last = result;
    return result;
  }

  /**
   * The findings not located in a header that its `.phaseflip.json` excludes (like clang-tidy's header filter: a
   * vendored library's headers are not linted, even when a file that includes them is). The document's own
   * findings are kept: whether the document itself is linted is the face's decision.
   */
  private outsideExcludedHeaders(findings: Finding[]): Finding[] {
    const project = this.project;
    if (!project?.projectConfig || !findings.some((f) => f.range.file !== undefined && f.range.file !== this.path)) return findings;
    const excluded = new Map<string, boolean>();
    const isExcluded = (file: string): boolean => {
      let known = excluded.get(file);
      if (known === undefined) {
        const config = project.projectConfig!(file);
        excluded.set(file, (known = config !== undefined && isExcludedByConfig(file, config)));
      }
      return known;
    };
    const out = findings.filter((f) => f.range.file === undefined || f.range.file === this.path || !isExcluded(f.range.file));
    return out.length === findings.length ? findings : out;
  }

  /** The kernel IR the rules see, as text (`phaseflip ir`): what the front end understood. */
  irText(): string {
    return this.document.irText();
  }

  /** Releases the document's syntax trees; call when the editor closes it. */
  dispose(): void {
    this.document.dispose();
    this.cached = undefined;
    this.last = undefined;
  }

  /** Answers from the IR last lowered while the text changes (see `prepareHover`). */
  hover(position: Position): HoverInfo | null {
    return this.document.hover(position);
  }

  /** The result of the last analysis, of whatever version it was; undefined before the first one. */
  lastAnalysis(): AnalysisResult | undefined {
    return this.last;
  }

  /** Whether an analysis of the current text is cached (a request can have it without analysing). */
  get analysisCurrent(): boolean {
    return this.cached !== undefined;
  }

  /** Lowers the file again for hovers if one answered from an older text; call when typing pauses. */
  prepareHover(): void {
    this.document.prepareHover?.();
  }
}
