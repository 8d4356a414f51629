// The language plug-in interface: what a language folder (core/lang/<id>/) gives the rest of core.
// The engine, the simulator entry point and the editor services reach a language only through
// these types; core/languages.ts lists the implementations. Types only.
import type { AnalysisResult, HoverInfo, LanguageId, LintOptions, Position } from '../api';
import type { KernelModule } from '../ir/types';
import type { LaunchTemplate } from '../sim/launch-template';
import type { DebugProgramFactory } from '../debug/target';
import type { PreparedSimulation, SimulateRequest } from '../sim/run';
import type { ProjectServices } from '../project/services';
import type { InlineValueSyntax } from './inline-values';

export interface Language {
  readonly id: LanguageId;
  /** File extensions, lower case with the dot (`.cu`); `languageForPath` reads them. */
  readonly extensions: readonly string[];
  /**
   * Extensions of files that may hold this language's code among other code (CUDA: C/C++ headers).
   * Named explicitly, such a file is linted in this language; found in a directory, only when
   * `holdsCode` says it contains some.
   */
  readonly headerExtensions: readonly string[];
  /** Whether a header's text holds code of this language (CUDA: device code or barrier APIs). */
  holdsCode(text: string): boolean;
  /**
   * Set when a file is of this language only if `holdsCode` says so, even named explicitly (tilus: a `.py`
   * file that imports tilus; other Python is not linted): what such a file lacks, for the message.
   */
  readonly codeRequired?: string;
  /** VS Code language ids of documents in this language (`cuda-cpp`). */
  readonly editorLanguageIds: readonly string[];
  /** What starts a comment to the end of the line (`//`, `#`): the suppression quick fix writes its directive with it. */
  readonly lineComment: string;
  /** How the editor's inline values find this language's functions and keywords. */
  readonly inlineValues: InlineValueSyntax;
  /** Loads what parsing needs (CUDA: the tree-sitter grammar from `wasmDir`); the engine awaits it once. */
  loadFrontEnd(options: FrontEndOptions): Promise<FrontEnd>;
  /**
   * A ready-to-run launch for every kernel of `text`, in source order, derived from signatures.
   * Never throws: an unreadable file gives no template. `wasmDir` as in `loadFrontEnd`.
   */
  launchTemplates(text: string, file?: string, wasmDir?: string): Promise<LaunchTemplate[]>;
  /**
   * Builds what `simulate` runs: one kernel launch (CUDA) or a whole program with its host code and
   * launches (Croqtile). Rejects with a SimError when the request does not fit the file.
   */
  prepareSimulation(req: SimulateRequest): Promise<PreparedSimulation>;
  /**
   * The same request under debugger control: the program the debug runtime (core/debug/) drives,
   * launch by launch, with this language's threads, frames, locals and expressions.
   */
  debugProgram(req: SimulateRequest): DebugProgramFactory;
  /**
   * Loads what a debug launch runs (the simulator and the debug target) ahead of it: the language imports them on
   * first use, and a debug adapter calls this while its client is still initialising.
   */
  preloadDebugger(): Promise<void>;
}

export interface FrontEndOptions {
  /** Folder holding tree-sitter.wasm and tree-sitter-cuda.wasm (dist/ when bundled). */
  wasmDir?: string;
}

/** A language's loaded parser: opens documents and folds constant expressions. */
export interface FrontEnd {
  /**
   * Opens a document. With a `path` and a `project`, the document is analysed as the translation
   * unit the compiler sees: with its includes (read through the project) and its compile flags.
   */
  openDocument(text: string, context?: DocumentContext): LanguageDocument;
  /**
   * The value of a constant expression written in this language (`2 * STAGES`), with the names in
   * `constants` bound; undefined when anything in it is not a known constant. Never throws.
   */
  evaluateConstant(expression: string, constants?: ReadonlyMap<string, number>): number | undefined;
  /** Entries in the caches the front end shares between documents (headers, syntax trees), by cache; for memory checks. */
  cacheSizes?(): Record<string, number>;
}

/** Where a document lives: its absolute path and the project that reads its includes. */
export interface DocumentContext {
  path?: string;
  project?: ProjectServices;
}

/**
 * One open document: its text, its syntax (re-parsed incrementally where the language can) and the
 * caches of its analysis. The engine keeps one per editor document.
 */
export interface LanguageDocument {
  readonly text: string;
  /** Replaces the whole text. */
  replaceText(text: string): void;
  /** Characters `[start, oldEnd)` of the current text become `newText`. */
  edit(start: number, oldEnd: number, newText: string): void;
  /** Findings, syntax problems and barrier symbols; kernels whose inputs did not change come from a cache. */
  analyze(options: LintOptions): AnalysisResult;
  /** The whole file lowered to the kernel IR, kept until the next edit (hovers read it). */
  kernelModule(): KernelModule;
  /** The kernel IR the rules see, as text (`phaseflip ir`). */
  irText(): string;
  /** While the text changes, hovers answer from the IR last lowered (positions as of then), not lowering per keystroke. */
  hover(position: Position): HoverInfo | null;
  /** Brings the IR hovers read up to the current text when a hover answered from an older one; the server calls it when typing pauses. */
  prepareHover?(): void;
  /** Releases the syntax trees; call when the editor closes the document. */
  dispose(): void;
}
