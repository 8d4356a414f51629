// CUDA analysis pipeline: syntax tree -> kernel IR -> rules; symbols for the outline.
import type { AnalysisResult, BarrierSymbol, LintOptions } from '../../api';
import { runRules } from '../../rules/run';
import { barrierSymbols } from '../../analysis/symbols';
import { lowerCudaTree } from './frontend';
import type { Tree } from './parser';
import type { KernelModule } from '../../ir/types';

export function analyzeCudaTree(tree: Tree, text: string, options: LintOptions): AnalysisResult & { module: KernelModule } {
  const { module, syntaxProblems } = lowerCudaTree(tree);
  const findings = runRules(module, text, options);
  const symbols: BarrierSymbol[] = barrierSymbols(module);
  return { findings, syntaxProblems, symbols, module };
}
