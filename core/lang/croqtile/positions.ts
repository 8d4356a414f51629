// Offsets -> zero-based line/character ranges for Croqtile spans. `makeLineIndex` precomputes line starts once
// so that each conversion is a binary search (O(log lines)); `toRange` is the one-shot convenience form.
import type { Position, Range } from '../../api';
import type { Span } from './ast';

export interface LineIndex {
  /** Offset (UTF-16 code units) -> position; offsets are clamped into [0, text.length]. */
  position(offset: number): Position;
  /** Span -> range. */
  range(span: Span): Range;
  /** Position -> offset (clamped to the line's end). */
  offsetAt(pos: Position): number;
  readonly lineCount: number;
}

export function makeLineIndex(text: string): LineIndex {
  // Line starts: 0 and the offset after every '\n' (a "\r\n" pair ends a line at its '\n'; a lone '\r' too).
  const starts: number[] = [0];
  const n = text.length;
  if (text.indexOf('\r') < 0) {
    // The common case, and several times faster than reading every character (this runs on each edit).
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  } else {
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
    }
  }
  const lineStarts = Int32Array.from(starts);
  const lines = lineStarts.length;

  function position(offset: number): Position {
    if (!(offset > 0)) offset = 0;
    else if (offset > n) offset = n;
    let lo = 0;
    let hi = lines - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - lineStarts[lo]! };
  }

  return {
    lineCount: lines,
    position,
    range(span: Span): Range {
      const start = position(span.start);
      const end = span.end === span.start ? { line: start.line, character: start.character } : position(span.end);
      return { start, end };
    },
    offsetAt(pos: Position): number {
      if (pos.line < 0) return 0;
      if (pos.line >= lines) return n;
      const s = lineStarts[pos.line]!;
      const next = pos.line + 1 < lines ? lineStarts[pos.line + 1]! : n;
      return Math.min(s + Math.max(0, pos.character), next);
    },
  };
}

let lastText: string | undefined;
let lastIndex: LineIndex | undefined;

/**
 * Converts one span. Reuses the line index of the previous call when the text is the same string, so calling
 * this in a loop over one document stays O(log n) per span; prefer `makeLineIndex(text).range` in hot code.
 */
export function toRange(text: string, span: Span): Range {
  if (lastText !== text || !lastIndex) {
    lastText = text;
    lastIndex = makeLineIndex(text);
  }
  return lastIndex.range(span);
}
