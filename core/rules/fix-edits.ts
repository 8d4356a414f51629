// Builds quick-fix edits from the IR's ranges and line spans, never from the source text: insert a line
// before or after a statement with its indentation, replace a statement's line, delete a range.
import type { Position, Range, TextEdit } from '../api';
import type { LineSpan } from '../ir/types';

/** Inserts `code` as a line of its own before the node's first line, indented like that line. */
export function insertLineBefore(lines: LineSpan, code: string): TextEdit {
  return { range: empty(lines.first.start, lines.first.file), newText: `${lines.indent}${code}\n` };
}

/** Inserts `code` as a line of its own after the node's last line, indented like the node's first line. */
export function insertLineAfter(lines: LineSpan, code: string): TextEdit {
  return { range: empty(lines.last.end, lines.last.file), newText: `\n${lines.indent}${code}` };
}

/** Replaces the node's first line, whole, with `code` at the line's indentation. */
export function replaceLine(lines: LineSpan, code: string): TextEdit {
  return { range: copy(lines.first), newText: `${lines.indent}${code}` };
}

export function deleteRange(range: Range): TextEdit {
  return { range: copy(range), newText: '' };
}

// Every edit gets positions of its own: findings are shifted in place when their kernel moves, and
// a position shared with the IR or with the other end of the range would be shifted twice.
function empty(at: Position, file?: string): Range {
  return file !== undefined ? { start: { ...at }, end: { ...at }, file } : { start: { ...at }, end: { ...at } };
}

function copy(r: Range): Range {
  // The file stays: an edit in a header applies to the header.
  return r.file !== undefined ? { start: { ...r.start }, end: { ...r.end }, file: r.file } : { start: { ...r.start }, end: { ...r.end } };
}
