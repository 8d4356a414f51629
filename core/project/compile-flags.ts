// The include directories, macros and GPU architecture a file is compiled with, found where clangd users
// already keep them: the user's own flags (command line, settings), then compile_commands.json,
// compile_flags.txt and .clangd walking up from the file. docs/compile-flags.md states the order.
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type ClangdFragment, fragmentApplies, parseClangdConfig } from './clangd-config';
import {
  type CompileOption,
  addDefine,
  addOptions,
  cudaArchOf,
  emptyFlagSet,
  expandResponseFiles,
  groupOptions,
  isNvcc,
  removeOptions,
} from './compile-arguments';
import { type CompileDatabase, type DatabaseEntry, entryFor, parseCompileDatabase } from './compile-database';
import { type ProjectConfig, clearProjectConfigCache, findProjectConfig } from './config-file';
import type { LaunchSetting } from './launch-settings';

export { parseCudaArch } from './compile-arguments';

export interface CompileFlags {
  /** `-iquote` directories: searched for `#include "..."` only, after the including file's directory. */
  quoteDirs: string[];
  /** `-I`, `--include-path`: in command-line order, the user's first (see docs/compile-flags.md). */
  includeDirs: string[];
  /** `-isystem`, then `-idirafter`: searched after `includeDirs`. */
  systemDirs: string[];
  /**
   * `-D NAME[=VAL]` in the order given, `'1'` when no value is written, as the compiler does. A
   * function-like macro keeps its parameters in the name (`['MAX(a,b)', '((a)>(b)?(a):(b))']`). A name
   * is defined once: the last definition wins, and `defines` and `undefines` never share a name, so
   * they may be applied in either order.
   */
  defines: Array<[string, string]>;
  /** `-U NAME`: the compiler's predefined macros among them must be left undefined too. */
  undefines: string[];
  /** `-include FILE`: included before the first line of the file, in order. */
  forcedIncludes: string[];
  /** `__CUDA_ARCH__` (`sm_90a` → 900, `sm_100a` → 1000; the highest listed); undefined when nothing says. */
  cudaArch?: number;
  /**
   * Where these flags came from, for hovers and notes: "compile_commands.json (/p/build/compile_commands.json)",
   * "compile_flags.txt (/p/compile_flags.txt)", ".clangd (/p/.clangd)", "command line", "settings",
   * joined by " + " when several contributed; "none" when nothing did.
   */
  source: string;
  /** The configuration files read: a change to any of them changes these flags. */
  configFiles: string[];
  /** Why a configuration was not (fully) used: malformed JSON or YAML, a missing database. Information, never fatal. */
  problems: string[];
  /** Launch shapes the user stated (`--launch`, then `phaseflip.launch`); absent when none. */
  launch?: LaunchSetting[];
  /** Library calls are read through their header definitions, never the catalogue's models (`--no-library-models`). */
  noLibraryModels?: boolean;
}

/** Flags the user gives directly: on the command line, or in the editor's settings. */
export interface ExplicitFlags {
  includeDirs?: string[];
  /** `NAME` or `NAME=VALUE`. */
  defines?: string[];
  /** A compile_commands.json (or compile_flags.txt), or a directory holding one. */
  compileCommands?: string;
  /** `__CUDA_ARCH__`: 900, 1000, ... */
  cudaArch?: number;
  /** Launch shapes of kernels launched where the translation unit cannot see (`--launch`, `phaseflip.launch`). */
  launch?: LaunchSetting[];
  /**
   * Read a library call (CUTLASS, CuTe, ThunderKittens, DeepGEMM helpers) through its definition in the headers
   * even where the catalogue has a hand-written model of it: how the models are checked against the headers.
   */
  noLibraryModels?: boolean;
}

/** The file access flag discovery needs; tests pass a fake one. `stat` lets parsed files be cached by modification time. */
export interface FlagsFileSystem {
  readFile(path: string): string | undefined;
  exists(path: string): boolean;
  stat?(path: string): { mtimeMs: number; size: number } | undefined;
}

export interface FlagsOptions {
  /** The command line's flags: they take precedence over everything. */
  explicit?: ExplicitFlags;
  /** The editor's settings (`phaseflip.includePaths`, ...): next. */
  settings?: ExplicitFlags;
  fs?: FlagsFileSystem;
  /** Workspace folders: `${workspaceFolder}` and relative paths in `settings` resolve against the one holding the file. */
  workspaceRoots?: string[];
  /** Translation units known to include this file: a header borrows the first one's database entry. */
  includedBy?: string[];
  /** Relative paths in `explicit` resolve against this (default: the process's working directory). */
  cwd?: string;
}

