// A small TextMate tokenizer for grammar tests, standing in for vscode-textmate + vscode-oniguruma
// (not dependencies of this repo). It runs each rule's regex as a JavaScript RegExp and implements
// the parts of the TextMate model our grammars use: match, begin/end with backreferences to the begin
// match, name/contentName, captures with nested patterns and `$n` in names, local includes, and the
// leftmost-match rule with the end pattern winning ties. Includes of other grammars (source.cpp) are
// recorded and skipped, so host C++ stays unscoped here.

export interface RawRule {
  name?: string;
  contentName?: string;
  match?: string;
  begin?: string;
  end?: string;
  captures?: Record<string, RawCapture>;
  beginCaptures?: Record<string, RawCapture>;
  endCaptures?: Record<string, RawCapture>;
  patterns?: RawRule[];
  include?: string;
  comment?: string;
}

export interface RawCapture {
  name?: string;
  patterns?: RawRule[];
}

export interface RawGrammar {
  scopeName: string;
  patterns: RawRule[];
  repository?: Record<string, RawRule>;
}

export interface Token {
  text: string;
  /** Outermost first; the first entry is the grammar's scopeName. */
  scopes: string[];
}

interface Frame {
  rule: RawRule;
  /** Scopes of the begin/end text (includes `name`). */
  scopes: string[];
  /** Scopes of the content between begin and end (adds `contentName`). */
  content: string[];
  end?: RegExp;
  beginPos: number;
}

interface Found {
  rule?: RawRule;
  isEnd: boolean;
  m: RegExpExecArray;
}

/** Regexes that JavaScript could not compile, with the reason. */
export interface CompileFailure {
  source: string;
  error: string;
}

export class TmLite {
  readonly failures: CompileFailure[] = [];
  readonly externalIncludes = new Set<string>();
  private readonly cache = new Map<string, RegExp | null>();
  private readonly flat = new Map<RawRule | RawRule[], RawRule[]>();

  constructor(private readonly grammar: RawGrammar) {}

  /** Compiles a TextMate regex as a JS RegExp (`d` for capture indices, `g` for searching from an offset). */
  compile(source: string): RegExp | null {
    if (this.cache.has(source)) return this.cache.get(source)!;
    let re: RegExp | null = null;
    try {
      re = new RegExp(source, 'dg');
    } catch (e) {
      this.failures.push({ source, error: (e as Error).message });
    }
    this.cache.set(source, re);
    return re;
  }

  /** Every rule with a match or begin reachable from a pattern list, includes resolved, in order. */
  private candidates(list: RawRule[]): RawRule[] {
    const hit = this.flat.get(list);
    if (hit) return hit;
    const out: RawRule[] = [];
    const seen = new Set<RawRule>();
    const walk = (rules: RawRule[]) => {
      for (const r of rules) {
        if (r.include !== undefined) {
          const target = this.resolve(r.include);
          if (target && !seen.has(target)) {
            seen.add(target);
            walk([target]);
          }
          continue;
        }
        if (r.match !== undefined || r.begin !== undefined) out.push(r);
        else if (r.patterns) walk(r.patterns);
      }
    };
    walk(list);
    this.flat.set(list, out);
    return out;
  }

  private resolve(include: string): RawRule | undefined {
    if (include === '$self' || include === '$base') return { patterns: this.grammar.patterns };
    if (include.startsWith('#')) return this.grammar.repository?.[include.slice(1)];
    this.externalIncludes.add(include);
    return undefined;
  }

  /** Tokenizes a whole document (state carries across lines). */
  tokenize(text: string): Token[][] {
    const stack: Frame[] = [
      { rule: { patterns: this.grammar.patterns }, scopes: [this.grammar.scopeName], content: [this.grammar.scopeName], beginPos: -1 },
    ];
    return text.split('\n').map((line) => this.tokenizeLine(line, stack));
  }

  private tokenizeLine(line: string, stack: Frame[]): Token[] {
    const scopes: string[][] = new Array(line.length);
    this.scan(line, 0, line.length, stack, scopes, true);
    return group(line, scopes, stack[0]!.scopes);
  }

