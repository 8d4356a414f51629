// tilus analysis: Python text -> syntax tree -> the file's Script and Class classes -> one kernel IR per
// Script and autotune combination -> rules. Combinations whose IR is the same are checked once; a finding
// that only some combinations have names them.
import type { AnalysisNote, AnalysisResult, BarrierSymbol, Finding, KernelCoverage, LintOptions } from '../../api';
import { barrierSymbols } from '../../analysis/symbols';
import { printModule } from '../../ir/print';
import type { Kernel, KernelModule } from '../../ir/types';
import { visitStmts } from '../../ir/visit';
import { byPosition, runRules } from '../../rules/run';
import { namedChildren, parsePython, syntaxErrors, type PyNode } from './parser';
import { type Combination, type TilusClass, combinations, literalNumber, tilusClasses } from './script-classes';
import { importsTilus } from './tilus-import';
import { lowerScript } from './lower';

/** One Script lowered at every combination of its autotune space. */
export interface LoweredScriptSet {
  script: TilusClass;
  /** Distinct kernels (combinations with the same IR share one), each with the combinations it stands for. */
  variants: { kernel: Kernel; combinations: Combination[] }[];
  /** Combinations in the autotune space (past MAX_COMBINATIONS only the first ones are analysed). */
  total: number;
}

export interface TilusFile {
  /** Whether the file imports tilus; a Python file that does not is not analysed. */
  tilus: boolean;
  scripts: LoweredScriptSet[];
  classes: TilusClass[];
  syntaxProblems: { message: string; range: import('../../api').Range }[];
}

/** Top-level `NAME = <integer>` assignments: constants a Script may read. */
function moduleConstants(root: PyNode): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of namedChildren(root)) {
    const a = s.type === 'expression_statement' ? namedChildren(s)[0] : undefined;
    if (a?.type !== 'assignment') continue;
    const left = a.childForFieldName('left');
    const right = a.childForFieldName('right');
    const v = right ? literalNumber(right) : undefined;
    if (left?.type === 'identifier' && v !== undefined) out.set(left.text, v);
  }
  return out;
}

/** Parses and lowers a tilus file: every Script at every autotune combination. */
export function lowerTilusFile(text: string): TilusFile {
  if (!importsTilus(text)) return { tilus: false, scripts: [], classes: [], syntaxProblems: [] };
  const tree = parsePython(text);
  try {
    const root = tree.rootNode;
    const classes = tilusClasses(root);
    const byName = new Map(classes.map((c) => [c.name, c]));
    const constants = moduleConstants(root);
    const scripts: LoweredScriptSet[] = [];
    const problems = syntaxErrors(tree);
    for (const script of classes.filter((c) => c.kind === 'script')) {
      const { list, total } = combinations(script);
      const variants = new Map<string, { kernel: Kernel; combinations: Combination[] }>();
      for (const combination of list) {
        let kernel: Kernel;
        try {
          ({ kernel } = lowerScript(script, byName, constants, combination, text));
        } catch (err) {
          // A construct the lowering does not expect (code being typed, say) must not take the file down.
          problems.push({ message: `internal front-end error in ${script.name}: ${(err as Error)?.message ?? String(err)}`, range: script.nameRange });
          break;
        }
        const key = `${printModule({ language: 'tilus', kernels: [kernel], constants: new Map() })}\u0001${JSON.stringify(kernel.launchShape ?? {})}`;
        const v = variants.get(key);
        if (v) v.combinations.push(combination);
        else variants.set(key, { kernel, combinations: [combination] });
      }
      if (variants.size) scripts.push({ script, variants: [...variants.values()], total });
    }
    return { tilus: true, scripts, classes, syntaxProblems: problems };
  } finally {
    tree.delete();
  }
}

/** The module the rules and hovers read: every Script's first variant (the others are checked by `analyzeTilus`). */
export function tilusModule(file: TilusFile): KernelModule {
  return { language: 'tilus', kernels: file.scripts.flatMap((s) => (s.variants[0] ? [s.variants[0].kernel] : [])), constants: new Map() };
}

export function analyzeTilus(text: string, options: LintOptions): { result: AnalysisResult; file: TilusFile } {
  const file = lowerTilusFile(text);
  const findings: Finding[] = [];
  const symbols: BarrierSymbol[] = [];
  const notes: AnalysisNote[] = [];
  const kernels: KernelCoverage[] = [];
  for (const set of file.scripts) {
    const analysed = set.variants.reduce((n, v) => n + v.combinations.length, 0);
    // Findings by rule and place; each remembers the combinations that have it.
    const found = new Map<string, { finding: Finding; combinations: Combination[] }>();
    for (const variant of set.variants) {
      const module: KernelModule = { language: 'tilus', kernels: [variant.kernel], constants: new Map() };
      for (const f of runRules(module, options)) {
        const key = `${f.code}@${f.range.start.line}:${f.range.start.character}`;
        const entry = found.get(key);
        if (entry) entry.combinations.push(...variant.combinations);
        else found.set(key, { finding: f, combinations: [...variant.combinations] });
      }
    }
    for (const { finding, combinations } of found.values()) {
      const labelled = combinations.filter((c) => c.label);
      if (combinations.length < analysed && labelled.length) {
        const shown = labelled.slice(0, 3).map((c) => `(${c.label})`).join(', ');
        const more = labelled.length > 3 ? ` and ${labelled.length - 3} more` : '';
        findings.push({ ...finding, message: `${finding.message} [autotune: ${combinations.length} of ${analysed} combinations, e.g. ${shown}${more}]` });
      } else findings.push(finding);
    }
    const first = set.variants[0]?.kernel;
    if (!first) continue;
    symbols.push(...barrierSymbols({ language: 'tilus', kernels: [first], constants: new Map() }));
    let barrierOps = 0;
    visitStmts(first.body, (s) => {
      if (s.kind === 'op' && s.op.barrier) barrierOps++;
    });
    const notUnderstood = first.notUnderstood ?? [];
    kernels.push({
      name: set.script.name,
      range: set.script.nameRange,
      barrierOps,
      notUnderstood: notUnderstood.length,
      extent: set.script.range,
      ...(set.script.autotune.length ? { autotune: { combinations: set.total, analysed } } : {}),
    });
    for (const n of notUnderstood) notes.push({ kind: 'unresolved-helper', message: n.what, range: n.range });
    if (set.total > analysed) {
      notes.push({ kind: 'analysis-budget', message: `${set.script.name}: the autotune space has ${set.total} combinations; the first ${analysed} were analysed`, range: set.script.nameRange });
    }
  }
  findings.sort(byPosition);
  return { result: { findings, syntaxProblems: file.syntaxProblems, symbols, notes, kernels }, file };
}
