// User settings of the language server: the `phaseflip.*` configuration section, read
// from initializationOptions or workspace/configuration, validated leniently (bad values are
// reported and dropped, never fatal).
import { type LintOptions, type RuleSetting, lintOptionsFor, parseRuleSettings } from '../core/index';

// The rule-setting vocabulary lives in core (the CLI reads it too); re-exported for this module's users.
export { RULE_SETTINGS, type RuleSetting, isKnownRule, isRuleSetting } from '../core/index';

export const DEFAULT_DEBOUNCE_MS = 150;
const MAX_DEBOUNCE_MS = 60_000;

export interface Settings {
  debounceMs: number;
  rules: Record<string, RuleSetting>;
  /** `phaseflip.codeLens.enabled`: "Debug kernel" lenses above every kernel. */
  codeLens: boolean;
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
  const settings: Settings = { debounceMs: base.debounceMs, rules: { ...base.rules }, codeLens: base.codeLens };
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
  return settings;
}

export function toLintOptions(settings: Settings): LintOptions {
  return lintOptionsFor(settings.rules);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
