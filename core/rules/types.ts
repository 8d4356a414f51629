// The shape every rule file exports. A rule is a pure function of the kernel IR: no I/O, no state, no
// source text (its fixes are built from the IR's ranges and line spans, see fix-edits.ts).
import type { Family, Fix, Range, RelatedLocation, Severity } from '../api';
import type { KernelFacts } from '../analysis/facts';
import type { KernelModule } from '../ir/types';

export interface RuleMeta {
  /** Kebab-case, names the bug pattern (reads as "allow <id>"); also the file and docs slug. */
  id: string;
  /** Stable code: PF1xx phase, PF2xx bootstrap, PF3xx commit, PF4xx count. */
  code: string;
  family: Family;
  defaultSeverity: Severity;
  /** One line, reused in hovers, the README table and SARIF. */
  summary: string;
  languages: ('cuda' | 'croqtile' | 'tilus')[];
  fix: 'none' | 'safe' | 'unsafe';
}

export interface RuleDocs {
  whatItDoes: string;
  whyIsThisBad: string;
  /** Code that must produce exactly one finding of this rule. */
  bad: string;
  /** Code that must produce no finding of this rule. */
  good: string;
  fixSafety?: string;
  references: string[];
}

export interface RuleReport {
  range: Range;
  message: string;
  related?: RelatedLocation[];
  fixes?: Fix[];
}

/** What a rule sees: the lowered module and its facts, never the document's text. */
export interface RuleContext {
  module: KernelModule;
  /** One per kernel of the module, in order. */
  kernels: KernelFacts[];
  report(report: RuleReport): void;
}

export interface RuleDef {
  meta: RuleMeta;
  docs: RuleDocs;
  check(ctx: RuleContext): void;
}
