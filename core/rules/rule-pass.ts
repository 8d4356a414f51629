// Runs one rule over a set of kernel facts and collects its reports: the one place a rule's exception is
// contained (a rule bug must never cost the user the other rules' findings), and the one key by which
// two reports are the same finding.
import type { KernelFacts } from '../analysis/facts';
import type { KernelModule } from '../ir/types';
import type { RuleDef, RuleReport } from './types';

/** Everything `rule` reports about `kernels`, in report order. */
export function rulePass(rule: RuleDef, module: KernelModule, kernels: KernelFacts[]): RuleReport[] {
  const out: RuleReport[] = [];
  try {
    rule.check({ module, kernels, report: (r) => out.push(r) });
  } catch (err) {
    if (process.env.PHASEFLIP_DEBUG) throw err;
  }
  return out;
}

/** Two reports of one rule at the same place are one finding. */
export function reportKey(rule: RuleDef, r: RuleReport): string {
  return `${rule.meta.code}:${r.range.start.line}:${r.range.start.character}`;
}