  /**
   * Scans `line[from, to)` with the given stack, writing per-character scopes. `persistent` is false
   * for capture re-tokenization, where begin rules may not outlive the captured text.
   */
  private scan(line: string, from: number, to: number, stack: Frame[], out: string[][], persistent: boolean): void {
    const text = line.slice(0, to);
    let pos = from;
    let guard = 0;
    while (pos <= to) {
      if (++guard > 10_000) throw new Error(`tokenizer loop at ${pos} in: ${line}`);
      const frame = stack[stack.length - 1]!;
      let best: Found | undefined;
      if (frame.end) {
        const m = execAt(frame.end, text, pos);
        if (m) best = { isEnd: true, m };
      }
      for (const rule of this.candidates(frame.rule.patterns ?? [])) {
        const re = this.compile((rule.match ?? rule.begin)!);
        if (!re) continue;
        const m = execAt(re, text, pos);
        if (m && (!best || m.index < best.m.index)) best = { rule, isEnd: false, m };
      }
      if (!best) {
        fill(out, pos, to, frame.content);
        return;
      }
      const { m } = best;
      const start = m.index;
      const end = start + m[0].length;
      fill(out, pos, start, frame.content);

      if (best.isEnd) {
        const rule = frame.rule;
        if (stack.length > 1) stack.pop();
        this.applyCaptures(line, m, frame.scopes, rule.endCaptures ?? rule.captures, out);
        if (end === start && frame.beginPos === start) {
          // An empty end right where the rule began would loop: consume one character.
          fill(out, start, Math.min(start + 1, to), stack[stack.length - 1]!.content);
          pos = start + 1;
        } else pos = end;
        continue;
      }

      const rule = best.rule!;
      if (rule.match !== undefined) {
        const base = rule.name ? [...frame.content, substitute(rule.name, m)] : frame.content;
        fill(out, start, end, base);
        this.applyCaptures(line, m, base, rule.captures, out);
        if (end === start) {
          fill(out, start, Math.min(start + 1, to), frame.content);
          pos = start + 1;
        } else pos = end;
        continue;
      }

      // begin/end rule
      const scopesOf = rule.name ? [...frame.content, substitute(rule.name, m)] : frame.content;
      const content = rule.contentName ? [...scopesOf, substitute(rule.contentName, m)] : scopesOf;
      const endSource = (rule.end ?? '').replace(/\\(\d+)/g, (_, n: string) => escapeRegExp(m[Number(n)] ?? ''));
      const endRe = this.compile(endSource) ?? /(?!)/dg;
      fill(out, start, end, scopesOf);
      this.applyCaptures(line, m, scopesOf, rule.beginCaptures ?? rule.captures, out);
      const repeat = end === start && frame.rule === rule && frame.beginPos === start;
      if (repeat) {
        fill(out, start, Math.min(start + 1, to), frame.content);
        pos = start + 1;
        continue;
      }
      stack.push({ rule, scopes: scopesOf, content, end: endRe, beginPos: start });
      pos = end;
      if (pos >= to && !persistent) break;
    }
    if (!persistent) stack.length = 1;
  }

  private applyCaptures(
    line: string,
    m: RegExpExecArray,
    base: string[],
    captures: Record<string, RawCapture> | undefined,
    out: string[][],
  ): void {
    if (!captures || !m.indices) return;
    const keys = Object.keys(captures)
      .map(Number)
      .sort((a, b) => a - b);
    for (const k of keys) {
      const span = m.indices[k];
      const cap = captures[String(k)]!;
      if (!span || span[0] === span[1]) continue;
      const [cs, ce] = span;
      if (cap.name) {
        const name = substitute(cap.name, m);
        for (let i = cs; i < ce; i++) out[i] = [...(out[i] ?? base), name];
      }
      if (cap.patterns) {
        const inner: string[][] = new Array(line.length);
        const outerAt = (i: number) => out[i] ?? base;
        const root: Frame = { rule: { patterns: cap.patterns }, scopes: [], content: [], beginPos: -1 };
        this.scan(line, cs, ce, [root], inner, false);
        for (let i = cs; i < ce; i++) out[i] = [...outerAt(i), ...(inner[i] ?? [])];
      }
    }
  }
}

function execAt(re: RegExp, text: string, pos: number): RegExpExecArray | null {
  re.lastIndex = pos;
  return re.exec(text);
}

function fill(out: string[][], from: number, to: number, scopes: string[]): void {
  for (let i = from; i < to; i++) out[i] = scopes;
}

function substitute(name: string, m: RegExpExecArray): string {
  return name.replace(/\$(\d+)/g, (_, n: string) => m[Number(n)] ?? '');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function group(line: string, scopes: string[][], root: string[]): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < line.length; i++) {
    const s = scopes[i] ?? root;
    const last = out[out.length - 1];
    if (last && sameScopes(last.scopes, s)) last.text += line[i];
    else out.push({ text: line[i]!, scopes: s });
  }
  return out;
}

function sameScopes(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