/** The node file system, with `stat` for caching. */
export const nodeFlagsFileSystem: FlagsFileSystem = {
  readFile(file) {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  },
  exists(file) {
    return existsSync(file);
  },
  stat(file) {
    try {
      const s = statSync(file, { throwIfNoEntry: false });
      return s?.isFile() ? { mtimeMs: s.mtimeMs, size: s.size } : undefined;
    } catch {
      return undefined;
    }
  },
};

/** A parsed configuration file, valid while its stamp (modification time and size, or its text) is unchanged. */
interface Parsed<T> {
  stamp: string;
  value: T;
}

interface Caches {
  files: Map<string, Parsed<unknown>>;
  /** Per directory: the compilation database or flags file governing it, or null for none. */
  databases: Map<string, string | null>;
  /** Per directory: whether it holds a `.clangd` file. */
  clangdFiles: Map<string, boolean>;
  /** Per path named by the user or a .clangd: the configuration file it designates, or null. */
  named: Map<string, string | null>;
}

const cachesByFileSystem = new WeakMap<FlagsFileSystem, Caches>();

function cachesFor(fs: FlagsFileSystem): Caches {
  let caches = cachesByFileSystem.get(fs);
  if (!caches) cachesByFileSystem.set(fs, (caches = { files: new Map(), databases: new Map(), clangdFiles: new Map(), named: new Map() }));
  return caches;
}

/**
 * Forgets every parsed configuration file and every directory search. Parsed files are re-read when
 * their modification time changes anyway; call this when a compile_commands.json, compile_flags.txt or
 * .clangd is created or deleted (a file watcher), as the directory searches are remembered.
 */
export function clearCompileFlagsCache(): void {
  cacheGeneration++;
  clearProjectConfigCache();
}

/** The `.phaseflip.json` governing `file` (the nearest walking up), read through the node file system. */
export function projectConfigFor(file: string, fs: FlagsFileSystem = nodeFlagsFileSystem): ProjectConfig | undefined {
  return findProjectConfig(file, fs);
}

// The caches of every file system (node's, and any a caller passes) are emptied lazily, on their next use.
let cacheGeneration = 0;
const generationOf = new WeakMap<Caches, number>();

function freshCaches(fs: FlagsFileSystem): Caches {
  const caches = cachesFor(fs);
  if ((generationOf.get(caches) ?? cacheGeneration) !== cacheGeneration) {
    caches.files.clear();
    caches.databases.clear();
    caches.clangdFiles.clear();
    caches.named.clear();
  }
  generationOf.set(caches, cacheGeneration);
  return caches;
}

/** Reads and parses `file` through the cache; undefined when it does not exist. */
function parsedFile<T>(fs: FlagsFileSystem, caches: Caches, file: string, parse: (text: string) => T): T | undefined {
  const cached = caches.files.get(file) as Parsed<T> | undefined;
  let text: string | undefined;
  let stamp: string;
  if (fs.stat) {
    const st = fs.stat(file);
    if (!st) {
      caches.files.delete(file);
      return undefined;
    }
    stamp = `${st.mtimeMs}:${st.size}`;
    if (cached?.stamp === stamp) return cached.value;
  } else {
    text = fs.readFile(file);
    if (text === undefined) {
      caches.files.delete(file);
      return undefined;
    }
    stamp = text;
    if (cached?.stamp === stamp) return cached.value;
  }
  text ??= fs.readFile(file);
  if (text === undefined) return undefined;
  const value = parse(text);
  caches.files.set(file, { stamp: fs.stat ? stamp : text, value });
  return value;
}

const COMPILE_COMMANDS = 'compile_commands.json';
const COMPILE_FLAGS = 'compile_flags.txt';

/** What a compile_flags.txt holds: one argument per line. */
function parseFlagsFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** The discovered part of a file's flags: the options of its command, with where they came from. */
interface Discovered {
  options: CompileOption[];
  directory: string;
  nvcc: boolean;
  sources: string[];
  configFiles: string[];
}

/**
 * The compile flags of `file`. Include directories: the command line's, then the settings', then
 * those of the discovered configuration. Macros: the discovered ones, then the settings', then the
 * command line's, so that the user's definition of a name wins. An explicit compile database
 * (`--compile-commands`, `phaseflip.compileCommands`) replaces the search for one. Never throws.
 */
export function flagsForFile(file: string, options: FlagsOptions = {}): CompileFlags {
  try {
    return computeFlags(file, options);
  } catch (e) {
    // A file system that throws (an editor's virtual one) must not stop the analysis: no flags, and why.
    return { quoteDirs: [], includeDirs: [], systemDirs: [], defines: [], undefines: [], forcedIncludes: [], source: 'none', configFiles: [], problems: [`cannot read the compile flags of ${file}: ${e instanceof Error ? e.message : String(e)}`] };
  }
}

