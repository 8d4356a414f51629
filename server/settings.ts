// User settings of the language server: the `phaseflip.*` configuration section, read
// from initializationOptions or workspace/configuration, validated leniently (bad values are
// reported and dropped, never fatal).
import { type ExplicitFlags, type LintOptions, type RuleSetting, lintOptionsFor, parseCudaArch, parseLaunchSettings, parseRuleSettings } from '../core/index';

// The rule-setting vocabulary lives in core (the CLI reads it too); re-exported for this module's users.
export { RULE_SETTINGS, type RuleSetting, isKnownRule, isRuleSetting } from '../core/index';

export const DEFAULT_DEBOUNCE_MS = 150;
const MAX_DEBOUNCE_MS = 60_000;

export interface Settings {
  debounceMs: number;
  rules: Record<string, RuleSetting>;
  /** `phaseflip.codeLens.enabled`: "Debug kernel" lenses above every kernel, the overview above every tilus Script. */
  codeLens: boolean;
  /**
   * `phaseflip.includePaths`, `phaseflip.defines`, `phaseflip.compileCommands`, `phaseflip.cudaArch`:
   * added to the flags found for each file (core's flagsForFile, as its `settings`), and
   * `phaseflip.launch`, the launch shapes of kernels launched elsewhere. Absent until one is set.
   */
  compile?: ExplicitFlags;
}

export function defaultSettings(): Settings {
  return { debounceMs: DEFAULT_DEBOUNCE_MS, rules: {}, codeLens: true };
}

/**
 * Reads the `phaseflip` section: `{ lint: { debounceMs }, rules: { [idOrCode]: severity | 'off' },
 * codeLens: { enabled } }` (the `simulator.*` defaults are the debugger's, read by the client).
 * Dotted keys (`"lint.debounceMs"`, `"phaseflip.rules"`) are accepted too, as some clients send them
 * flat. Problems go to `warn`; missing or invalid values fall back to `base`.
 */
export function parseSettings(raw: unknown, warn: (message: string) => void, base: Settings = defaultSettings()): Settings {
  const settings: Settings = { debounceMs: base.debounceMs, rules: { ...base.rules }, codeLens: base.codeLens, ...(base.compile ? { compile: { ...base.compile } } : {}) };
  if (raw === null || typeof raw !== 'object') return settings;
  const obj = raw as Record<string, unknown>;
  const section = isObject(obj.phaseflip) ? obj.phaseflip : obj;

  const lint = isObject(section.lint) ? section.lint : {};
  const debounce = lint.debounceMs ?? section['lint.debounceMs'] ?? section['phaseflip.lint.debounceMs'];
  if (debounce !== undefined) {
    if (typeof debounce === 'number' && Number.isFinite(debounce) && debounce >= 0) {
      settings.debounceMs = Math.min(Math.round(debounce), MAX_DEBOUNCE_MS);
    } else {
      warn(`phaseflip.lint.debounceMs must be a number >= 0, got ${JSON.stringify(debounce)}; using ${settings.debounceMs}`);
    }
  }

  const codeLens = isObject(section.codeLens) ? section.codeLens.enabled : section['codeLens.enabled'] ?? section['phaseflip.codeLens.enabled'];
  if (codeLens !== undefined) {
    if (typeof codeLens === 'boolean') settings.codeLens = codeLens;
    else warn(`phaseflip.codeLens.enabled must be true or false, got ${JSON.stringify(codeLens)}; using ${settings.codeLens}`);
  }

  const rules = section.rules ?? section['phaseflip.rules'];
  if (rules !== undefined && rules !== null) settings.rules = parseRuleSettings(rules, warn) ?? settings.rules;
  parseCompileSettings(section, settings, warn);
  return settings;
}

/** The compile-flag settings; a key that is present replaces the base's value, a bad one is reported and kept from the base. */
function parseCompileSettings(section: Record<string, unknown>, settings: Settings, warn: (message: string) => void): void {
  // `in`, not `??`: null is a value here (it resets phaseflip.cudaArch).
  const read = (key: string) => (key in section ? section[key] : section[`phaseflip.${key}`]);
  const compile: ExplicitFlags = { ...settings.compile };
  let touched = false;
  const stringList = (key: string, check: (s: string) => boolean, what: string): string[] | undefined => {
    const value = read(key);
    if (value === undefined || value === null) return undefined;
    touched = true;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && check(v))) {
      warn(`phaseflip.${key} must be a list of ${what}, got ${JSON.stringify(value)}; ignoring it`);
      return undefined;
    }
    return value as string[];
  };
  const includePaths = stringList('includePaths', (s) => s.trim() !== '', 'directories');
  if (includePaths) compile.includeDirs = includePaths;
  const defines = stringList('defines', (s) => /^[A-Za-z_]\w*(\([\w\s,.]*\))?(=[\s\S]*)?$/.test(s), 'NAME or NAME=VALUE texts');
  if (defines) compile.defines = defines;

  const compileCommands = read('compileCommands');
  if (compileCommands !== undefined && compileCommands !== null) {
    touched = true;
    if (typeof compileCommands !== 'string') warn(`phaseflip.compileCommands must be a path, got ${JSON.stringify(compileCommands)}; ignoring it`);
    else if (compileCommands.trim() === '') delete compile.compileCommands;
    else compile.compileCommands = compileCommands;
  }

  // null (the default) leaves the architecture to the compile commands, else 900.
  const cudaArch = read('cudaArch');
  if (cudaArch !== undefined) {
    touched = true;
    const arch = cudaArch === null ? undefined : typeof cudaArch === 'number' || typeof cudaArch === 'string' ? parseCudaArch(cudaArch) : undefined;
    if (cudaArch === null) delete compile.cudaArch;
    else if (arch === undefined) warn(`phaseflip.cudaArch must be an architecture such as 900, 1000 or "sm_90a", got ${JSON.stringify(cudaArch)}; ignoring it`);
    else compile.cudaArch = arch;
  }
  // `{ "kernel": { "block": 128, ... } }`: entries that are not usable are reported and left out.
  const launch = read('launch');
  if (launch !== undefined) {
    touched = true;
    const parsed = parseLaunchSettings(launch);
    for (const p of parsed.problems) warn(`${p}; ignoring it`);
    // A value that is no map at all keeps the previous one, as the other settings do.
    if (launch === null || isObject(launch)) {
      if (parsed.settings.length) compile.launch = parsed.settings;
      else delete compile.launch;
    }
  }
  if (touched || settings.compile) settings.compile = compile;
}

export function toLintOptions(settings: Settings): LintOptions {
  return lintOptionsFor(settings.rules);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
