// The translation unit as the CUDA front end sees it: the document preprocessed with the macros of
// its includes and its compile flags, and the headers it includes. Headers are parsed lazily (on the
// first use of a name they define) and shared between documents through one `HeaderCache` per front
// end, so an edit in the document re-parses none of them.
import * as path from 'node:path';
import type { AnalysisNote, Range } from '../../api';
import type { ProjectServices, UnitFlags } from '../../project/services';
import { parseIntLiteral } from './constants';
import { offsetAt } from '../text-offsets';
import { type Parser, type SyntaxNode, type Tree, parseWhole } from './parser';
import { rewriteGrammarGaps } from './preprocess/grammar-gaps';
import { expandMacros } from './preprocess/macros';
import { buildTranslationUnit, searchPathResolver, type TranslationUnit, type TranslationUnitFile } from './preprocess/translation-unit';
import { cudaToolkitIncludeDirs } from './toolkit';
import { scanCuda, type CudaScan, type ScanCache, type FnDef, type FunctionLookup, type LowerContext } from './scan';
import { named, registerHeaderTree } from './syntax-nodes';

/** Files whose text mentions none of these cannot hold a barrier operation, so their functions are never inlined. */
const BARRIER_WORDS = /barrier|mbar|arrive|wait|expect|complete_tx|semaphore|fence|cp\.async|bulk|tma|tcgen05|wgmma|commit|pipeline|producer|consumer|syncthreads|named_barrier|bar\.sync|bar\.arrive/i;

/** Device code in a header: what the simulator must compile to run a kernel that uses it. */
const DEVICE_CODE_WORDS = /__device__|__global__|__shared__|_DEVICE\b|__forceinline__/;

interface HeaderEntry {
  parseText: string;
  tree?: Tree;
  scan?: CudaScan;
  /** Identifiers of the header, to find the headers that may define a name without parsing them. */
  words?: Set<string>;
  mayHoldBarriers: boolean;
  lastUse: number;
}

/** How many parsed headers a front end keeps; the least recently used ones are freed past it. */
const MAX_PARSED_HEADERS = 600;

/** Parsed headers shared by the documents of one front end, keyed by path and preprocessed text. */
export class HeaderCache {
  private readonly entries = new Map<string, HeaderEntry>();
  private clock = 0;

  constructor(private readonly parser: Parser) {}

  private entry(file: TranslationUnitFile): HeaderEntry {
    let e = this.entries.get(file.path);
    if (!e || e.parseText !== file.pre.parseText) {
      if (e?.tree) {
        e.tree.delete();
        this.freed++;
      }
      e = { parseText: file.pre.parseText, mayHoldBarriers: BARRIER_WORDS.test(file.pre.parseText), lastUse: 0 };
      this.entries.set(file.path, e);
    }
    e.lastUse = ++this.clock;
    return e;
  }

  /** Whether the header may define `name` (a cheap lexical test; parsing happens in `scan`). */
  mayDefine(file: TranslationUnitFile, name: string): boolean {
    const e = this.entry(file);
    if (!e.mayHoldBarriers) return false;
    e.words ??= new Set(e.parseText.match(/[A-Za-z_]\w*/g) ?? []);
    return e.words.has(name);
  }

  /** The header's top-level declarations, parsing it on first use. */
  scan(file: TranslationUnitFile, kernelMacros: readonly string[]): CudaScan {
    const e = this.entry(file);
    if (!e.scan) {
      const tree = parseWhole(this.parser, e.parseText);
      if (!tree) throw new Error('tree-sitter returned no tree');
      registerHeaderTree(tree, file.path);
      e.tree = tree;
      e.scan = scanCuda(named(tree.rootNode), file.text, { kernelMacros });
      this.evict();
    }
    return e.scan;
  }

  private evict(): void {
    const parsed = [...this.entries.entries()].filter(([, e]) => e.tree);
    if (parsed.length <= MAX_PARSED_HEADERS) return;
    parsed.sort((a, b) => a[1].lastUse - b[1].lastUse);
    for (const [p, e] of parsed.slice(0, parsed.length - MAX_PARSED_HEADERS)) {
      e.tree?.delete();
      this.entries.delete(p);
    }
    this.freed++;
  }

