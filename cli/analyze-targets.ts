// The order `phaseflip lint` analyses its targets in: sources first, since a header that does not parse alone
// is read inside a file known to include it, and a header that failed before its includer was read is
// analysed again at the end. Shared by the lint face and the corpus test, which must lint the same way.
import * as path from 'node:path';
import { type AnalysisResult, type Engine, type LintOptions, headerHoldsCode, isSourceFile, notOfLanguage } from '../core/index';
import { describeError } from './errors';
import { type LintTarget, readSource } from './files';

export interface AnalysedTarget {
  target: LintTarget;
  /** The target's absolute path. */
  abs: string;
  text: string;
  result: AnalysisResult;
  /** Time spent analysing it, both analyses of a header analysed again included. */
  ms: number;
}

/**
 * Analyses each target as its translation unit and yields each result once, as it is analysed (a caller
 * may let its event loop run between them): sources and headers that parsed as they came, then the
 * headers analysed again. Unreadable files and internal errors go to `errors`; a header found by a walk
 * that holds no code is skipped.
 */
export function* analyzeTargets(
  engine: Engine,
  targets: readonly LintTarget[],
  options: LintOptions,
  errors: string[],
  /** Called for each target read (in analysis order), before it is analysed: also for one whose analysis fails. */
  onRead?: (target: LintTarget, abs: string) => void,
): Generator<AnalysedTarget> {
  const analyze = (abs: string, text: string, target: LintTarget): { result?: AnalysisResult; ms: number } => {
    const t0 = Date.now();
    try {
      return { result: engine.analyze(text, target.language, options, abs), ms: Date.now() - t0 };
    } catch (e) {
      errors.push(`internal error while linting ${target.path}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      return { ms: Date.now() - t0 };
    }
  };
  const ordered = [...targets].sort((a, b) => Number(!isSourceFile(a.path)) - Number(!isSourceFile(b.path)));
  // Headers that did not parse alone, kept until the end: a later target may turn out to include them.
  const failedAlone: AnalysedTarget[] = [];
  for (const target of ordered) {
    let text: string;
    try {
      text = readSource(target.path);
    } catch (e) {
      errors.push(`cannot read ${target.path}: ${describeError(e)}`);
      continue;
    }
    if (target.onlyIfHoldsCode && !headerHoldsCode(target.language, text)) continue;
    // Named explicitly but not of its language (a Python file that does not use tilus): say so, lint nothing.
    const foreign = target.onlyIfHoldsCode ? undefined : notOfLanguage(target.language, text);
    if (foreign) {
      errors.push(`${target.path}: ${foreign}`);
      continue;
    }
    const abs = path.resolve(target.path);
    onRead?.(target, abs);
    const { result, ms } = analyze(abs, text, target);
    if (!result) continue;
    const analysed = { target, abs, text, result, ms };
    if (!result.context && result.syntaxProblems.length > 0 && !isSourceFile(abs)) failedAlone.push(analysed);
    else yield analysed;
  }
  for (const analysed of failedAlone) {
    const context = engine.project?.contextFor?.(analysed.abs);
    if (context && context !== analysed.abs) {
      const again = analyze(analysed.abs, analysed.text, analysed.target);
      if (again.result) {
        yield { ...analysed, result: again.result, ms: analysed.ms + again.ms };
        continue;
      }
    }
    yield analysed;
  }
}
