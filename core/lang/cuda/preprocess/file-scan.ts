// One linear lexical pass over a file's text, cached per text: its directive lines (with splices joined and
// comments removed), the offsets of the identifiers in code, and its include guard. Everything that depends
// on macros is done later (./directives.ts), so a header that did not change is never scanned again.
import { isDigit, isIdentPart, isIdentStart, ppNumberEnd, quotedEnd, rawStringEnd, type Token } from './tokens';
import type { MacroDefinition } from './macros';

/** One change the parse text makes to a file's text. */
export interface Edit {
  start: number;
  end: number;
  /** Replacement text of the same length; absent: blank (spaces, line breaks kept). */
  text?: string;
}

export interface DirectiveLine {
  /** Offset of the `#`. */
  start: number;
  /** Offset just past the directive: its final line break (not included), or the end of the text. */
  end: number;
  /** Offset of the start of the line holding the `#` (only whitespace or comments lie between). */
  lineStart: number;
  /** Zero-based line of the `#`. */
  line: number;
  /** The directive's name (`if`, `define`, ...), empty for a null directive or a line marker. */
  name: string;
  /** The rest of the directive after its name: splices joined, comments as spaces, trimmed. */
  rest: string;
  /** Memo of the tokens of an `#if`/`#elif` expression, filled by the directive walk. */
  tokens?: Token[];
  /** Memo of a literal `#include` target (a computed one depends on macros and is not kept). */
  include?: { spelling: string; angled: boolean };
  /** Memo of the parsed `#define` (per file name), filled by the directive walk. */
  define?: { file: string | undefined; def: MacroDefinition | undefined };
}

export interface FileScan {
  text: string;
  directives: DirectiveLine[];
  /**
   * The identifiers outside directives, comments and literals as (hash of the name, offset) pairs in text order,
   * and a Bloom filter of the hashes: hashing as the scan goes is much cheaper than slicing every identifier
   * into a map, and most names asked for (include guards, macros of other headers) are absent. See occurrences().
   */
  identifiers: Int32Array;
  bloom: Uint32Array;
  /** Memo of occurrences() by name. */
  byName: Map<string, readonly number[]>;
  /** The macro of a classic include guard wrapping the whole file, if any. */
  guard?: string;
  /** Memo of the last parse text built from this scan, with the edits it was built from. */
  lastParse?: { edits: readonly Edit[]; text: string };
}

const BLOOM_WORDS = 2048;
const BLOOM_MASK = BLOOM_WORDS - 1;

const STRING_PREFIXES = new Set(['L', 'u', 'U', 'u8']);
const RAW_PREFIXES = new Set(['R', 'LR', 'uR', 'UR', 'u8R']);

/** End of the directive whose `#` is at `i`: the line break ending it, honouring splices, comments and quotes. */
function directiveEnd(text: string, i: number): number {
  const n = text.length;
  let j = i + 1;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c === 10) {
      let k = j - 1;
      if (text.charCodeAt(k) === 13) k--;
      if (k > i && text.charCodeAt(k) === 92) {
        j++;
        continue;
      }
      return j;
    }
    if (c === 47 && text.charCodeAt(j + 1) === 42) {
      const e = text.indexOf('*/', j + 2);
      j = e < 0 ? n : e + 2;
      continue;
    }
    if (c === 47 && text.charCodeAt(j + 1) === 47) {
      j = lineCommentEnd(text, j);
      continue;
    }
    if (c === 34 || c === 39) {
      const e = quotedEnd(text, j, c);
      j = e > j ? e : j + 1;
      continue;
    }
    j++;
  }
  return n;
}

/** The line break ending a `//` comment at `i` (a backslash before the break continues the comment). */
function lineCommentEnd(text: string, i: number): number {
  let j = i;
  for (;;) {
    const e = text.indexOf('\n', j);
    if (e < 0) return text.length;
    let k = e - 1;
    if (text.charCodeAt(k) === 13) k--;
    if (text.charCodeAt(k) !== 92) return e;
    j = e + 1;
  }
}