function computeFlags(file: string, options: FlagsOptions): CompileFlags {
  const fs = options.fs ?? nodeFlagsFileSystem;
  const caches = freshCaches(fs);
  const cwd = options.cwd ?? process.cwd();
  const absolute = path.resolve(cwd, file);
  const problems: string[] = [];
  const root = workspaceRootOf(absolute, options.workspaceRoots ?? []);
  const settings = options.settings ? resolveExplicit(options.settings, root ?? cwd, root) : undefined;
  const explicit = options.explicit ? resolveExplicit(options.explicit, cwd, root) : undefined;
  // The project's .phaseflip.json: under the settings and the command line (its paths are already absolute).
  const projectConfig = findProjectConfig(absolute, fs);
  const config: ExplicitFlags | undefined = projectConfig && configFlags(projectConfig);
  if (projectConfig) problems.push(...projectConfig.problems);

  const fragments = clangdFragmentsFor(fs, caches, absolute, problems);
  const discovered = discover(fs, caches, absolute, explicit, settings, config && projectConfig ? { flags: config, file: projectConfig.file } : undefined, fragments, options.includedBy ?? [], problems);
  if (projectConfig) discovered.configFiles.push(projectConfig.file);

  const flags = emptyFlagSet();
  addOptions(flags, discovered.options, discovered.directory, discovered.nvcc);
  const sources = [...discovered.sources];
  const userIncludes: string[] = [];
  for (const [user, name] of [
    [explicit, 'command line'],
    [settings, 'settings'],
    [config, `${path.basename(projectConfig?.file ?? '')} (${projectConfig?.file})`],
  ] as const) {
    if (!user) continue;
    userIncludes.push(...(user.includeDirs ?? []));
    if (user.includeDirs?.length || user.defines?.length || user.cudaArch !== undefined) sources.push(name);
  }
  for (const user of [config, settings, explicit]) for (const d of user?.defines ?? []) addDefine(flags, d);

  const cudaArch = explicit?.cudaArch ?? settings?.cudaArch ?? config?.cudaArch ?? cudaArchOf(flags);
  // The command line's launch shapes first: at equal specificity the first one that names a kernel wins.
  const launch = [...(explicit?.launch ?? []), ...(settings?.launch ?? []), ...(config?.launch ?? [])];
  return {
    quoteDirs: unique(flags.quoteDirs),
    includeDirs: unique([...userIncludes, ...flags.includeDirs]),
    systemDirs: unique([...flags.systemDirs, ...flags.afterDirs]),
    defines: flags.defines,
    undefines: flags.undefines,
    forcedIncludes: flags.forcedIncludes,
    ...(cudaArch !== undefined ? { cudaArch } : {}),
    source: sources.length > 0 ? sources.join(' + ') : 'none',
    configFiles: discovered.configFiles,
    problems: unique(problems),
    ...(launch.length ? { launch } : {}),
    ...(explicit?.noLibraryModels ? { noLibraryModels: true } : {}),
  };
}

/** The compile part of a `.phaseflip.json`, as the user's flags. */
function configFlags(config: ProjectConfig): ExplicitFlags {
  return {
    ...(config.includeDirs ? { includeDirs: config.includeDirs } : {}),
    ...(config.defines ? { defines: config.defines } : {}),
    ...(config.compileCommands ? { compileCommands: config.compileCommands } : {}),
    ...(config.cudaArch !== undefined ? { cudaArch: config.cudaArch } : {}),
    ...(config.launch ? { launch: config.launch } : {}),
  };
}

/** The user's flags with `${workspaceFolder}`, `~` and relative paths resolved. */
function resolveExplicit(flags: ExplicitFlags, base: string, root: string | undefined): ExplicitFlags {
  const resolve = (p: string) => path.resolve(base, expandVariables(p, root));
  return {
    ...(flags.includeDirs ? { includeDirs: flags.includeDirs.filter((d) => d.trim() !== '').map(resolve) } : {}),
    ...(flags.defines ? { defines: flags.defines } : {}),
    ...(flags.compileCommands ? { compileCommands: resolve(flags.compileCommands) } : {}),
    ...(flags.cudaArch !== undefined ? { cudaArch: flags.cudaArch } : {}),
    ...(flags.launch?.length ? { launch: flags.launch } : {}),
    ...(flags.noLibraryModels ? { noLibraryModels: true } : {}),
  };
}

