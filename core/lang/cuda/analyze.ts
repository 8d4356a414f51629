// Placeholder wiring; replaced by the real front end + rules pipeline.
import type { AnalysisResult, LintOptions } from '../../api';
import type { Tree } from './parser';

export function analyzeCudaTree(_tree: Tree, _text: string, _options: LintOptions): AnalysisResult {
  return { findings: [], syntaxProblems: [], symbols: [] };
}