/** The text of a directive from `from` to `to` with splices joined and comments replaced by a space. */
function logicalText(text: string, from: number, to: number): string {
  const raw = text.slice(from, to);
  if (!raw.includes('\\') && !raw.includes('/')) return raw;
  // Copies runs of plain text in slices (one string per run, joined once), so the cost stays linear.
  const parts: string[] = [];
  let runStart = from;
  let i = from;
  const flush = (end: number, replacement?: string): void => {
    if (end > runStart) parts.push(text.slice(runStart, end));
    if (replacement !== undefined) parts.push(replacement);
  };
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c === 92 && (text.charCodeAt(i + 1) === 10 || (text.charCodeAt(i + 1) === 13 && text.charCodeAt(i + 2) === 10))) {
      flush(i);
      i += text.charCodeAt(i + 1) === 10 ? 2 : 3;
      runStart = i;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      flush(i, ' ');
      const e = text.indexOf('*/', i + 2);
      i = e < 0 || e + 2 > to ? to : e + 2;
      runStart = i;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 47) {
      flush(i, ' ');
      runStart = to;
      break;
    }
    if (c === 34 || c === 39) {
      const e = Math.min(quotedEnd(text, i, c), to);
      i = e > i ? e : i + 1;
      continue;
    }
    i++;
  }
  flush(to);
  return parts.join('');
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12;
}

/** Scans `text` once (linear time); see FileScan. */
export function scanText(text: string): FileScan {
  const n = text.length;
  const directives: DirectiveLine[] = [];
  const ids: number[] = [];
  const bloom = new Uint32Array(BLOOM_WORDS);
  let firstCode = -1;
  let lastCodeEnd = -1;
  let atLineStart = true;
  let lineStart = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      atLineStart = true;
      lineStart = ++i;
      continue;
    }
    if (isBlank(c)) {
      i++;
      continue;
    }
    if (c === 92 && (text.charCodeAt(i + 1) === 10 || (text.charCodeAt(i + 1) === 13 && text.charCodeAt(i + 2) === 10))) {
      i += text.charCodeAt(i + 1) === 10 ? 2 : 3;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 47) {
      i = lineCommentEnd(text, i);
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const e = text.indexOf('*/', i + 2);
      i = e < 0 ? n : e + 2;
      continue;
    }
    if (c === 35 && atLineStart) {
      const end = directiveEnd(text, i);
      const body = logicalText(text, i + 1, end);
      const m = /^\s*([A-Za-z_]\w*)/.exec(body);
      directives.push({
        start: i,
        end,
        lineStart,
        line: 0,
        name: m ? m[1] : '',
        rest: (m ? body.slice(m[0].length) : body).trim(),
      });
      i = end;
      continue;
    }
    atLineStart = false;
    if (firstCode < 0) firstCode = i;
    let end: number;
    if (isIdentStart(c)) {
      let h = c;
      end = i + 1;
      for (;;) {
        const d = text.charCodeAt(end);
        if (end >= n || !isIdentPart(d)) break;
        h = (Math.imul(h, 31) + d) | 0;
        end++;
      }
      const q = text.charCodeAt(end);
      if (q === 34 && end - i <= 3 && RAW_PREFIXES.has(text.slice(i, end))) {
        end = rawStringEnd(text, end) ?? quotedEnd(text, end, q);
      } else if ((q === 34 || q === 39) && end - i <= 2 && STRING_PREFIXES.has(text.slice(i, end))) {
        end = quotedEnd(text, end, q);
      } else {
        ids.push(h, i);
        bloom[(h >>> 5) & BLOOM_MASK] |= 1 << (h & 31);
      }
    } else if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)))) {
      end = ppNumberEnd(text, i);
    } else if (c === 34 || c === 39) {
      end = quotedEnd(text, i, c);
      if (end <= i) end = i + 1;
    } else {
      end = i + 1;
    }
    lastCodeEnd = end;
    i = end;
  }
  assignLines(text, directives);
  const scan: FileScan = { text, directives, identifiers: Int32Array.from(ids), bloom, byName: new Map() };
  const guard = findGuard(directives, firstCode, lastCodeEnd);
  if (guard) scan.guard = guard;
  return scan;
}