function expandVariables(p: string, root: string | undefined): string {
  let out = p;
  if (root) out = out.replace(/\$\{workspaceFolder\}/g, root).replace(/\$\{workspaceFolderBasename\}/g, path.basename(root));
  out = out.replace(/\$\{userHome\}/g, os.homedir());
  if (out === '~' || out.startsWith('~/')) out = path.join(os.homedir(), out.slice(1));
  return out;
}

/** The innermost workspace folder holding `file`, else the first one. */
function workspaceRootOf(file: string, roots: readonly string[]): string | undefined {
  const holding = roots.map((r) => path.resolve(r)).filter((r) => file === r || file.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
  return holding.sort((a, b) => b.length - a.length)[0] ?? (roots[0] !== undefined ? path.resolve(roots[0]) : undefined);
}

/** The .clangd fragments that apply to `file`, outermost directory first (inner ones are applied last and win). */
function clangdFragmentsFor(fs: FlagsFileSystem, caches: Caches, file: string, problems: string[]): Array<{ config: string; fragment: ClangdFragment }> {
  const out: Array<{ config: string; fragment: ClangdFragment }> = [];
  for (const dir of ancestors(path.dirname(file)).reverse()) {
    const config = path.join(dir, '.clangd');
    let present = caches.clangdFiles.get(dir);
    if (present === undefined) caches.clangdFiles.set(dir, (present = fs.exists(config)));
    if (!present) continue;
    const parsed = parsedFile(fs, caches, config, (text) => {
      const own: string[] = [];
      return { fragments: parseClangdConfig(text, config, own), problems: own };
    });
    if (!parsed) continue;
    problems.push(...parsed.problems);
    for (const fragment of parsed.fragments) if (fragmentApplies(fragment, dir, file, problems)) out.push({ config, fragment });
  }
  return out;
}

function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    out.push(d);
    if (path.dirname(d) === d) return out;
  }
}

/** The options of the discovered command, edited by the .clangd fragments. */
function discover(
  fs: FlagsFileSystem,
  caches: Caches,
  file: string,
  explicit: ExplicitFlags | undefined,
  settings: ExplicitFlags | undefined,
  projectConfig: { flags: ExplicitFlags; file: string } | undefined,
  fragments: Array<{ config: string; fragment: ClangdFragment }>,
  includedBy: readonly string[],
  problems: string[],
): Discovered {
  let found: Discovered = { options: [], directory: path.dirname(file), nvcc: false, sources: [], configFiles: [] };
  const chosen = explicit?.compileCommands
    ? { path: explicit.compileCommands, what: '--compile-commands' }
    : settings?.compileCommands
      ? { path: settings.compileCommands, what: 'phaseflip.compileCommands' }
      : projectConfig?.flags.compileCommands
        ? { path: projectConfig.flags.compileCommands, what: `${projectConfig.file}: compileCommands` }
        : undefined;
  let configPath: string | null | undefined;
  if (chosen) {
    configPath = configIn(fs, caches, chosen.path);
    if (!configPath) problems.push(`${chosen.what}: no ${COMPILE_COMMANDS} or ${COMPILE_FLAGS} at ${chosen.path}; searching the file's directories instead`);
  }
  if (!configPath) {
    // .clangd's `CompilationDatabase:` names a directory (or None) in place of the search; the innermost one wins.
    const named = [...fragments].reverse().find((f) => f.fragment.compilationDatabase !== undefined);
    const value = named?.fragment.compilationDatabase;
    if (value === 'None') configPath = null;
    else if (named && value !== undefined && value !== 'Ancestors') {
      const dir = path.resolve(path.dirname(named.config), value);
      configPath = configIn(fs, caches, dir);
      if (!configPath) problems.push(`${named.config}: CompilationDatabase '${value}' holds no ${COMPILE_COMMANDS}; searching the file's directories instead`);
    }
  }
  if (configPath === undefined) configPath = searchConfig(fs, caches, path.dirname(file));
  if (configPath) found = readConfig(fs, caches, configPath, file, includedBy, problems) ?? found;

  let options = found.options;
  for (const { config, fragment } of fragments) {
    if (fragment.remove.length === 0 && fragment.add.length === 0) continue;
    options = removeOptions(options, fragment.remove);
    options = [...options, ...groupOptions(fragment.add.map((a) => resolveAddedPath(fs, a, path.dirname(config))))];
    found.sources.push(`.clangd (${config})`);
    found.configFiles.push(config);
  }
  for (const { config } of fragments) if (!found.configFiles.includes(config)) found.configFiles.push(config);
  return { ...found, options };
}

