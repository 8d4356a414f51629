// Keeps the parses of a document's `__co__` functions between analyses, so that an edit re-parses only the
// functions whose text it changed; the others are taken over and moved to where they now start.
import type { Span } from './ast';
import type { FunctionParseCache, ParsedFunction } from './parser';
import type { FunctionMacro } from './preprocess';

/** How many characters from a function's start index the kept parses (its `__co__` and signature). */
const HEAD = 64;

interface KeptParse {
  parsed: ParsedFunction;
  /** Every span object of the parse's syntax tree and errors, each once: what moving the parse moves. */
  spans: Span[];
  /** The preprocessed text the parse read: from the function's start up to one character past its end (the
   * character that told the lexer where the last token ended), or to the end of the text. */
  src: string;
  /** The original text over the same range (verbatim slices of the syntax tree come from it). */
  text: string;
  /** The parse ran into the end of the text: it is valid only where the text still ends there. */
  atEnd: boolean;
}

export class CroqtileParseCache implements FunctionParseCache {
  private kept = new Map<string, KeptParse[]>();
  private next = new Map<string, KeptParse[]>();
  private macros = '';

  startFile(functionMacros: ReadonlyMap<string, FunctionMacro>): void {
    // Tokens expand through the function-like macros: other macros, other parses.
    const macros = functionMacros.size === 0 ? '' : JSON.stringify([...functionMacros]);
    if (macros !== this.macros) this.next.clear();
    this.macros = macros;
    // What the last file parsed or took over is on offer; the rest of what was on offer then is dropped.
    this.kept = this.next;
    this.next = new Map();
  }

  reuse(src: string, text: string, start: number): ParsedFunction | undefined {
    const key = src.slice(start, start + HEAD);
    const candidates = this.kept.get(key);
    if (!candidates) return undefined;
    // (Comparing slices is much faster than startsWith, which V8 runs character by character.)
    const i = candidates.findIndex((k) => {
      const end = start + k.src.length;
      return (!k.atEnd || end === src.length) && src.slice(start, end) === k.src && text.slice(start, end) === k.text;
    });
    if (i < 0) return undefined;
    const [hit] = candidates.splice(i, 1);
    if (candidates.length === 0) this.kept.delete(key);
    moveParse(hit!, start - hit!.parsed.start);
    this.add(this.next, key, hit!);
    return hit!.parsed;
  }

  remember(src: string, text: string, parsed: ParsedFunction): void {
    const end = Math.min(src.length, parsed.end + 1);
    const kept: KeptParse = {
      parsed,
      spans: spansOf(parsed),
      src: src.slice(parsed.start, end),
      text: text.slice(parsed.start, end),
      atEnd: parsed.end >= src.length,
    };
    this.add(this.next, src.slice(parsed.start, parsed.start + HEAD), kept);
  }

  /** Forgets every parse (the document was replaced or closed). */
  clear(): void {
    this.kept.clear();
    this.next.clear();
  }

  private add(map: Map<string, KeptParse[]>, key: string, kept: KeptParse): void {
    const list = map.get(key);
    if (list) list.push(kept);
    else map.set(key, [kept]);
  }
}

/** Every span object of a parse, each once (the parser may share one between nodes). */
function spansOf(parsed: ParsedFunction): Span[] {
  const spans = new Set<Span>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' && item !== null) walk(item);
      return;
    }
    const record = node as Record<string, unknown>;
    for (const key in record) {
      const value = record[key];
      if (typeof value !== 'object' || value === null) continue;
      if (key === 'span' || key === 'nameSpan') spans.add(value as Span);
      else walk(value);
    }
  };
  if (parsed.fn) walk(parsed.fn);
  for (const e of parsed.errors) spans.add(e.span);
  return [...spans];
}

/** Moves a kept parse by `delta` offsets. */
function moveParse(kept: KeptParse, delta: number): void {
  if (delta === 0) return;
  for (const s of kept.spans) {
    s.start += delta;
    s.end += delta;
  }
  kept.parsed.start += delta;
  kept.parsed.end += delta;
}
