// Croqtile analysis pipeline: text -> syntax tree (error-tolerant) -> kernel IR -> rules; hovers on
// Croqtile keywords and on events (their inferred protocol).
import type { AnalysisResult, BarrierSymbol, HoverInfo, LintOptions, Position } from '../../api';
import { barrierSymbols } from '../../analysis/symbols';
import { findCroqtileDoc, renderCroqtileDoc } from '../../docs/croqtileDocs';
import { barrierProtocol } from '../../docs/hover';
import type { KernelModule } from '../../ir/types';
import { runRules } from '../../rules/run';
import { lowerCroqtile } from './lower';
import { parseCroqtile } from './parser';
import { makeLineIndex } from './positions';

export function analyzeCroqtile(text: string, options: LintOptions): { result: AnalysisResult; module: KernelModule } {
  const lines = makeLineIndex(text);
  const file = parseCroqtile(text);
  const syntaxProblems = file.errors.map((e) => ({ message: e.message, range: lines.range(e.span) }));
  let module: KernelModule;
  try {
    module = lowerCroqtile(file, text, lines);
  } catch (err) {
    syntaxProblems.push({ message: `internal front-end error: ${(err as Error)?.message ?? String(err)}`, range: lines.range({ start: 0, end: 0 }) });
    module = { language: 'croqtile', kernels: [], constants: new Map() };
  }
  const findings = runRules(module, text, options);
  const symbols: BarrierSymbol[] = barrierSymbols(module);
  return { result: { findings, syntaxProblems, symbols }, module };
}

export function hoverCroqtile(text: string, position: Position, module: KernelModule | undefined): HoverInfo | null {
  const lines = makeLineIndex(text);
  const offset = lines.offsetAt(position);
  let s = offset;
  let e = offset;
  while (s > 0 && /[\w.]/.test(text[s - 1])) s--;
  while (e < text.length && /[\w]/.test(text[e])) e++;
  if (s === e) return null;
  const word = text.slice(s, e);
  const range = { start: lines.position(s), end: lines.position(e) };
  const doc = findCroqtileDoc(word.replace(/^\./, ''), text.slice(e, e + 24));
  if (doc) return { markdown: renderCroqtileDoc(doc), range };
  if (module) {
    const protocol = barrierProtocol(module, word.split('.')[0], position);
    if (protocol) return { markdown: protocol, range };
  }
  return null;
}