/**
 * clangd reads a relative path in a .clangd `Add:` flag against the compile command's directory (the
 * database's), which surprises users whose .clangd sits elsewhere (clangd/clangd#1038). An include
 * directory that exists relative to the .clangd file is read that way; any other stays relative to the
 * command's directory, as clangd reads it.
 */
function resolveAddedPath(fs: FlagsFileSystem, flag: string, configDir: string): string {
  const m = /^(-I|-isystem|-iquote|-idirafter)(=?)(.+)$/.exec(flag);
  if (!m || path.isAbsolute(m[3]!)) return flag;
  const nearConfig = path.resolve(configDir, m[3]!);
  return fs.exists(nearConfig) ? `${m[1]}${nearConfig}` : flag;
}

/** compile_commands.json or compile_flags.txt named directly, or found in a named directory (or its build/). */
function configIn(fs: FlagsFileSystem, caches: Caches, p: string): string | undefined {
  const known = caches.named.get(p);
  if (known !== undefined && (known === null || fs.exists(known))) return known ?? undefined;
  const found = findConfigIn(fs, p);
  caches.named.set(p, found ?? null);
  return found;
}

function findConfigIn(fs: FlagsFileSystem, p: string): string | undefined {
  if (path.basename(p) === COMPILE_COMMANDS || path.basename(p) === COMPILE_FLAGS || /\.json$/i.test(p)) return fs.exists(p) ? p : undefined;
  for (const candidate of [path.join(p, COMPILE_COMMANDS), path.join(p, 'build', COMPILE_COMMANDS), path.join(p, COMPILE_FLAGS)]) if (fs.exists(candidate)) return candidate;
  return undefined;
}

/**
 * clangd's search: from the file's directory up, the first directory holding compile_commands.json,
 * build/compile_commands.json or compile_flags.txt (in that order) gives the configuration.
 */
function searchConfig(fs: FlagsFileSystem, caches: Caches, dir: string): string | undefined {
  const visited: string[] = [];
  let found: string | undefined;
  for (const d of ancestors(dir)) {
    const known = caches.databases.get(d);
    if (known !== undefined) {
      // A remembered file that has gone since is searched for again.
      if (known === null || fs.exists(known)) {
        found = known ?? undefined;
        break;
      }
    }
    visited.push(d);
    const here = [path.join(d, COMPILE_COMMANDS), path.join(d, 'build', COMPILE_COMMANDS), path.join(d, COMPILE_FLAGS)].find((c) => fs.exists(c));
    if (here) {
      found = here;
      break;
    }
  }
  for (const d of visited) caches.databases.set(d, found ?? null);
  return found;
}

function readConfig(fs: FlagsFileSystem, caches: Caches, configPath: string, file: string, includedBy: readonly string[], problems: string[]): Discovered | undefined {
  if (path.basename(configPath) === COMPILE_FLAGS) {
    const args = parsedFile(fs, caches, configPath, parseFlagsFile);
    if (!args) return undefined;
    const directory = path.dirname(configPath);
    const expanded = expandResponseFiles(args, directory, (f) => fs.readFile(f), problems);
    return { options: groupOptions(expanded), directory, nvcc: false, sources: [`${COMPILE_FLAGS} (${configPath})`], configFiles: [configPath] };
  }
  const db = parsedFile<CompileDatabase>(fs, caches, configPath, (text) => parseCompileDatabase(text, configPath));
  if (!db) return undefined;
  problems.push(...db.problems);
  const match = entryFor(db, file, includedBy);
  if (!match) {
    if (db.problems.length === 0) problems.push(`${configPath} has no compile commands`);
    return { options: [], directory: path.dirname(file), nvcc: false, sources: [], configFiles: [configPath] };
  }
  const { entry } = match;
  let read = optionsOfEntry.get(entry);
  if (!read) {
    const own: string[] = [];
    const args = expandResponseFiles(entry.args, entry.directory, (f) => fs.readFile(f), own);
    optionsOfEntry.set(entry, (read = { options: groupOptions(args), nvcc: isNvcc(args), problems: own }));
  }
  problems.push(...read.problems);
  const how = match.borrowed ? `, flags of ${match.from}` : '';
  return { options: read.options, directory: entry.directory, nvcc: read.nvcc, sources: [`${COMPILE_COMMANDS} (${configPath}${how})`], configFiles: [configPath] };
}

// An entry's options, read once: a database entry lives as long as its parsed database (response
// files it names are read with it, and re-read when the database changes).
const optionsOfEntry = new WeakMap<DatabaseEntry, { options: CompileOption[]; nvcc: boolean; problems: string[] }>();

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
