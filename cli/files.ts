// Turns the PATH arguments of `phaseflip lint` into the list of files to lint, and reads them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type LanguageId, isExcludedByConfig, languageForHeader, languageForPath, lintedExtensions, projectConfigFor, readRegularText } from '../core/index';
import { UsageError, describeError } from './errors';

export interface LintTarget {
  /** The path as shown to the user: the argument, joined with the walk below it. */
  path: string;
  language: LanguageId;
  /** A header found by a directory walk: linted only if its text holds code of `language`. */
  onlyIfHoldsCode?: boolean;
}

export interface Collected {
  targets: LintTarget[];
  /** Unreadable paths; linting goes on, the exit status becomes 2. */
  errors: string[];
  /** Per directory argument: the files its walk left out because a `.phaseflip.json` excludes them, and that file. */
  excluded: Map<string, { count: number; configs: Set<string> }>;
}

/** What a directory walk looks for, in words: `.cu, .cuh or .co files, or C/C++ headers (.h, ...) holding device code`. */
export function lintedFilesInWords(): string {
  const { sources, headers, conditional } = lintedExtensions();
  const list = (xs: readonly string[]) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}` : (xs[0] ?? ''));
  const others = conditional.map((c) => `, ${list(c.extensions)} files of ${c.language}`).join('');
  return `${list(sources)} files${others}${headers.length ? `, or headers (${headers.join(', ')}) holding device code` : ''}`;
}

/** Directories never entered: dependencies and dot directories (.git, .vscode, ...). */
export function skipDirectory(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}

/**
 * Directories are walked recursively (sorted, symlinks followed once) for every extension the engine
 * knows (.cu, .cuh, .co), for C/C++ headers (.h, .hpp, …) that hold device code and for Python files that
 * import tilus; files given explicitly must have one of those extensions (a header named explicitly is
 * linted whatever it holds; a .py that does not import tilus is reported as not a tilus file).
 */
export function collectTargets(args: readonly string[]): Collected {
  const targets: LintTarget[] = [];
  const errors: string[] = [];
  const excluded = new Map<string, { count: number; configs: Set<string> }>();
  let currentArg = '';
  const seenFiles = new Map<string, LintTarget>();
  const seenDirs = new Set<string>();

  const addFile = (p: string, language: LanguageId, onlyIfHoldsCode = false) => {
    const key = realpathOr(p);
    const seen = seenFiles.get(key);
    // A header a walk found and an argument names too is linted whatever it holds.
    if (seen) {
      if (!onlyIfHoldsCode) delete seen.onlyIfHoldsCode;
      return;
    }
    const target: LintTarget = onlyIfHoldsCode ? { path: p, language, onlyIfHoldsCode } : { path: p, language };
    seenFiles.set(key, target);
    targets.push(target);
  };

  // A header found in a directory is linted only when it holds code of its language (the lint reads
  // it once and checks): a tree of host C++ would otherwise be read as kernels.
  const addHeader = (p: string) => {
    const language = languageForHeader(p);
    if (language) addFile(p, language, true);
  };

  const walk = (dir: string) => {
    const real = realpathOr(dir);
    if (seenDirs.has(real)) return;
    seenDirs.add(real);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      errors.push(`cannot read directory ${dir}: ${describeError(e)}`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const p = path.join(dir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const st = fs.statSync(p);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch {
          continue; // dangling link inside a tree: not the user's explicit request, skip quietly
        }
      }
      if (isDir) {
        if (!skipDirectory(entry.name)) walk(p);
      } else if (isFile) {
        // A walk skips what the project's .phaseflip.json excludes; a file named on the command line is linted anyway.
        const config = projectConfigFor(p);
        if (config && isExcludedByConfig(p, config) && (languageForPath(entry.name) || languageForHeader(entry.name))) {
          const e = excluded.get(currentArg) ?? { count: 0, configs: new Set<string>() };
          e.count++;
          e.configs.add(config.file);
          excluded.set(currentArg, e);
          continue;
        }
        const language = languageForPath(entry.name);
        if (language) addFile(p, language);
        else addHeader(p);
      }
    }
  };

  for (const arg of args) {
    currentArg = arg;
    let st: fs.Stats;
    try {
      st = fs.statSync(arg);
    } catch (e) {
      errors.push(`cannot read ${arg}: ${describeError(e)}`);
      continue;
    }
    if (st.isDirectory()) {
      walk(arg);
    } else {
      // A file without an extension named explicitly is a C++ library header (`cuda/barrier`, `cuda/pipeline`).
      const language = languageForPath(arg) ?? languageForHeader(arg) ?? (path.extname(arg) === '' ? 'cuda' : undefined);
      if (!language) {
        throw new UsageError(`don't know how to lint ${arg}: expected a directory, ${lintedFilesInWords().replace(/ holding device code$/, '')} (or a header without an extension)`);
      }
      addFile(arg, language);
    }
  }
  return { targets, errors, excluded };
}

/** Files above this size are reported as unreadable instead of risking the JS string limit. */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** Reads a regular file as UTF-8; invalid bytes become U+FFFD, a BOM is dropped. Throws on I/O errors, non-regular files and files over the limit. */
export function readSource(file: string): string {
  // Not stat().size: a device or FIFO says 0 and never ends; the read refuses them and stops at the limit.
  return readRegularText(file, MAX_FILE_BYTES);
}

export function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
