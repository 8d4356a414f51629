// Region-wise parsing for large files. tree-sitter's C++ grammar re-parses slowly around casts and
// asm statements even incrementally (about 100 ms per keystroke in a 20k-line kernel file), so the
// document is tiled into chunks at top-level declaration boundaries, each parsed on its own with
// `includedRanges` (positions stay absolute). An edit re-parses only the chunks it touches; the other
// trees are shifted with `tree.edit`. A side effect users like: an unbalanced brace only breaks the
// chunk it is typed in, the rest of the file keeps linting.
import type { Position } from '../../api';
import type { Parser, SyntaxNode, Tree } from './parser';
import { isIdentPart, quotedEnd, rawStringEnd } from './preprocess/tokens';

interface Chunk {
  tree: Tree;
  start: number;
  end: number;
  /** Braces opened minus braces closed in the chunk's text (comments, literals and directives aside). */
  balance: number;
}

/** A chunk is split after its top-level children once it grows past this many characters. */
const CHUNK_CHARS = 2500;

export class ChunkedTree {
  private chunks: Chunk[] = [];
  /** The trees were freed (`sleep`) and are parsed again at the next use; edits meanwhile only change the text. */
  private asleep = false;

  constructor(private readonly parser: Parser, private text: string) {
    this.reparseAll();
  }

  /** How many characters the trees cover: what they cost in WASM memory is about proportional to it. */
  get size(): number {
    return this.text.length;
  }

  get isAwake(): boolean {
    return !this.asleep;
  }

  /**
   * Frees the syntax trees but keeps the text; the next use parses it again. The caller must hold no
   * node of these trees.
   */
  sleep(): void {
    if (this.asleep) return;
    for (const t of new Set(this.chunks.map((c) => c.tree))) t.delete();
    this.chunks = [];
    this.asleep = true;
  }

  private wake(): void {
    if (!this.asleep) return;
    this.asleep = false;
    this.reparseAll();
  }

  /** Top-level syntax nodes of the whole document, in order. */
  topLevel(): SyntaxNode[] {
    this.wake();
    // One `children` call per tree (child(i) walks from the first child each time).
    const kids = new Map<Tree, SyntaxNode[]>();
    const out: SyntaxNode[] = [];
    for (const c of this.chunks) {
      let list = kids.get(c.tree);
      if (!list) {
        list = c.tree.rootNode.namedChildren.filter((n): n is SyntaxNode => !!n);
        kids.set(c.tree, list);
      }
      for (const n of list) if (n.startIndex >= c.start && n.startIndex < c.end) out.push(n);
    }
    return out;
  }

  /** The innermost node at a position. */
  nodeAt(pos: Position, offset: number): SyntaxNode | null {
    this.wake();
    const c = this.chunks.find((k) => offset >= k.start && offset < k.end) ?? this.chunks[this.chunks.length - 1];
    return c ? c.tree.rootNode.descendantForPosition({ row: pos.line, column: pos.character }) : null;
  }

  hasError(): boolean {
    return this.topLevel().some((n) => n.hasError || n.isError || n.isMissing);
  }

  replaceAll(text: string): void {
    this.text = text;
    if (!this.asleep) this.reparseAll();
  }

  /** Applies one edit (offsets in the old text) and re-parses the chunks it touches. */
  edit(start: number, oldEnd: number, newText: string): void {
    const old = this.text;
    const next = old.slice(0, start) + newText + old.slice(oldEnd);
    if (this.asleep) {
      this.text = next;
      return;
    }
    const delta = newText.length - (oldEnd - start);
    const edit = {
      startIndex: start,
      oldEndIndex: oldEnd,
      newEndIndex: start + newText.length,
      startPosition: pointOf(old, start),
      oldEndPosition: pointOf(old, oldEnd),
      newEndPosition: pointOf(next, start + newText.length),
    };
    this.text = next;
    // Chunks touching [start - 1, oldEnd + 1] are merged and re-parsed; the rest shift.
    const first = Math.max(0, this.chunks.findIndex((c) => c.end >= start));
    let last = first;
    while (last + 1 < this.chunks.length && this.chunks[last + 1].start <= oldEnd) last++;
    if (!this.chunks.length) {
      this.reparseAll();
      return;
    }
    const mergedStart = this.chunks[first].start;
    const mergedEnd = this.chunks[last].end + delta;
    const dropped = this.chunks.slice(first, last + 1).map((c) => c.tree);
    const trees = new Set(this.chunks.map((c) => c.tree));
    for (const t of trees) t.edit(edit);
    const after = this.chunks.slice(last + 1).map((c) => ({ ...c, start: c.start + delta, end: c.end + delta }));
    const before = this.chunks.slice(0, first);
    // A chunk with a tree of its own is re-parsed incrementally from it (already edited above).
    const own = first === last && this.chunks.every((c, i) => i === first || c.tree !== this.chunks[first].tree) ? this.chunks[first].tree : undefined;
    const fresh = this.parseRange(mergedStart, mergedEnd, own);
    this.chunks = [...before, ...fresh, ...after];
    this.release(dropped);
    this.joinBalancedSpans();
  }

