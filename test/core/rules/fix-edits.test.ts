// The edits quick fixes are built from: lines inserted next to a node with its indentation, a node's
// line replaced, a range deleted; each edit owns its positions (findings are shifted in place).
import { describe, expect, it } from 'vitest';
import type { Range } from '../../../core/api';
import type { LineSpan } from '../../../core/ir/types';
import { deleteRange, insertLineAfter, insertLineBefore, replaceLine } from '../../../core/rules/fix-edits';

const r = (sl: number, sc: number, el: number, ec: number): Range => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });
const lines: LineSpan = { indent: '    ', first: r(3, 0, 3, 20), last: r(5, 0, 5, 9), before: '', after: ';' };

describe('fix edits', () => {
  it('inserts a line before the first line, indented like it', () => {
    expect(insertLineBefore(lines, 'mma.commit;')).toEqual({ range: r(3, 0, 3, 0), newText: '    mma.commit;\n' });
  });

  it('inserts a line after the end of the last line, indented like the first', () => {
    expect(insertLineAfter(lines, 'phase ^= 1;')).toEqual({ range: r(5, 9, 5, 9), newText: '\n    phase ^= 1;' });
  });

  it('replaces the first line whole, keeping its indentation', () => {
    expect(replaceLine(lines, 'while (!probe()) {}')).toEqual({ range: r(3, 0, 3, 20), newText: '    while (!probe()) {}' });
  });

  it('deletes a range', () => {
    expect(deleteRange(r(2, 14, 2, 22))).toEqual({ range: r(2, 14, 2, 22), newText: '' });
  });

  it('gives every edit positions of its own', () => {
    const edit = insertLineAfter(lines, 'x');
    expect(edit.range.start).not.toBe(edit.range.end);
    expect(edit.range.end).not.toBe(lines.last.end);
    expect(replaceLine(lines, 'x').range.start).not.toBe(lines.first.start);
  });
});