  /** Counts the times parsed headers were freed: definitions taken from them before are no longer valid. */
  freed = 0;

  /** How many headers are cached (parsed or not). */
  get size(): number {
    return this.entries.size;
  }

  /** Frees every header (the last open document was closed: nothing reads them). */
  clear(): void {
    for (const e of this.entries.values()) e.tree?.delete();
    if (this.entries.size > 0) this.freed++;
    this.entries.clear();
  }
}

/** A document's translation unit: what `buildTranslationUnit` found plus what the front end derives from it. */
export class CudaUnit {
  /** The headers, in first-inclusion order, whose functions may be inlined (not the toolkit's). */
  private readonly headers: TranslationUnitFile[];
  private readonly byPath = new Map<string, TranslationUnitFile>();
  private macroConstantsCache: Map<string, number> | undefined;
  /**
   * Definitions found in the headers by name, kept across analyses of the same headers (a plain edit keeps
   * them) until the header cache frees a parsed header.
   */
  private headerDefinitions: { freed: number; found: Map<string, FnDef[] | undefined> } | undefined;

  constructor(
    readonly tu: TranslationUnit,
    readonly flags: UnitFlags | undefined,
    private readonly cache: HeaderCache | undefined,
    readonly systemDirs: readonly string[],
    readonly hasPath: boolean,
    /** The main file of the translation unit the document was analysed in, when that is another file (it includes the document). */
    readonly contextPath?: string,
  ) {
    for (const f of tu.files) this.byPath.set(f.path, f);
    this.headers = tu.files.filter((f) => f !== tu.main && !this.isSystem(f.path));
  }

  /**
   * The unit after an edit of the document that cannot change what the preprocessor does (see
   * `isPlainEdit`): the same includes and macros, the edit applied to the parse text as it is. Saves
   * walking the includes on every keystroke.
   */
  withPlainEdit(text: string, start: number, oldEnd: number, newText: string): CudaUnit {
    const main = this.tu.main;
    // The edit goes into the text before the grammar's gaps were rewritten, and the rewrite runs again: an
    // edit can make or unmake a gap anywhere its construct reaches (`,` after `= {...}` lines below).
    const before = main.pre.beforeGrammarGaps ?? main.pre.parseText;
    const spliced = before.slice(0, start) + newText + before.slice(oldEnd);
    const parseText = rewriteGrammarGaps(spliced);
    const delta = newText.length - (oldEnd - start);
    const shifted = (list: ReadonlyArray<{ start: number; end: number }>) => list.map((r) => (r.start >= oldEnd ? { start: r.start + delta, end: r.end + delta } : r));
    const inactiveRanges = shifted(main.pre.inactiveRanges);
    const blankedInvocations = shifted(main.pre.blankedInvocations ?? []);
    const pre = { ...main.pre, parseText, inactiveRanges, blankedInvocations, beforeGrammarGaps: parseText !== spliced ? spliced : undefined };
    const edited = { ...main, text, pre };
    const tu: TranslationUnit = { ...this.tu, main: edited, files: this.tu.files.map((f) => (f === main ? edited : f)) };
    const next = new CudaUnit(tu, this.flags, this.cache, this.systemDirs, this.hasPath, this.contextPath);
    next.macroConstantsCache = this.macroConstantsCache;
    next.headerDefinitions = this.headerDefinitions;
    return next;
  }

