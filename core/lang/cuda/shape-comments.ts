// The per-kernel launch-shape comment a user writes when no launch in the translation unit says how a
// kernel runs: `// phaseflip: block=128` (also `block=128,1,1`, `block=32x4`, `grid=...`, `cluster=2`,
// `smem=...`), on the lines just above the kernel or at the top of its body.
import type { SyntaxNode } from './parser';
import type { Dim3 } from './launch-sites';
import { named } from './syntax-nodes';

/** What a `// phaseflip:` comment sets; fields it does not name stay undefined. */
export interface ShapeComment {
  block?: Dim3;
  grid?: Dim3;
  cluster?: Dim3;
  smem?: number;
  /** Zero-based line of the comment. */
  line: number;
}

const MAX_THREADS = 1024;

/** The comment text a quick fix inserts to declare a one-dimensional block. */
export function blockComment(threads: number): string {
  return `// phaseflip: block=${threads}`;
}

/**
 * The `phaseflip:` comment of a kernel: among the comment lines directly above its declaration `decl`
 * (its template declaration when there is one), the comment lines between that and the definition
 * `definition`, or the comments that open its `body`. The first one found wins. The lines above are
 * read from the text: walking tree siblings costs time linear in their number, per kernel.
 */
export function shapeCommentOf(text: string, decl: SyntaxNode, definition: SyntaxNode, body: SyntaxNode, constants: ReadonlyMap<string, number>): ShapeComment | undefined {
  const found: { text: string; line: number }[] = commentLinesAbove(text, decl.startIndex, decl.startPosition.row);
  if (definition.startIndex > decl.startIndex) {
    text.slice(decl.startIndex, definition.startIndex).split('\n').forEach((l, i) => {
      if (/^\s*(\/\/|\/\*)/.test(l)) found.push({ text: l, line: decl.startPosition.row + i });
    });
  }
  for (const c of named(body)) {
    if (c.type !== 'comment') break;
    found.push({ text: c.text, line: c.startPosition.row });
  }
  for (const c of found) {
    const parsed = parseShapeComment(c.text, constants);
    if (parsed) return { ...parsed, line: c.line };
  }
  return undefined;
}

/** The whole-line comments right above offset `at` (on row `row`), nearest first. */
export function commentLinesAbove(text: string, at: number, row: number): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let end = text.lastIndexOf('\n', at - 1);
  for (let line = row - 1; end > 0 && line >= 0; line--) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const l = text.slice(start, end);
    if (!/^\s*(\/\/|\/\*|\*)|\*\/\s*$/.test(l)) break;
    out.push({ text: l, line });
    end = start - 1;
  }
  return out;
}

/** `// phaseflip: block=128 grid=4 cluster=2,1,1 smem=1024` → its fields; undefined when it is not one. */
export function parseShapeComment(text: string, constants: ReadonlyMap<string, number>): Omit<ShapeComment, 'line'> | undefined {
  // The body after `phaseflip:` without blanks and a closing `*/`, by hand: the former pattern
  // `/phaseflip:\s*(.*?)\s*(?:\*\/)?\s*$/s` backtracked polynomially on long blank runs. A blank run starts a
  // separator match only at its first blank (or right after the previous match), which keeps the splits linear.
  const at = text.indexOf('phaseflip:');
  if (at < 0) return undefined;
  let body = text.slice(at + 'phaseflip:'.length).trim();
  if (body.endsWith('*/')) body = body.slice(0, -2).trimEnd();
  const out: Omit<ShapeComment, 'line'> = {};
  const settings = body.replace(/(?<!\s)\s*=\s*|=\s*/g, '=').replace(/(?<!\s)\s*,\s*|,\s*/g, ',').split(/\s+/);
  for (const s of settings) {
    const [key, value] = s.split('=');
    if (!value) continue;
    if (key === 'smem') {
      const v = number(value, constants);
      if (v !== undefined) out.smem = v;
      continue;
    }
    if (key !== 'block' && key !== 'grid' && key !== 'cluster') continue;
    const d = dims(value, constants);
    if (!d || (key === 'block' && d[0] * d[1] * d[2] > MAX_THREADS)) continue;
    out[key] = d;
  }
  return out.block || out.grid || out.cluster || out.smem !== undefined ? out : undefined;
}

/** `128`, `128,1,1`, `(128, 1, 1)`, `32x4`, or constant names: [x, y, z] of positive integers. */
function dims(value: string, constants: ReadonlyMap<string, number>): Dim3 | undefined {
  const parts = value.replace(/^[([{]|[)\]}]$/g, '').split(/,|x(?=\d)/);
  if (parts.length > 3) return undefined;
  const v = parts.map((p) => number(p, constants));
  if (!v.every((x): x is number => x !== undefined && x > 0)) return undefined;
  return [v[0], v[1] ?? 1, v[2] ?? 1];
}

function number(text: string, constants: ReadonlyMap<string, number>): number | undefined {
  const t = text.trim();
  const v = /^\d+$/.test(t) ? Number(t) : constants.get(t);
  return v !== undefined && Number.isInteger(v) && v >= 0 ? v : undefined;
}
