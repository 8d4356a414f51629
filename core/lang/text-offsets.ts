// Zero-based LSP positions to string offsets, shared by the engine's incremental edits and the
// language front ends (which locate the syntax node under a hover).
import type { Position } from '../api';

/** The offset of `pos` in `text`; a column past the end of its line clamps to the line's end. */
export function offsetAt(text: string, pos: Position): number {
  let line = 0;
  let i = 0;
  while (line < pos.line) {
    const nl = text.indexOf('\n', i);
    if (nl < 0) return text.length;
    i = nl + 1;
    line++;
  }
  const eol = text.indexOf('\n', i);
  const lineEnd = eol < 0 ? text.length : eol;
  return Math.min(i + pos.character, lineEnd);
}
