// Places the IR's statements and operations on their source lines (indentation, whole-line ranges,
// an operation's own text), once after lowering, so that rules build quick fixes from IR fields alone.
import type { Range } from '../api';
import { visitStmts } from './visit';
import type { Kernel, LineSpan } from './types';

/**
 * Line starts of the texts seen last: every kernel of a document is placed against the same texts (the
 * document's and its headers'), so a few are kept rather than one the headers would keep evicting.
 */
const recentStarts = new Map<string, number[]>();
const RECENT_TEXTS = 16;

/** Offsets where each line starts. Lines end at `\n` only, so a `\r` before it stays part of the line. */
function lineStarts(text: string): number[] {
  const known = recentStarts.get(text);
  if (known) return known;
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  if (recentStarts.size >= RECENT_TEXTS) recentStarts.delete(recentStarts.keys().next().value!);
  recentStarts.set(text, starts);
  return starts;
}

/** One source line as nodes on it are placed: its text, indentation and whole range. */
interface Line {
  text: string;
  indent: string;
  range: Range;
}

/** The source lines of one text, read by line number (each line measured once, however many nodes sit on it). */
class SourceLines {
  private readonly starts: number[];
  private readonly measured = new Map<number, Line>();

  /** `file`: the header the text is, stamped on every range made here (absent for the document). */
  constructor(private readonly text: string, private readonly file?: string) {
    this.starts = lineStarts(text);
  }

  /** Line `line` without its line break; empty past the end of the text. */
  private lineText(line: number): string {
    const start = this.starts[line];
    if (start === undefined || line < 0) return '';
    const next = this.starts[line + 1];
    return this.text.slice(start, next === undefined ? this.text.length : next - 1);
  }

  private line(line: number): Line {
    let l = this.measured.get(line);
    if (!l) {
      const text = this.lineText(line);
      const range: Range = { start: { line, character: 0 }, end: { line, character: text.length } };
      if (this.file !== undefined) range.file = this.file;
      l = { text, indent: /^\s*/.exec(text)![0], range };
      this.measured.set(line, l);
    }
    return l;
  }

  /** The text a range covers, line by line (each line clipped to the range). */
  textOf(r: Range): string {
    if (r.start.line === r.end.line) return this.line(r.start.line).text.slice(r.start.character, r.end.character);
    const parts = [this.line(r.start.line).text.slice(r.start.character)];
    for (let l = r.start.line + 1; l < r.end.line; l++) parts.push(this.lineText(l));
    parts.push(this.line(r.end.line).text.slice(0, r.end.character));
    return parts.join('\n');
  }

  span(r: Range): LineSpan {
    const first = this.line(r.start.line);
    const last = this.line(r.end.line);
    return {
      indent: first.indent,
      first: first.range,
      last: last.range,
      before: first.text.slice(first.indent.length, Math.max(first.indent.length, r.start.character)),
      after: last.text.slice(r.end.character),
    };
  }
}

/**
 * Fills in `lines` on every statement and operation of the kernel, and every operation's `text`.
 * Ranges in other files of the translation unit (`range.file`) are placed on `otherFile(file)`'s text.
 */
export function placeOnLines(kernel: Kernel, text: string, otherFile?: (file: string) => string | undefined): Kernel {
  const main = new SourceLines(text);
  const others = new Map<string, SourceLines>();
  const sourceOf = (r: Range): SourceLines => {
    if (r.file === undefined || !otherFile) return main;
    let s = others.get(r.file);
    if (!s) {
      s = new SourceLines(otherFile(r.file) ?? '', r.file);
      others.set(r.file, s);
    }
    return s;
  };
  visitStmts(kernel.body, (s) => {
    s.lines = sourceOf(s.range).span(s.range);
    if (s.kind === 'op') {
      const source = sourceOf(s.op.range);
      s.op.lines = s.op.range === s.range ? s.lines : source.span(s.op.range);
      s.op.text = source.textOf(s.op.range);
    }
  });
  return kernel;
}
