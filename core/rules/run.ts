// Runs the rule registry over a lowered module and turns reports into findings. Findings that depend on
// a block size the source does not give become information notes (shape-notes.ts).
import type { Finding, LintOptions, Severity } from '../api';
import { DOCS_BASE_URL } from '../api';
import { KernelFacts, ReplayCache } from '../analysis/facts';
import type { KernelModule } from '../ir/types';
import { RULES } from './index';
import { reportKey, rulePass } from './rule-pass';
import { shapeDependentNotes } from './shape-notes';
import type { RuleDef, RuleReport } from './types';

export function severityFor(rule: RuleDef, options: LintOptions): Severity | 'off' {
  const o = options.rules?.[rule.meta.id] ?? options.rules?.[rule.meta.code];
  return o ?? rule.meta.defaultSeverity;
}

/** Source order, then code: the order every face presents findings in. */
export function byPosition(a: Finding, b: Finding): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character || a.code.localeCompare(b.code);
}

/**
 * What makes two findings the same one (one reached through two kernels or two documents): the same
 * rule at the same range of the same file. The message is not part of it: a header line reached at two
 * block sizes is one problem, worded once (mergeDuplicateFinding keeps the other wording as related information).
 */
export function findingKey(f: Finding): string {
  const r = f.range;
  return `${r.file ?? ''}:${r.start.line}:${r.start.character}:${r.end.line}:${r.end.character}:${f.code}`;
}

const REACHED_FROM = /^reached from kernel '([^']*)'/;

/**
 * The findings with each rule-and-place once, in first-seen order: a finding reached again (through another
 * kernel, translation unit or document) is merged into the first with mergeDuplicateFinding. The first ones are
 * copies, so findings kept elsewhere (a kernel's cache, a document's list) do not collect what others add.
 */
export function mergeFindings(list: Iterable<Finding>): Finding[] {
  const seen = new Map<string, Finding>();
  const out: Finding[] = [];
  for (const f of list) {
    const k = findingKey(f);
    const first = seen.get(k);
    if (first) {
      mergeDuplicateFinding(first, f);
      continue;
    }
    const own = { ...f, related: [...f.related] };
    seen.set(k, own);
    out.push(own);
  }
  return out;
}

/**
 * Folds `again` (the same finding by findingKey, reached another way) into `kept`: its related
 * locations (the kernels and launches it was reached from) are added to `kept`'s, and a message that
 * differs (another launch shape, another kernel) is kept as related information at the kernel it came from.
 */
export function mergeDuplicateFinding(kept: Finding, again: Finding): void {
  const same = (a: Finding['related'][number], b: Finding['related'][number]): boolean =>
    a.message === b.message && a.range.file === b.range.file && a.range.start.line === b.range.start.line && a.range.start.character === b.range.start.character;
  const add = (r: Finding['related'][number]): void => {
    if (!kept.related.some((x) => same(x, r))) kept.related.push(r);
  };
  const from = again.related.find((r) => REACHED_FROM.test(r.message));
  const kernel = from ? REACHED_FROM.exec(from.message)![1] : undefined;
  if (again.message !== kept.message) add({ range: from?.range ?? again.range, message: `also reached ${kernel ? `from kernel '${kernel}' ` : ''}as: ${again.message}` });
  // A kernel named by an "also reached from kernel ..." entry needs no second entry.
  const named = (r: Finding['related'][number]): boolean => r === from && kept.related.some((x) => x.message.startsWith(`also reached from kernel '${kernel}' `) && same({ ...x, message: r.message }, r));
  for (const r of again.related) if (!named(r)) add(r);
}

export function runRules(module: KernelModule, options: LintOptions = {}, rules: RuleDef[] = RULES): Finding[] {
  const replays = new ReplayCache();
  const kernels = module.kernels.map((k) => new KernelFacts(k, module, { replays }));
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const active: { rule: RuleDef; severity: Severity }[] = [];
  for (const rule of rules) {
    const severity = severityFor(rule, options);
    if (severity === 'off' || !rule.meta.languages.includes(module.language)) continue;
    active.push({ rule, severity });
  }
  const finding = (rule: RuleDef, severity: Severity, r: RuleReport): Finding => ({
    code: rule.meta.code,
    ruleId: rule.meta.id,
    family: rule.meta.family,
    severity,
    // IR names of re-declared locals (`full#1`, a helper's array inlined twice) are source names to the user.
    message: sourceNames(r.message),
    range: r.range,
    related: (r.related ?? []).map((x) => ({ ...x, message: sourceNames(x.message) })),
    docsUrl: `${DOCS_BASE_URL}${rule.meta.id}.md`,
    fixes: r.fixes ?? [],
  });
  const reports: { rule: RuleDef; severity: Severity; report: RuleReport; key: string }[] = [];
  for (const { rule, severity } of active) {
    for (const r of rulePass(rule, module, kernels)) {
      const key = reportKey(rule, r);
      if (seen.has(key)) continue;
      seen.add(key);
      reports.push({ rule, severity, report: r, key });
    }
  }
  const notes = shapeDependentNotes(module, kernels, active.map((a) => a.rule), seen, replays);
  for (const { rule, severity, report, key } of reports) {
    const note = notes.get(key);
    findings.push(note ? finding(rule, severity === 'hint' ? 'hint' : 'information', note) : finding(rule, severity, report));
  }
  findings.sort(byPosition);
  return findings;
}

/** IR names of re-declared locals (`full#1`: a helper's array inlined twice) read as their source names. */
function sourceNames(message: string): string {
  return message.replace(/\b([A-Za-z_]\w*)#\d+/g, '$1');
}
