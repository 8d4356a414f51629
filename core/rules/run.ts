// Runs the rule registry over a lowered module and turns reports into findings.
import type { Finding, LintOptions, Severity } from '../api';
import { DOCS_BASE_URL } from '../api';
import { KernelFacts } from '../analysis/facts';
import type { KernelModule } from '../ir/types';
import { RULES } from './index';
import type { RuleDef, RuleReport } from './types';

export function severityFor(rule: RuleDef, options: LintOptions): Severity | 'off' {
  const o = options.rules?.[rule.meta.id] ?? options.rules?.[rule.meta.code];
  return o ?? rule.meta.defaultSeverity;
}

/** Source order, then code: the order every face presents findings in. */
export function byPosition(a: Finding, b: Finding): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character || a.code.localeCompare(b.code);
}

export function runRules(module: KernelModule, options: LintOptions = {}, rules: RuleDef[] = RULES): Finding[] {
  const kernels = module.kernels.map((k) => new KernelFacts(k, module));
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const rule of rules) {
    const severity = severityFor(rule, options);
    if (severity === 'off' || !rule.meta.languages.includes(module.language)) continue;
    const report = (r: RuleReport): void => {
      const key = `${rule.meta.code}:${r.range.start.line}:${r.range.start.character}`;
      if (seen.has(key)) return;
      seen.add(key);
      findings.push({
        code: rule.meta.code,
        ruleId: rule.meta.id,
        family: rule.meta.family,
        severity,
        message: r.message,
        range: r.range,
        related: r.related ?? [],
        docsUrl: `${DOCS_BASE_URL}${rule.meta.id}.md`,
        fixes: r.fixes ?? [],
      });
    };
    try {
      rule.check({ module, kernels, report });
    } catch (err) {
      // A rule bug must never cost the user the other rules' findings.
      if (process.env.PHASEFLIP_DEBUG) throw err;
    }
  }
  findings.sort(byPosition);
  return findings;
}