  /**
   * Whether replacing `[start, oldEnd)` of the document by `newText` leaves the preprocessor's work
   * as it was: no line break, directive, comment, string or continuation character on either side,
   * outside inactive regions, and no macro name among the identifiers the edit touches.
   */
  isPlainEdit(oldText: string, start: number, oldEnd: number, newText: string): boolean {
    const special = /[#\\\n\r/*"'?]/;
    if (special.test(newText) || special.test(oldText.slice(start, oldEnd))) return false;
    for (const r of this.tu.main.pre.inactiveRanges) if (r.start <= oldEnd + 1 && r.end >= start - 1) return false;
    // Typing inside a blanked macro call (`DG_STATIC_ASSERT(...)`), or a parenthesis that may make a macro name a call.
    for (const r of this.tu.main.pre.blankedInvocations ?? []) if (r.start <= oldEnd + 1 && r.end >= start - 1) return false;
    if (/[()]/.test(newText) || /[()]/.test(oldText.slice(start, oldEnd))) return false;
    const word = /[A-Za-z0-9_]/;
    const touched = (text: string, from: number, to: number): string[] => {
      let a = from;
      let b = to;
      while (a > 0 && word.test(text[a - 1])) a--;
      while (b < text.length && word.test(text[b])) b++;
      return text.slice(a, b).match(/[A-Za-z_]\w*/g) ?? [];
    };
    const after = oldText.slice(0, start) + newText + oldText.slice(oldEnd);
    const ids = [...touched(oldText, start, oldEnd), ...touched(after, start, start + newText.length)];
    return !ids.some((id) => this.tu.macros.has(id));
  }

  /** The same-length text tree-sitter parses for the document (inactive regions blanked). */
  get parseText(): string {
    return this.tu.main.pre.parseText;
  }

  get kernelMacros(): string[] {
    return this.tu.main.pre.kernelMacros;
  }

  /** Every header of the project (not the toolkit's or the system's): a whole program's host helpers live there too. */
  projectHeaders(): readonly TranslationUnitFile[] {
    return this.headers;
  }

  /** The headers (not the toolkit's) that hold device code: what the simulator compiles with the file. */
  deviceHeaders(): TranslationUnitFile[] {
    // The written text too: the parse text blanks specifier macros (`CUTE_DEVICE`, `PF_DEVICE`), so a
    // header whose functions are all declared through one shows no device word there.
    return this.headers.filter((f) => DEVICE_CODE_WORDS.test(f.pre.parseText) || DEVICE_CODE_WORDS.test(f.text));
  }

  /** Paths of the headers read, for the editor's dependency graph. */
  get dependencies(): string[] {
    return this.tu.files.filter((f) => f !== this.tu.main).map((f) => f.path);
  }

  /** For each header, the range of the document's `#include` line through which it is reached. */
  includeSites(): Record<string, Range> {
    const out: Record<string, Range> = {};
    const main = this.tu.main.path;
    for (const f of this.tu.files) {
      if (f === this.tu.main) continue;
      let at: TranslationUnitFile | undefined = f;
      let guard = 0;
      while (at?.includedFrom && at.includedFrom.path !== main && guard++ < 200) at = this.byPath.get(at.includedFrom.path);
      if (at?.includedFrom?.path === main) out[f.path] = lineRange(at.includedFrom.line, this.tu.main.text);
    }
    return out;
  }

  /** The text of a file of the unit (the header a range lies in). */
  textOf(file: string): string | undefined {
    return this.byPath.get(file)?.text;
  }

  private isSystem(file: string): boolean {
    return this.systemDirs.some((d) => file.startsWith(d.endsWith(path.sep) ? d : d + path.sep));
  }

  /** Functions by name: the document's, else those of the headers that define the name. */
  functions(main: CudaScan): FunctionLookup {
    const headers = this.headers;
    const cache = this.cache;
    if (cache && this.headerDefinitions?.freed !== cache.freed) this.headerDefinitions = { freed: cache.freed, found: new Map() };
    const found = this.headerDefinitions?.found ?? new Map<string, FnDef[] | undefined>();
    const kernelMacros = this.kernelMacros;
    return {
      get(name: string): FnDef[] | undefined {
        const own = main.fns.get(name);
        if (own || !cache || !headers.length) return own;
        if (found.has(name)) return found.get(name);
        const defs: FnDef[] = [];
        for (const h of headers) if (cache.mayDefine(h, name)) defs.push(...(cache.scan(h, kernelMacros).fns.get(name) ?? []));
        found.set(name, defs.length ? defs : undefined);
        return found.get(name);
      },
      everywhere(name: string): FnDef[] | undefined {
        const own = main.fns.get(name);
        if (!own) return this.get(name);
        if (!cache || !headers.length) return own;
        const defs = [...own];
        for (const h of headers) if (cache.mayDefine(h, name)) defs.push(...(cache.scan(h, kernelMacros).fns.get(name) ?? []));
        return defs;
      },
    };
  }

  /** The document's top-level declarations, with the unit's integer macros as constants and its kernel macros. */
  scan(tops: SyntaxNode[], text: string, cache?: ScanCache): CudaScan {
    const scan = scanCuda(tops, text, { kernelMacros: this.kernelMacros, cache });
    for (const [name, v] of this.macroConstants()) if (!scan.constants.has(name)) scan.constants.set(name, v);
    return scan;
  }

  /** What the lowering of the document's kernels needs from the unit. */
  lowerContext(scan: CudaScan): LowerContext {
    return {
      functions: this.functions(scan),
      fileText: (file) => this.textOf(file),
      whyUndefined: (name) => this.whyUndefined(name),
      ...(this.flags?.launch?.length ? { launchSettings: this.flags.launch } : {}),
      ...(this.hasPath ? { documentPath: this.tu.main.path } : {}),
      ...(this.flags?.noLibraryModels ? { definitionsFirst: true } : {}),
    };
  }

  private whyUndefined(name: string): string {
    const macro = this.tu.macros.get(name);
    if (macro?.params) return 'a function-like macro: macros are not expanded inside code';
    if (!this.hasPath) return 'not defined in this file, and the file was analysed without its path, so its includes were not read';
    // Toolchain headers hold no barrier helpers: they are no reason a helper is missing.
    const missing = this.tu.missing.filter((m) => !isToolchainHeader(m.spelling, m.angled));
    if (missing.length) {
      const first = missing[0];
      const spelled = first.angled ? `<${first.spelling}>` : `"${first.spelling}"`;
      return `not defined in this translation unit; ${missing.length === 1 ? `${spelled} was` : `${missing.length} includes (${spelled}, ...) were`} not found on the include path`;
    }
    return 'not defined in this translation unit';
  }

  /** Integer object-like macros of the whole unit (`#define STAGES 4` in a header), for constant folding. */
  macroConstants(): Map<string, number> {
    if (this.macroConstantsCache) return this.macroConstantsCache;
    const out = new Map<string, number>();
    const macros = this.tu.macros;
    for (const name of macros.names()) {
      const def = macros.get(name);
      if (!def || def.params || !def.body.trim() || name.startsWith('__')) continue;
      let body = def.body.trim();
      if (/[A-Za-z_]/.test(body.replace(/^\(?\s*(?:-\s*)?0[xX][0-9a-fA-F]+|[uUlL]+\b/g, ''))) body = expandMacros(body, macros, 2000).trim();
      const v = parseIntLiteral(body.replace(/^\((.*)\)$/, '$1').trim());
      if (v !== undefined) out.set(name, v);
    }
    this.macroConstantsCache = out;
    return out;
  }

  /** Information notes on what the unit could not read: includes not found, flag files not understood. */
  notes(): AnalysisNote[] {
    const out: AnalysisNote[] = [];
    if (!this.hasPath) return out;
    const where = this.flags && this.flags.source !== 'none' ? `with the include paths of ${this.flags.source}` : 'with no include paths configured (compile_commands.json, compile_flags.txt, .clangd, .phaseflip.json, -I or phaseflip.includePaths)';
    for (const m of this.tu.missing) {
      // Only the document's own includes: a header's are noted when the header is analysed itself.
      if (m.from !== this.tu.main.path || isToolchainHeader(m.spelling, m.angled)) continue;
      const spelled = m.angled ? `<${m.spelling}>` : `"${m.spelling}"`;
      const range: Range = lineRange(m.line, this.byPath.get(m.from)?.text);
      if (m.from !== this.tu.main.path) range.file = m.from;
      out.push({ kind: 'include-not-found', message: `${spelled} was not found ${where}; what it declares is not analysed`, range });
    }
    for (const p of this.flags?.problems ?? []) out.push({ kind: 'flags', message: p, range: lineRange(0, undefined) });
    return out;
  }
}

/**
 * Standard library and CUDA runtime headers: without a toolchain they are not found, and what they
 * declare is either no barrier code or what the catalogue already knows (`<cuda/barrier>`), so not
 * finding them is no reason for a note.
 */
function isToolchainHeader(spelling: string, angled: boolean): boolean {
  if (!angled) return false;
  if (/^(cuda|cub|thrust|nv|cuda\/std|cooperative_groups)\//.test(spelling)) return true;
  if (!spelling.includes('/') && !spelling.includes('.')) return true; // <cstdint>, <vector>
  return /^(std\w*|string|math|assert|limits|float|errno|time|signal|ctype|inttypes|unistd|malloc|cuda|cuda_runtime|cuda_runtime_api|cuda_fp16|cuda_bf16|cuda_fp8|cuda_awbarrier\w*|cuda_pipeline\w*|device_launch_parameters|device_functions|cooperative_groups|mma|sm_\d+_intrinsics|crt\/\w+|curand\w*|cublas\w*|nvrtc|cudaTypedefs|cuda_device_runtime_api)\.h(pp)?$/.test(spelling);
}

/** The whole of line `line` of `text` (empty when the text is not known). */
function lineRange(line: number, text: string | undefined): Range {
  let length = 0;
  if (text !== undefined) {
    const start = offsetAt(text, { line, character: 0 });
    const end = text.indexOf('\n', start);
    length = (end < 0 ? text.length : end) - start;
  }
  return { start: { line, character: 0 }, end: { line, character: length } };
}

/**
 * Builds a document's translation unit; without a path or project, the document alone with the predefined
 * macros. A header that a known translation unit includes (`ProjectServices.contextFor`) is analysed inside
 * that unit: with the macros defined before its `#include` and the files included before it, as the compiler
 * reads it (a header included into a class body or after its library's macros is no valid file alone).
 */
export function buildCudaUnit(text: string, filePath: string | undefined, project: ProjectServices | undefined, cache: HeaderCache | undefined, inContext = true): CudaUnit {
  const mainPath = filePath ?? '<document>';
  if (!filePath || !project) {
    const options = { cudaArch: undefined, defines: new Map<string, string>(), undefines: [] };
    const tu = buildTranslationUnit(mainPath, text, { resolve: () => undefined }, { read: () => undefined }, options);
    return new CudaUnit({ ...tu, missing: [] }, undefined, undefined, [], false);
  }
  const context = inContext ? project.contextFor?.(filePath) : undefined;
  if (context !== undefined && context !== filePath) {
    const contextText = project.readFile(context);
    const inContext = contextText === undefined ? undefined : translationUnitOf(context, contextText, project, (p) => (p === filePath ? text : p === context ? contextText : project.readFile(p)));
    const file = inContext?.tu.files.find((f) => f.path === filePath);
    if (inContext && file) {
      project.noteInclusions?.(context, inContext.tu.files.map((f) => f.path));
      // The same unit seen from the header: it is the main file, the context's file one of the others.
      const tu: TranslationUnit = { ...inContext.tu, main: file, files: [file, ...inContext.tu.files.filter((f) => f !== file)] };
      return new CudaUnit(tu, inContext.flags, cache, inContext.systemDirs, true, context);
    }
  }
  const own = translationUnitOf(mainPath, text, project, (p) => (p === mainPath ? text : project.readFile(p)));
  project.noteInclusions?.(mainPath, own.tu.files.map((f) => f.path));
  return new CudaUnit(own.tu, own.flags, cache, own.systemDirs, true);
}

/** The translation unit of `mainPath` with its compile flags, files read through `read`. */
function translationUnitOf(mainPath: string, text: string, project: ProjectServices, read: (p: string) => string | undefined): { tu: TranslationUnit; flags: UnitFlags; systemDirs: string[] } {
  const flags = project.compileFlags(mainPath);
  // The toolkit's headers are searched last, for `<...>` includes (libcu++ is what the catalogue describes).
  const systemDirs = [...(flags.systemDirs ?? []), ...cudaToolkitIncludeDirs()];
  const options = { cudaArch: flags.cudaArch, defines: new Map(flags.defines ?? []), undefines: flags.undefines ?? [] };
  const resolver = searchPathResolver({ quote: flags.quoteDirs ?? [], include: flags.includeDirs ?? [], system: systemDirs }, (p) => project.exists(p));
  return { tu: buildTranslationUnit(mainPath, text, resolver, { read }, options), flags, systemDirs };
}
