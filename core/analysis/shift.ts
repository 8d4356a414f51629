// Moves cached findings and symbols by a number of lines: how per-kernel caches keep unchanged
// kernels' results valid when an edit above them adds or removes lines.
import type { BarrierSymbol, Finding, Range } from '../api';

/** `r` moved down by `delta` lines (a new object, without a `file`: only the document's own ranges move). */
export function shiftRange(r: Range, delta: number): Range {
  return { start: { line: r.start.line + delta, character: r.start.character }, end: { line: r.end.line + delta, character: r.end.character } };
}

export function shiftResults(
  findings: Finding[],
  symbols: BarrierSymbol[],
  delta: number,
  inside: (r: Range) => boolean = () => true,
): { findings: Finding[]; symbols: BarrierSymbol[] } {
  if (delta === 0) return { findings, symbols };
  const mv = (r: Range): Range => (inside(r) ? shiftRange(r, delta) : r);
  return {
    findings: findings.map((f) => ({
      ...f,
      range: mv(f.range),
      related: f.related.map((r) => ({ ...r, range: mv(r.range) })),
      fixes: f.fixes.map((x) => ({ ...x, edits: x.edits.map((e) => ({ ...e, range: mv(e.range) })) })),
    })),
    symbols: symbols.map((s) => ({ ...s, range: mv(s.range), selectionRange: mv(s.selectionRange) })),
  };
}
