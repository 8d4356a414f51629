// Invocations of a name no macro defines that can only be a macro of a header not found (`TORCH_CHECK(c, "m")` on
// a line of its own with no `;`, its header not on the include path): blanked in the parse text, since no C++ reads so.
import type { Edit, FileScan } from './file-scan';
import { invocationSpan } from './macro-uses';
import type { MacroLookup } from './macros';
import { isIdentPart, isIdentStart } from './tokens';

// A macro-style name: capitals, digits and underscores, with at least one capital.
const MACRO_STYLE = /^_*[A-Z][A-Z0-9_]*$/;

// Words that may continue a function's head on the next line: a name followed by one is a declarator.
const HEAD_WORDS = new Set(['const', 'noexcept', 'override', 'final', 'requires', 'volatile', 'throw', 'try', 'mutable']);

/** Lines looked back over (blank or comment-only) for the token before an invocation: bounds the work per use. */
const LOOK_BACK_LINES = 16;

/**
 * Blanks for each invocation `NAME(...)` of a macro-style name that no macro defines here, where it stands as a
 * statement or declaration of its own and cannot be a call: it starts its line after a `;`, `{`, `}` or `:` (or a
 * directive, or the end of another such invocation), ends its line without a `;`, and the next line starts a name
 * or closes a block. The compiler would reject it unless a header defined it; the header not being found, what it
 * expands to is unknown, and the rest of the file still parses. `skip(at)` tells offsets to leave (inactive code).
 * Each identifier is looked at once and each invocation scanned once (invocationSpan bounds it): linear.
 */
export function unknownMacroEdits(scan: FileScan, macros: MacroLookup, skip: (at: number) => boolean): Edit[] {
  const text = scan.text;
  const ids = scan.identifiers;
  const out: Edit[] = [];
  let coveredUntil = 0;
  let lastEnd = -1;
  for (let k = 1; k < ids.length; k += 2) {
    const at = ids[k];
    const c = text.charCodeAt(at);
    if (at < coveredUntil || !((c >= 65 && c <= 90) || c === 95)) continue;
    let end = at + 1;
    while (end < text.length && isIdentPart(text.charCodeAt(end))) end++;
    const name = text.slice(at, end);
    if (!MACRO_STYLE.test(name) || macros.has(name) || !startsLine(text, at)) continue;
    const { close, scanned } = invocationSpan(text, at, end);
    coveredUntil = scanned;
    if (close === undefined || skip(at)) continue;
    const before = previousSignificant(text, at);
    if (!(before === -2 || (before >= 0 && (';{}:'.includes(text[before]) || before === lastEnd - 1)))) continue;
    if (!endsLineBeforeName(text, close)) continue;
    out.push({ start: at, end: close });
    lastEnd = close;
  }
  return out;
}

function startsLine(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === 10) return true;
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/**
 * Offset of the last character of code before the line holding `at` (blank and `//` comment lines skipped), -2 where
 * a directive line or the start of the text comes first, -1 where it is not found within LOOK_BACK_LINES.
 */
function previousSignificant(text: string, at: number): number {
  let lineEnd = text.lastIndexOf('\n', at - 1);
  for (let n = 0; n < LOOK_BACK_LINES; n++) {
    if (lineEnd < 0) return -2;
    const lineStart = text.lastIndexOf('\n', lineEnd - 1) + 1;
    const line = text.slice(lineStart, lineEnd);
    const comment = line.indexOf('//');
    const code = (comment >= 0 ? line.slice(0, comment) : line).trimEnd();
    if (code.trimStart().startsWith('#')) return -2;
    if (code.trim() !== '') return lineStart + code.length - 1;
    lineEnd = lineStart - 1;
  }
  return -1;
}

/** Whether only blanks or a `//` comment follow `close` on its line, and the next code starts a name (not a head word) or is `}`. */
function endsLineBeforeName(text: string, close: number): boolean {
  let i = close;
  while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9 || text.charCodeAt(i) === 13)) i++;
  if (text.startsWith('//', i)) i = lineEnd(text, i);
  if (i < text.length && text.charCodeAt(i) !== 10) return false;
  // The next code: blank lines and comment lines skipped (a directive line ends the search).
  for (let n = 0; n < LOOK_BACK_LINES && i < text.length; n++) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (text.startsWith('//', i)) {
      i = lineEnd(text, i);
      continue;
    }
    if (text.startsWith('/*', i)) {
      const e = text.indexOf('*/', i + 2);
      if (e < 0) return false;
      i = e + 2;
      continue;
    }
    if (text[i] === '}') return true;
    if (!isIdentStart(text.charCodeAt(i))) return false;
    let e = i + 1;
    while (e < text.length && isIdentPart(text.charCodeAt(e))) e++;
    return !HEAD_WORDS.has(text.slice(i, e));
  }
  return false;
}

function lineEnd(text: string, i: number): number {
  const e = text.indexOf('\n', i);
  return e < 0 ? text.length : e;
}
