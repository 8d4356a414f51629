// The include walk: a main file with everything it includes, preprocessed in the order the compiler reads
// it, honouring `#pragma once`, include guards and cycles, and noting what could not be found.
import { preprocessFile, type IncludeDirective, type PreprocessedFile } from './directives';
import { scanFile } from './file-scan';
import type { IncludeResolver } from './include-resolver';
import type { MacroTable } from './macros';
import { predefinedMacros, type PreprocessorOptions } from './predefined';

export { searchPathResolver, type IncludeResolver, type SearchPaths } from './include-resolver';

export interface SourceReader {
  read(path: string): string | undefined;
}

export interface TranslationUnitFile {
  path: string;
  text: string;
  pre: PreprocessedFile;
  /** Depth in the include tree, 0 = main. */
  depth: number;
  includedFrom?: { path: string; line: number };
}

export interface MissingInclude {
  spelling: string;
  angled: boolean;
  from: string;
  /** Zero-based line of the directive. */
  line: number;
  /** Found on the search path but unreadable, rather than not found. */
  unreadable?: boolean;
}

export interface TranslationUnit {
  main: TranslationUnitFile;
  /** Every file once, in first-inclusion order, main first. */
  files: TranslationUnitFile[];
  /** Final state. */
  macros: MacroTable;
  missing: MissingInclude[];
  /** The walk stopped following includes at `maxFiles` files, or at the nesting or inclusion bounds. */
  truncated: boolean;
}

export interface TranslationUnitOptions extends PreprocessorOptions {
  /** Most distinct files (default 2000). */
  maxFiles?: number;
}

/** GCC's limit on nested includes. */
const MAX_DEPTH = 200;

/**
 * Preprocesses `mainText` and, depth first where each `#include` occurs, every file it includes. A file
 * guarded by `#pragma once` or a classic include guard is skipped (without reading or scanning it again) once
 * processed; a file met again while it is being included (a cycle) is skipped; an unguarded file included twice
 * is processed twice (its macros count twice) but listed once, with the result of its first inclusion.
 */
export function buildTranslationUnit(
  mainPath: string,
  mainText: string,
  resolver: IncludeResolver,
  reader: SourceReader,
  options: TranslationUnitOptions = {},
): TranslationUnit {
  const macros = predefinedMacros(options);
  const maxFiles = options.maxFiles ?? 2000;
  // Unguarded files included over and over could multiply without bound; inclusions are capped too.
  const maxInclusions = Math.max(maxFiles, 1) * 16;
  const files: TranslationUnitFile[] = [];
  const byPath = new Map<string, TranslationUnitFile>();
  const once = new Set<string>();
  const guards = new Map<string, string>();
  const texts = new Map<string, string | undefined>();
  const stack: string[] = [];
  const missing: MissingInclude[] = [];
  const missingKeys = new Set<string>();
  let inclusions = 0;
  let truncated = false;

  const hooks = {
    hasInclude: (spelling: string, angled: boolean): boolean =>
      resolver.resolve(spelling, angled, stack[stack.length - 1] ?? mainPath) !== undefined,
  };
  const noteMissing = (inc: IncludeDirective, from: string, unreadable: boolean): void => {
    const key = `${inc.angled ? '<' : '"'}${inc.spelling}\u0000${from}`;
    if (missingKeys.has(key)) return;
    missingKeys.add(key);
    const m: MissingInclude = { spelling: inc.spelling, angled: inc.angled, from, line: inc.line };
    if (unreadable) m.unreadable = true;
    missing.push(m);
  };
  const read = (p: string): string | undefined => {
    if (!texts.has(p)) texts.set(p, reader.read(p));
    return texts.get(p);
  };

  const process = (path: string, text: string, depth: number, includedFrom?: { path: string; line: number }): TranslationUnitFile => {
    let entry = byPath.get(path);
    const first = !entry;
    if (!entry) {
      // Listed before its includes, so `files` is in first-inclusion order.
      entry = { path, text, pre: undefined as unknown as PreprocessedFile, depth };
      if (includedFrom) entry.includedFrom = includedFrom;
      byPath.set(path, entry);
      files.push(entry);
    }
    stack.push(path);
    const pre = preprocessFile(text, macros, (inc) => include(inc, path, depth), path, hooks);
    stack.pop();
    if (first) entry.pre = pre;
    if (pre.pragmaOnce) once.add(path);
    return entry;
  };

  const include = (inc: IncludeDirective, from: string, depth: number): void => {
    const target = resolver.resolve(inc.spelling, inc.angled, from);
    if (target === undefined) {
      noteMissing(inc, from, false);
      return;
    }
    if (once.has(target) || stack.includes(target)) return;
    const guard = guards.get(target);
    if (guard !== undefined && macros.has(guard)) return;
    if ((!byPath.has(target) && byPath.size >= maxFiles) || inclusions >= maxInclusions || depth + 1 > MAX_DEPTH) {
      truncated = true;
      return;
    }
    const text = read(target);
    if (text === undefined) {
      noteMissing(inc, from, true);
      return;
    }
    const scan = scanFile(text);
    if (scan.guard !== undefined) {
      guards.set(target, scan.guard);
      if (macros.has(scan.guard)) return;
    }
    inclusions++;
    process(target, text, depth + 1, { path: from, line: inc.line });
  };

  const main = process(mainPath, mainText, 0);
  return { main, files, macros, missing, truncated };
}
