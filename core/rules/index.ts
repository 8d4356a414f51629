// Registry of all rules, sorted by id.
import type { RuleDef } from './types';

export const RULES: RuleDef[] = [];

export function ruleByIdOrCode(key: string): RuleDef | undefined {
  return RULES.find((r) => r.meta.id === key || r.meta.code === key);
}
