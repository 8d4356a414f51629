// The project configuration file `.phaseflip.json`: the nearest one walking up from a file gives its rule
// severities, include paths, defines, launch shapes, CUDA architecture, compile database and excluded files.
// The CLI and the language server read it through here (flags through compile-flags.ts, rules and suppressions
// through the engine), so both see the same project; command-line flags and editor settings override it.
// Validated strictly: an unknown key or a value of the wrong type is a problem naming the file and the key,
// and is left out; the rest of the file still applies. docs/configuration.md describes it.
import * as os from 'node:os';
import * as path from 'node:path';
import { type RuleSetting, RULE_SETTINGS, isKnownRule, isRuleSetting } from '../rule-settings';
import { parseCudaArch } from './compile-arguments';
import { parseLaunchSettings } from './launch-settings';
import type { LaunchSetting } from './launch-settings';

export const CONFIG_FILE_NAME = '.phaseflip.json';

/** The keys a configuration file may have; `$schema` lets editors validate it. */
export const CONFIG_KEYS = ['$schema', 'rules', 'includePaths', 'defines', 'launch', 'cudaArch', 'compileCommands', 'exclude'] as const;

export interface ProjectConfig {
  /** Absolute path of the `.phaseflip.json`. */
  file: string;
  /** Its directory: relative paths and `exclude` patterns are read against it. */
  dir: string;
  /** `rules`: rule id or code → severity or `off`, as the `phaseflip.rules` setting. */
  rules: Record<string, RuleSetting>;
  /** Include directories (absolute), in order. */
  includeDirs?: string[];
  /** `NAME` or `NAME=VALUE`. */
  defines?: string[];
  launch?: LaunchSetting[];
  cudaArch?: number;
  /** A compile_commands.json or compile_flags.txt, or a directory holding one (absolute). */
  compileCommands?: string;
  /** Glob patterns of files not to lint, relative to `dir`. */
  exclude: string[];
  /** What is wrong with the file, each naming the file and the key: the offending entries are left out. */
  problems: string[];
}

/** The file access the search needs (structurally core/project/compile-flags.ts's FlagsFileSystem). */
export interface ConfigFileSystem {
  readFile(path: string): string | undefined;
  exists(path: string): boolean;
  stat?(path: string): { mtimeMs: number; size: number } | undefined;
}

const DEFINE = /^[A-Za-z_]\w*(\([\w\s,.]*\))?(=[\s\S]*)?$/;

/** Reads the text of a `.phaseflip.json` at `file`. Never throws: what is wrong is in `problems`. */
export function parseProjectConfig(text: string, file: string): ProjectConfig {
  const dir = path.dirname(file);
  const config: ProjectConfig = { file, dir, rules: {}, exclude: [], problems: [] };
  const problem = (key: string | undefined, message: string) => config.problems.push(`${file}: ${key ? `${key}: ` : ''}${message}`);
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    problem(undefined, `not valid JSON (${jsonErrorWhere(text, e)}); the file is ignored`);
    return config;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    problem(undefined, `must hold a JSON object such as { "rules": { "PF103": "off" } }, got ${describe(raw)}; the file is ignored`);
    return config;
  }
  const resolve = (p: string) => path.resolve(dir, expandHome(p));
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    switch (key) {
      case '$schema':
        if (typeof value !== 'string') problem(key, `must be a string (the schema's URL or path), got ${describe(value)}`);
        break;
      case 'rules': {
        if (!isObject(value)) {
          problem(key, `must be an object mapping rule ids or codes to one of ${RULE_SETTINGS.join(', ')}, got ${describe(value)}`);
          break;
        }
        for (const [rule, setting] of Object.entries(value)) {
          if (!isKnownRule(rule)) problem(`rules.${rule}`, `no rule has this id or code ('phaseflip rules' lists them)`);
          else if (!isRuleSetting(setting)) problem(`rules.${rule}`, `must be one of ${RULE_SETTINGS.join(', ')}, got ${describe(setting)}`);
          else config.rules[rule] = setting;
        }
        break;
      }
      case 'includePaths': {
        const list = stringList(value, (s) => s.trim() !== '');
        if (!list) problem(key, `must be a list of directories (relative to ${dir}), got ${describe(value)}`);
        else config.includeDirs = list.map(resolve);
        break;
      }
      case 'defines': {
        const list = stringList(value, (s) => DEFINE.test(s));
        if (!list) problem(key, `must be a list of "NAME" or "NAME=VALUE" texts, got ${describe(value)}`);
        else config.defines = list;
        break;
      }
      case 'launch': {
        if (!isObject(value)) {
          problem(key, `must be an object mapping a kernel to its launch shape, such as { "gemm": { "block": 128 } }, got ${describe(value)}`);
          break;
        }
        const parsed = parseLaunchSettings(value, 'config file');
        for (const p of parsed.problems) config.problems.push(`${file}: ${p.replace(/^phaseflip\.launch/, 'launch')}`);
        if (parsed.settings.length) config.launch = parsed.settings;
        break;
      }
      case 'cudaArch': {
        if (value === null) break;
        const arch = typeof value === 'number' || typeof value === 'string' ? parseCudaArch(value) : undefined;
        if (arch === undefined) problem(key, `must be an architecture such as 900, 1000, "sm_90a" or "sm_100a", got ${describe(value)}`);
        else config.cudaArch = arch;
        break;
      }
      case 'compileCommands':
        if (typeof value !== 'string' || value.trim() === '') problem(key, `must be the path of a compile_commands.json (or compile_flags.txt) or of the directory holding it, got ${describe(value)}`);
        else config.compileCommands = resolve(value);
        break;
      case 'exclude': {
        const list = stringList(value, (s) => s.trim() !== '');
        if (!list) problem(key, `must be a list of glob patterns such as ["third_party/**", "*_generated.cu"], got ${describe(value)}`);
        else config.exclude = list;
        break;
      }
      default:
        problem(key, `unknown key (expected ${CONFIG_KEYS.filter((k) => k !== '$schema').join(', ')})`);
    }
  }
  return config;
}

