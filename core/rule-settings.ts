// Rule settings: the `phaseflip.rules` map (and the CLI's `--rule ID=SEVERITY`) from rule id or code
// to a severity or `off`, checked against the rule registry and turned into LintOptions. The language
// server and the CLI both read them through here, so both accept and reject the same settings.
import type { LintOptions, Severity } from './api';
import { RULES, ruleByIdOrCode } from './rules/index';
import { directiveRuleByIdOrCode } from './suppressions';

export type RuleSetting = Severity | 'off';
export const RULE_SETTINGS: readonly RuleSetting[] = ['error', 'warning', 'information', 'hint', 'off'];

export function isRuleSetting(value: unknown): value is RuleSetting {
  return typeof value === 'string' && (RULE_SETTINGS as readonly string[]).includes(value);
}

/** True when `key` names a known rule (by id or code, the suppression directives' PF000/PF001 too), or when no rules are registered yet. */
export function isKnownRule(key: string): boolean {
  return RULES.length === 0 || ruleByIdOrCode(key) !== undefined || directiveRuleByIdOrCode(key) !== undefined;
}

/** A rule's code for a key naming it by id or code; the key itself when it names no known rule. */
function canonicalRuleKey(key: string): string {
  return ruleByIdOrCode(key)?.meta.code ?? directiveRuleByIdOrCode(key)?.code ?? key;
}

/**
 * `over` on top of `base` (a project's `.phaseflip.json` under the editor's settings or `--rule`): keys are
 * compared as rule codes, so `"PF103"` in one and `"parity-never-flips"` in the other name the same rule.
 */
export function mergeRuleSettings(base: Readonly<Record<string, RuleSetting>>, over: Readonly<Record<string, RuleSetting>>): Record<string, RuleSetting> {
  const out: Record<string, RuleSetting> = {};
  for (const [key, value] of Object.entries(base)) out[canonicalRuleKey(key)] = value;
  for (const [key, value] of Object.entries(over)) out[canonicalRuleKey(key)] = value;
  return out;
}

/**
 * Reads a `phaseflip.rules` object: entries whose value is not a setting are reported through `warn`
 * and dropped; unknown rule keys are reported but kept (a newer rule set may know them). Undefined
 * when `raw` is not an object at all (reported too), so the caller keeps what it had.
 */
export function parseRuleSettings(raw: unknown, warn: (message: string) => void): Record<string, RuleSetting> | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    warn(`phaseflip.rules must be an object mapping rule ids or codes to a severity or "off"`);
    return undefined;
  }
  const rules: Record<string, RuleSetting> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!isRuleSetting(value)) {
      warn(`phaseflip.rules.${key}: expected one of ${RULE_SETTINGS.join(', ')}, got ${JSON.stringify(value)}; ignored`);
      continue;
    }
    if (!isKnownRule(key)) warn(`phaseflip.rules.${key}: no such rule id or code`);
    rules[key] = value;
  }
  return rules;
}

/** The LintOptions for a set of rule settings; no settings give the empty options (the defaults). */
export function lintOptionsFor(rules: Readonly<Record<string, RuleSetting>>): LintOptions {
  return Object.keys(rules).length > 0 ? { rules: { ...rules } } : {};
}
