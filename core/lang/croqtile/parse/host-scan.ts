// Host C++ scanning for the Croqtile parser: finds the `__co__` functions between host code (comment, string,
// char and raw-string aware) and skips `__cok__ { ... }` blocks.
import { commentEnd, isIdentPart, quotedEnd, rawStringAt } from '../lexer';

export interface Marker {
  kind: 'co' | 'cok';
  start: number;
  end: number;
}

const MARKER_RE = /["'/]|R"|__(?:co|cok|real_cok)__/g;

/** Finds the next `__co__` (or `__cok__` / `__real_cok__`) identifier in host code at or after `from`. */
export function nextMarker(text: string, from: number): Marker | undefined {
  const re = MARKER_RE;
  re.lastIndex = from;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const i = m.index;
    const c = text.charCodeAt(i);
    if (c === 47 /* / */) {
      const e = commentEnd(text, i);
      if (e >= 0) re.lastIndex = e;
      continue;
    }
    if (c === 34 /* " */) {
      re.lastIndex = Math.max(quotedEnd(text, i, 34), i + 1);
      continue;
    }
    if (c === 39 /* ' */) {
      const p = text.charCodeAt(i - 1);
      if (!(p >= 48 && p <= 57)) re.lastIndex = Math.max(quotedEnd(text, i, 39), i + 1);
      continue;
    }
    if (c === 82 /* R */) {
      const r = rawStringAt(text, i);
      if (r >= 0) re.lastIndex = r;
      continue;
    }
    // A marker candidate: it must be a whole identifier.
    const end = i + m[0].length;
    if (isIdentPart(text.charCodeAt(i - 1))) {
      // Inside a longer identifier: skip the rest of it.
      let j = end;
      while (j < text.length && isIdentPart(text.charCodeAt(j))) j++;
      re.lastIndex = j;
      continue;
    }
    if (isIdentPart(text.charCodeAt(end))) {
      let j = end;
      while (j < text.length && isIdentPart(text.charCodeAt(j))) j++;
      re.lastIndex = j;
      continue;
    }
    return { kind: m[0] === '__co__' ? 'co' : 'cok', start: i, end };
  }
  return undefined;
}

/** Skips a `{ ... }` block after `i` (string/comment aware); returns the offset after its `}` (or text end). */
export function skipBraceBlock(text: string, i: number): number {
  const n = text.length;
  let depth = 0;
  let seen = false;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 47) {
      const e = commentEnd(text, i);
      if (e >= 0) {
        i = e;
        continue;
      }
    } else if (c === 34 || c === 39) {
      const p = text.charCodeAt(i - 1);
      if (c === 39 && p >= 48 && p <= 57) {
        i++;
        continue;
      }
      i = Math.max(quotedEnd(text, i, c), i + 1);
      continue;
    } else if (c === 82) {
      const r = rawStringAt(text, i);
      if (r >= 0) {
        i = r;
        continue;
      }
    } else if (c === 123) {
      depth++;
      seen = true;
    } else if (c === 125) {
      depth--;
      if (seen && depth <= 0) return i + 1;
    } else if (c === 59 && !seen) {
      return i + 1; // `__cok__;` or garbage: nothing to skip
    }
    i++;
  }
  return n;
}