/** The hash scanText gives an identifier. */
export function identifierHash(name: string): number {
  let h = name.charCodeAt(0);
  for (let k = 1; k < name.length; k++) h = (Math.imul(h, 31) + name.charCodeAt(k)) | 0;
  return h;
}

/** Offsets of the code occurrences of identifier `name` in the scanned text, ascending. */
export function occurrences(scan: FileScan, name: string): readonly number[] {
  let list = scan.byName.get(name);
  if (list) return list;
  const h = identifierHash(name);
  const text = scan.text;
  const found: number[] = [];
  if (scan.bloom[(h >>> 5) & BLOOM_MASK] & (1 << (h & 31))) {
    const ids = scan.identifiers;
    for (let k = 0; k < ids.length; k += 2) {
      const at = ids[k + 1];
      if (ids[k] === h && text.startsWith(name, at) && !isIdentPart(text.charCodeAt(at + name.length))) found.push(at);
    }
  }
  list = found.length === 0 ? EMPTY : found;
  scan.byName.set(name, list);
  return list;
}

const EMPTY: readonly number[] = [];

/** Zero-based line numbers of the directives, in one pass over the line breaks. */
function assignLines(text: string, directives: DirectiveLine[]): void {
  let line = 0;
  let pos = 0;
  for (const d of directives) {
    for (;;) {
      const e = text.indexOf('\n', pos);
      if (e < 0 || e >= d.start) break;
      line++;
      pos = e + 1;
    }
    d.line = line;
  }
}

/** The guard macro when the file is `#ifndef G` ... `#endif` with nothing outside but comments and whitespace. */
function findGuard(directives: readonly DirectiveLine[], firstCode: number, lastCodeEnd: number): string | undefined {
  const first = directives[0];
  if (!first) return undefined;
  let name: string | undefined;
  if (first.name === 'ifndef') name = /^([A-Za-z_]\w*)$/.exec(first.rest)?.[1];
  else if (first.name === 'if') name = /^!\s*defined\s*(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))$/.exec(first.rest)?.slice(1).find(Boolean);
  if (!name) return undefined;
  if (firstCode >= 0 && firstCode < first.start) return undefined;
  let depth = 0;
  for (let k = 0; k < directives.length; k++) {
    const d = directives[k];
    if (d.name === 'if' || d.name === 'ifdef' || d.name === 'ifndef') depth++;
    else if (d.name === 'endif') {
      depth--;
      if (depth === 0) {
        // The guard's #endif must be the last directive, with no code after it.
        if (k !== directives.length - 1 || lastCodeEnd > d.start) return undefined;
        return name;
      }
    } else if (depth === 1 && (d.name === 'else' || d.name === 'elif' || d.name === 'elifdef' || d.name === 'elifndef')) {
      return undefined;
    }
  }
  return undefined;
}

// The cache of scans by text: bounded in entries and characters, least recently used first out.
const MAX_ENTRIES = 8192;
const MAX_CHARS = 256 * 1024 * 1024;
const cache = new Map<string, FileScan>();
let cachedChars = 0;

/** The scan of `text`, from the cache when the same text was scanned before. */
export function scanFile(text: string): FileScan {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const scan = scanText(text);
  cache.set(text, scan);
  cachedChars += text.length;
  while (cache.size > MAX_ENTRIES || (cachedChars > MAX_CHARS && cache.size > 1)) {
    const oldest = cache.keys().next().value as string;
    cache.delete(oldest);
    cachedChars -= oldest.length;
  }
  return scan;
}

/** Empties the scan cache (tests, memory pressure). */
export function clearScanCache(): void {
  cache.clear();
  cachedChars = 0;
}

/** Number of texts in the scan cache. */
export function scanCacheSize(): number {
  return cache.size;
}