/** Where JSON.parse stopped, as `line L, column C` when the message says a position. */
function jsonErrorWhere(text: string, e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const at = /at position (\d+)/.exec(message);
  if (!at) return message;
  const offset = Number(at[1]);
  const before = text.slice(0, offset).split('\n');
  const cut = message.search(/ (?:in JSON )?at position \d/);
  return `${(cut < 0 ? message : message.slice(0, cut)).trimEnd()} at line ${before.length}, column ${before[before.length - 1]!.length + 1}`;
}

function stringList(value: unknown, check: (s: string) => boolean): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' && check(v)) ? (value as string[]) : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function describe(v: unknown): string {
  const json = JSON.stringify(v);
  return json === undefined ? String(v) : json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
}

// ---- finding the file ------------------------------------------------------------------------

interface Caches {
  /** Per directory: the configuration file governing it (its own or an ancestor's), or null. */
  dirs: Map<string, string | null>;
  /** Parsed files by path, valid while their stamp (modification time and size, or text) is unchanged. */
  parsed: Map<string, { stamp: string; config: ProjectConfig }>;
  generation: number;
}

const cachesByFileSystem = new WeakMap<ConfigFileSystem, Caches>();
let cacheGeneration = 0;

/** Forgets every directory search and parsed file (a `.phaseflip.json` was created, changed or deleted). */
export function clearProjectConfigCache(): void {
  cacheGeneration++;
}

function cachesFor(fs: ConfigFileSystem): Caches {
  let caches = cachesByFileSystem.get(fs);
  if (!caches || caches.generation !== cacheGeneration) cachesByFileSystem.set(fs, (caches = { dirs: new Map(), parsed: new Map(), generation: cacheGeneration }));
  return caches;
}

/** The nearest `.phaseflip.json` from `file`'s directory up, parsed; undefined when there is none. Never throws. */
export function findProjectConfig(file: string, fs: ConfigFileSystem): ProjectConfig | undefined {
  try {
    const caches = cachesFor(fs);
    const configFile = searchUp(fs, caches, path.dirname(path.resolve(file)));
    return configFile ? parsedConfig(fs, caches, configFile) : undefined;
  } catch {
    return undefined;
  }
}

function searchUp(fs: ConfigFileSystem, caches: Caches, start: string): string | undefined {
  const visited: string[] = [];
  let found: string | null = null;
  for (let dir = start; ; dir = path.dirname(dir)) {
    const known = caches.dirs.get(dir);
    if (known !== undefined) {
      found = known;
      break;
    }
    visited.push(dir);
    const candidate = path.join(dir, CONFIG_FILE_NAME);
    if (fs.exists(candidate)) {
      found = candidate;
      break;
    }
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of visited) caches.dirs.set(dir, found);
  return found ?? undefined;
}

function parsedConfig(fs: ConfigFileSystem, caches: Caches, file: string): ProjectConfig | undefined {
  const st = fs.stat?.(file);
  const text = st ? undefined : fs.readFile(file);
  if (!st && text === undefined) return undefined;
  const stamp = st ? `${st.mtimeMs}:${st.size}` : text!;
  const cached = caches.parsed.get(file);
  if (cached?.stamp === stamp) return cached.config;
  const body = text ?? fs.readFile(file);
  if (body === undefined) return undefined;
  const config = parseProjectConfig(body, file);
  caches.parsed.set(file, { stamp, config });
  return config;
}

// ---- excluded files --------------------------------------------------------------------------

/**
 * Whether `file` is excluded by the configuration's `exclude` patterns. Patterns are globs relative to the
 * configuration's directory (`*` and `?` within a path component, `**` across components, `{a,b}` alternatives);
 * a pattern without a slash matches a file or directory name at any depth (as in .gitignore), one with a slash
 * the path from the configuration's directory; a pattern that matches a directory excludes all below it, and
 * one ending in `/` matches directories only. Files outside the configuration's directory are never excluded.
 */
export function isExcludedByConfig(file: string, config: Pick<ProjectConfig, 'dir' | 'exclude'>): boolean {
  if (config.exclude.length === 0) return false;
  const rel = path.relative(config.dir, path.resolve(file)).split(path.sep).join('/');
  if (rel === '' || rel.startsWith('../') || rel === '..' || path.isAbsolute(rel)) return false;
  const parts = rel.split('/');
  const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  return config.exclude.some((pattern) => {
    const dirOnly = pattern.endsWith('/');
    const re = globToRegExp(pattern);
    return prefixes.some((p, i) => (!dirOnly || i < prefixes.length - 1) && re.test(p));
  });
}

const globCache = new Map<string, RegExp>();

/** The regular expression of one exclude pattern (see isExcludedByConfig), matched against a relative path. */
export function globToRegExp(pattern: string): RegExp {
  let re = globCache.get(pattern);
  if (re) return re;
  let p = pattern.trim().replace(/\\/g, '/');
  while (p.endsWith('/')) p = p.slice(0, -1);
  const anchored = p.replace(/^\.\//, '').includes('/');
  p = p.replace(/^\.?\//, '');
  let out = '';
  let braces = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*' && p[i + 1] === '*') {
      // `**/` matches zero or more whole components; a trailing `**` everything below.
      if (p[i + 2] === '/') {
        out += '(?:[^/]*/)*';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  out += ')'.repeat(braces);
  re = new RegExp(anchored ? `^${out}$` : `^(?:.*/)?${out}$`);
  globCache.set(pattern, re);
  return re;
}
