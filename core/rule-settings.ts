// Rule settings: the `phaseflip.rules` map (and the CLI's `--rule ID=SEVERITY`) from rule id or code
// to a severity or `off`, checked against the rule registry and turned into LintOptions. The language
// server and the CLI both read them through here, so both accept and reject the same settings.
import type { LintOptions, Severity } from './api';
import { RULES, ruleByIdOrCode } from './rules/index';

export type RuleSetting = Severity | 'off';
export const RULE_SETTINGS: readonly RuleSetting[] = ['error', 'warning', 'information', 'hint', 'off'];

export function isRuleSetting(value: unknown): value is RuleSetting {
  return typeof value === 'string' && (RULE_SETTINGS as readonly string[]).includes(value);
}

/** True when `key` names a known rule (by id or code), or when no rules are registered yet. */
export function isKnownRule(key: string): boolean {
  return RULES.length === 0 || ruleByIdOrCode(key) !== undefined;
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