  /**
   * Chunk boundaries were top-level boundaries when they were made, but edits move braces: after
   * \`namespace x {\` typed at the top and \`}\` at the bottom, the chunks between are parsed outside the
   * namespace and both ends report errors that a fresh parse does not have. Where the braces opened in one
   * chunk close in a later one and the chunks between were not parsed together, that span is parsed again
   * as one. A brace that never closes stays the error of the chunk it is typed in.
   */
  private joinBalancedSpans(): void {
    const spans: Array<[number, number]> = [];
    let depth = 0;
    let open = -1;
    for (let i = 0; i < this.chunks.length; i++) {
      if (depth === 0 && this.chunks[i].balance > 0) open = i;
      depth += this.chunks[i].balance;
      if (depth > 0) continue;
      // Closed (or over-closed: a stray brace is its chunk's own error, and counting starts again after it).
      if (open >= 0 && i > open && this.chunks.slice(open, i + 1).some((c) => c.tree !== this.chunks[open].tree)) spans.push([open, i]);
      open = -1;
      depth = 0;
    }
    for (const [first, last] of spans.reverse()) {
      const dropped = this.chunks.slice(first, last + 1).map((c) => c.tree);
      const fresh = this.parseRange(this.chunks[first].start, this.chunks[last].end);
      this.chunks = [...this.chunks.slice(0, first), ...fresh, ...this.chunks.slice(last + 1)];
      this.release(dropped);
    }
  }

  /** Frees the syntax trees (WASM memory); the object must not be used afterwards. */
  dispose(): void {
    this.sleep();
  }

  private reparseAll(): void {
    const dropped = this.chunks.map((c) => c.tree);
    this.chunks = this.parseRange(0, this.text.length);
    this.release(dropped);
  }

  /** Parses [start, end) alone and splits the result into chunks at top-level boundaries. */
  private parseRange(start: number, end: number, old?: Tree): Chunk[] {
    const text = this.text;
    const whole = start === 0 && end === text.length;
    // Trees keep the input callback to serve `node.text`; reading from `this.text` keeps it right for
    // trees that were only shifted by later edits.
    const input = (index: number): string => this.text.slice(index, index + 8192);
    const tree = whole
      ? this.parser.parse(input)
      : this.parser.parse(input, old ?? null, { includedRanges: [{ startIndex: start, endIndex: end, startPosition: pointOf(text, start), endPosition: pointOf(text, end) }] });
    if (!tree) throw new Error('tree-sitter returned no tree');
    const bounds: number[] = [start];
    let size = 0;
    for (const n of tree.rootNode.children) {
      if (!n) continue;
      if (n.startIndex <= bounds[bounds.length - 1] || n.startIndex >= end) continue;
      size = n.startIndex - bounds[bounds.length - 1];
      if (size >= CHUNK_CHARS) bounds.push(n.startIndex);
    }
    bounds.push(end);
    const out: Chunk[] = [];
    for (let i = 0; i + 1 < bounds.length; i++) out.push({ tree, start: bounds[i], end: bounds[i + 1], balance: braceBalance(text, bounds[i], bounds[i + 1]) });
    return out;
  }

  private release(trees: Tree[]): void {
    const live = new Set(this.chunks.map((c) => c.tree));
    for (const t of new Set(trees)) if (!live.has(t)) t.delete();
  }
}

function pointOf(text: string, offset: number): { row: number; column: number } {
  let row = 0;
  let lineStart = 0;
  for (let nl = text.indexOf('\n'); nl >= 0 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
    row++;
    lineStart = nl + 1;
  }
  return { row, column: offset - lineStart };
}

/** Braces opened minus closed in text[start, end), outside comments, string and character literals and directives. */
export function braceBalance(text: string, start: number, end: number): number {
  let balance = 0;
  let lineStart = true;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      lineStart = true;
      continue;
    }
    if (c === 32 || c === 9 || c === 13) continue;
    const first = lineStart;
    lineStart = false;
    if (c === 35 && first) {
      // A directive, to its last spliced line.
      while (i < end && (text.charCodeAt(i) !== 10 || text.charCodeAt(i - 1) === 92 || (text.charCodeAt(i - 1) === 13 && text.charCodeAt(i - 2) === 92))) i++;
      lineStart = true;
    } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      const nl = text.indexOf('\n', i);
      i = (nl < 0 || nl > end ? end : nl) - 1;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const close = text.indexOf('*/', i + 2);
      i = (close < 0 ? end : close + 2) - 1;
    } else if (c === 34) {
      const raw = i > 0 && text.charCodeAt(i - 1) === 82 ? rawStringEnd(text, i) : undefined;
      i = (raw ?? quotedEnd(text, i, 34)) - 1;
    } else if (c === 39) {
      // A digit separator (1'000) follows a digit or letter; a character literal does not.
      if (i === 0 || !isIdentPart(text.charCodeAt(i - 1))) i = quotedEnd(text, i, 39) - 1;
    } else if (c === 123) balance++;
    else if (c === 125) balance--;
  }
  return balance;
}
