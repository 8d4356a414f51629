// Where the editor should show variable values inline while a debug session is stopped: the
// identifiers of the stopped function from its first line down to the stopped line. Lexical on
// purpose (every language, any half-typed file): a name the debugger's Locals scope does not know is
// simply not shown, so over-reporting costs nothing while a parse failure would cost every value.
// Each language describes how its functions start and which words are keywords (`InlineValueSyntax`);
// the scanner here is shared.

export interface InlineValueName {
  /** Zero-based line and UTF-16 columns of one occurrence. */
  line: number;
  start: number;
  end: number;
  name: string;
}

/** How far above the stop a function header is looked for (and values shown, when none is found). */
const MAX_LINES_BACK = 200;

/** What the scanner needs to know of a language (`Language.inlineValues`). */
export interface InlineValueSyntax {
  /** Matches a line that starts a function whose locals the debugger shows. */
  functionStart: RegExp;
  /** Words that are never variables: keywords, type names, qualifiers, built-in objects. */
  keywords: ReadonlySet<string>;
}

/** C++'s keywords, which every C-family language (CUDA, Croqtile host code) reserves too. */
export const CPP_KEYWORDS: readonly string[] =
  `auto bool break case char class const constexpr continue default delete do double else enum extern false float for goto if inline int long namespace new nullptr operator private protected public register return short signed sizeof static struct switch template this true typedef typename union unsigned using virtual void volatile while`.split(
    /\s+/,
  );

/**
 * Identifier occurrences from the start of the function enclosing `stopLine` (or MAX_LINES_BACK
 * lines up) to `stopLine`, clipped to the visible `[fromLine, toLine]`. Comments, strings, calls
 * (`f(`), member names (`.x`, `->x`, `::x`) and `notVariables` are skipped; `functionStart` says
 * where the stopped function begins.
 */
export function scanInlineValueNames(
  text: string,
  functionStart: RegExp,
  notVariables: ReadonlySet<string>,
  stopLine: number,
  fromLine = 0,
  toLine = stopLine,
): InlineValueName[] {
  const lines = text.split(/\r?\n/);
  const last = Math.min(stopLine, toLine, lines.length - 1);
  if (last < 0) return [];
  let first = Math.max(0, stopLine - MAX_LINES_BACK);
  for (let l = Math.min(stopLine, lines.length - 1); l >= first; l--) {
    if (functionStart.test(lines[l])) {
      first = l;
      break;
    }
  }
  first = Math.max(first, fromLine);
  const out: InlineValueName[] = [];
  let inBlockComment = false;
  for (let l = first; l <= last; l++) {
    const line = lines[l];
    let i = 0;
    while (i < line.length) {
      if (inBlockComment) {
        const end = line.indexOf('*/', i);
        if (end < 0) break;
        inBlockComment = false;
        i = end + 2;
        continue;
      }
      const c = line[i];
      if (c === '/' && line[i + 1] === '/') break;
      if (c === '#' && line.slice(0, i).trim() === '') break;
      if (c === '/' && line[i + 1] === '*') {
        inBlockComment = true;
        i += 2;
        continue;
      }
      if (c === '"' || c === "'") {
        i = skipQuoted(line, i);
        continue;
      }
      if (/[A-Za-z_]/.test(c)) {
        let j = i + 1;
        while (j < line.length && /\w/.test(line[j])) j++;
        const name = line.slice(i, j);
        if (isVariableUse(line, i, j, name, notVariables)) out.push({ line: l, start: i, end: j, name });
        i = j;
        continue;
      }
      if (/\d/.test(c)) {
        // Numbers with suffixes (`1u`, `0x1F`, `1e-3f`) are not identifiers.
        while (i < line.length && /[\w.]/.test(line[i])) i++;
        continue;
      }
      i++;
    }
  }
  return out;
}

function skipQuoted(line: string, at: number): number {
  const quote = line[at];
  let i = at + 1;
  while (i < line.length && line[i] !== quote) i += line[i] === '\\' ? 2 : 1;
  return i + 1;
}

function isVariableUse(line: string, start: number, end: number, name: string, notVariables: ReadonlySet<string>): boolean {
  if (notVariables.has(name)) return false;
  const before = line.slice(0, start).trimEnd();
  if (before.endsWith('.') || before.endsWith('->') || before.endsWith('::')) return false;
  const after = line.slice(end).trimStart();
  // Calls and template names; `x (` in a declaration like `int f (` is a function too.
  if (after.startsWith('(') || (after.startsWith('<') && /^<\s*[\w:]+\s*(,|>)/.test(after) && !/^<\s*\d/.test(after))) return false;
  // A label or a namespace/type qualifier.
  if (after.startsWith('::')) return false;
  return true;
}
