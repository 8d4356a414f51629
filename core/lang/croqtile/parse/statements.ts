// Croqtile statements: `parallel`, `inthreads`, `foreach`, `with`, control flow, the synchronisation statements
// (`wait`, `trigger [.cluster] … [after …]`, `sync.*`), assignments and expression statements. Each statement
// that fails is recorded once and skipped to its level's next `;` or `}`.
import type { CoExpr, CoStmt, Span } from '../ast';
import { KW_TYPE, type Tok, type Token } from '../lexer';
import { DeclarationParser } from './declarations';
import { SyntaxErr, describe } from './parser-base';

const LEVELS = new Set(['device', 'cluster', 'block', 'group', 'group-4', 'thread', 'term']);
const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=']);

// Token kinds as local constants: read on every step, and a const enum imported under isolatedModules would be a
// property read on the lexer module (slow when the module is not bundled, e.g. under the test runner).
const T_IDENT: Tok = 0;
const T_PUNCT: Tok = 3;
const F_TYPE = KW_TYPE;

// Local rather than imported from ./parser-base: called for every node, and an imported function is a property read
// per call when the modules are not bundled (under the test runner).
function span(start: number, end: number): Span {
  return { start, end };
}

export class StatementParser extends DeclarationParser {
  // -- statements -----------------------------------------------------------------------------------------------

  /** Parses statements until `}` (when `stopAtBrace`) or the end; never throws. */
  protected parseStatements(out: CoStmt[], stopAtBrace: boolean): void {
    for (;;) {
      if (this.atEof()) return;
      if (stopAtBrace && this.isP('}')) return;
      const before = this.ts.consumed;
      try {
        this.parseStatement(out);
      } catch (e) {
        if (!(e instanceof SyntaxErr)) throw e;
        this.report(e);
        this.sync();
      }
      if (this.ts.consumed === before) {
        // No progress (e.g. a stray `}` with stopAtBrace false): report and step over it.
        if (this.isP('}') && stopAtBrace) return;
        this.report(new SyntaxErr(`unexpected token ${describe(this.tok)}`, span(this.tok.start, this.tok.end)));
        this.next();
      }
    }
  }

  /** `{ statements }`, a single statement, or `;`. */
  protected parseBody(context: string): CoStmt[] {
    if (this.isP('{')) {
      this.next();
      const out: CoStmt[] = [];
      this.enter();
      try {
        this.parseStatements(out, true);
      } finally {
        this.leave();
      }
      this.expectP('}', () => `to close the ${context} body`);
      return out;
    }
    if (this.isP(';')) {
      this.next();
      return [];
    }
    if (this.isP('}') || this.atEof()) this.fail(`expected a statement or '{' for the ${context} body`);
    const out: CoStmt[] = [];
    this.parseStatement(out);
    return out;
  }

  protected parseStatement(out: CoStmt[]): void {
    this.enter();
    try {
      this.parseStatementInner(out);
    } finally {
      this.leave();
    }
  }

  protected parseStatementInner(out: CoStmt[]): void {
    const t = this.tok;
    const start = t.start;
    if (t.kind === T_PUNCT) {
      if (t.value === ';') {
        this.next();
        return;
      }
      if (t.value === '{') {
        this.next();
        const body: CoStmt[] = [];
        this.parseStatements(body, true);
        this.expectP('}', 'to close the block');
        out.push({ kind: 'block', body, span: span(start, this.prevEnd()) });
        return;
      }
      if (t.value === '[' && this.isP('[', this.la(1))) {
        const attrs = this.parseAttributes();
        if (this.isI('parallel')) {
          out.push(this.parseParallel(attrs, start));
          return;
        }
        // `[[schedule(k_tiles(..))]] mma...;` and others: the attribute is not modelled.
        this.parseStatementInner(out);
        return;
      }
    }
    if (t.kind === T_IDENT) {
      const la1 = this.la(1);
      switch (t.value) {
        case 'parallel':
          out.push(this.parseParallel([], start));
          return;
        case 'inthreads':
          out.push(this.parseInthreads());
          return;
        case 'foreach':
          out.push(this.parseForeach());
          return;
        case 'apply':
          out.push(this.parseApply());
          return;
        case 'with':
          out.push(this.parseWith());
          return;
        case 'while': {
          this.next();
          this.expectP('(', "after 'while'");
          const cond = this.parseExpr();
          this.expectP(')', 'after the while condition');
          const body = this.parseBody('while');
          out.push({ kind: 'while', cond, body, span: span(start, this.prevEnd()) });
          return;
        }
        case 'if': {
          this.next();
          this.expectP('(', "after 'if'");
          const cond = this.parseExpr();
          this.expectP(')', 'after the if condition');
          const then = this.parseBody('if');
          let els: CoStmt[] = [];
          if (this.isI('else')) {
            this.next();
            els = this.parseBody('else');
          }
          out.push({ kind: 'if', cond, then, else: els, span: span(start, this.prevEnd()) });
          return;
        }
        case 'else':
          this.fail("'else' without a matching 'if'");
          break;
        case 'wait': {
          this.next();
          if (this.isP('<')) this.parseAngleTexts(); // era A/B `wait<0> e` (removed at HEAD)
          const targets = this.parseExprList();
          out.push({ kind: 'wait', targets, span: span(start, this.prevEnd()) });
          this.expectSemi('after wait');
          return;
        }
        case 'trigger': {
          this.next();
          let cluster = false;
          if (this.isP('.')) {
            this.next();
            const lv = this.expectIdent("a scope after 'trigger.'");
            if (lv.value === 'cluster') cluster = true;
            else this.fail(`only 'cluster' scope is supported for trigger, found '${lv.value}'`, lv);
          }
          const targets = this.parseExprList();
          let after: CoExpr[] = [];
          if (this.isI('after')) {
            this.next();
            after = this.parseExprList();
          }
          out.push({ kind: 'trigger', targets, cluster, after, span: span(start, this.prevEnd()) });
          this.expectSemi('after trigger');
          return;
        }
        case 'sync':
          if (this.isP('.', la1)) {
            this.next();
            this.next();
            const what = `sync.${this.expectIdent("'shared', 'barrier' or 'fence' after 'sync.'").value}`;
            let level: string | undefined;
            if (this.eatP(':')) {
              level = this.expectIdent('a parallel level').value;
              if (this.isP('<')) this.parseAngleTexts();
            }
            out.push({ kind: 'sync', what, level, span: span(start, this.prevEnd()) });
            this.expectSemi('after sync');
            return;
          }
          break;
        case 'return': {
          this.next();
          let value: CoExpr | undefined;
          if (!this.isP(';') && !this.isP('}') && !this.atEof()) value = this.parseExpr();
          out.push({ kind: 'return', value, span: span(start, this.prevEnd()) });
          this.expectSemi('after return');
          return;
        }
        case 'break':
        case 'continue':
        case 'yield':
          this.next();
          out.push({ kind: t.value, span: span(start, t.end) });
          this.expectSemi(() => `after ${t.value}`);
          return;
        case '__cpp__': {
          this.next();
          if (this.isP('(')) this.skipBalanced();
          else this.fail("expected '(' after __cpp__");
          out.push({ kind: 'opaque', text: this.text(start, this.prevEnd()), span: span(start, this.prevEnd()) });
          this.expectSemi('after __cpp__(...)');
          return;
        }
        case 'asm':
        case '__asm__':
        case '__asm': {
          this.next();
          while (this.isI('volatile') || this.isI('goto') || this.isI('inline') || this.isI('__volatile__')) {
            if (this.isI('goto')) this.fail('__asm__ goto is not supported');
            this.next();
          }
          if (this.isP('(')) this.skipBalanced();
          else this.fail(`expected '(' after ${t.value}`);
          out.push({ kind: 'opaque', text: this.text(start, this.prevEnd()), span: span(start, this.prevEnd()) });
          this.expectSemi('after asm(...)');
          return;
        }
        case 'shared':
        case 'local':
        case 'global':
        case 'event':
        case 'mutable':
          this.parseDeclaration(out);
          return;
        case 'frag':
          this.parseFragDecl(out);
          return;
        case 'mdspan':
        case 'ituple':
          this.parseShapeDecl(out);
          return;
        case 'swap':
        case 'rotate':
          if (!this.isP('(', la1)) {
            this.next();
            const args = this.parseExprList();
            const expr: CoExpr = { kind: 'call', callee: t.value, args, span: span(start, this.prevEnd()) };
            out.push({ kind: 'expr', expr, span: expr.span });
            this.expectSemi(() => `after ${t.value}`);
            return;
          }
          break;
        default:
          if ((t.kw & F_TYPE) !== 0 && t.value !== 'void') {
            this.parseDeclaration(out);
            return;
          }
          // `name : [a, b];` declares an mdspan.
          if (this.isP(':', la1)) {
            this.parseShapeDecl(out);
            return;
          }
      }
    }
    this.parseSimpleStatement(out);
  }

  /** Expression statement or a comma-separated list of assignments. */
  protected parseSimpleStatement(out: CoStmt[]): void {
    const start = this.tok.start;
    if (this.isP('}')) this.unexpected();
    const first = this.parseExpr();
    if (this.tok.kind === T_PUNCT && ASSIGN_OPS.has(this.tok.value)) {
      let target = first;
      let tStart = start;
      for (;;) {
        const op = this.next().value;
        const value = this.parseAssignValue();
        out.push({ kind: 'assign', target, op, value, span: span(tStart, this.prevEnd()) });
        if (!this.isP(',')) break;
        this.next();
        tStart = this.tok.start;
        target = this.parseExpr();
        if (!(this.tok.kind === T_PUNCT && ASSIGN_OPS.has(this.tok.value))) this.fail(`expected an assignment after ','`);
      }
      this.expectSemi('after assignment');
      return;
    }
    out.push({ kind: 'expr', expr: first, span: span(start, this.prevEnd()) });
    this.expectSemi(() => `after ${this.exprWord(first)}`);
  }

  protected exprWord(e: CoExpr): string {
    switch (e.kind) {
      case 'dma':
        return `${e.engine}.${e.op}`;
      case 'mma':
        return `mma.${e.op}`;
      case 'call':
        return `${e.callee}(...)`;
      case 'method':
        return `.${e.name}(...)`;
      default:
        return 'expression';
    }
  }

  /** `[[launch_bounds(256, 1)]] [[maxnreg(128)]]` -> ["launch_bounds(256, 1)", "maxnreg(128)"]. */
  protected parseAttributes(): string[] {
    const attrs: string[] = [];
    while (this.isP('[') && this.isP('[', this.la(1))) {
      this.next();
      this.next();
      const s = this.tok.start;
      let depth = 0;
      while (!this.atEof()) {
        if (depth === 0 && this.isP(']') && this.isP(']', this.la(1))) break;
        const v = this.tok.kind === T_PUNCT ? this.tok.value : '';
        if (v === '(' || v === '[' || v === '{') depth++;
        else if (v === ')' || v === ']' || v === '}') depth--;
        else if (v === ';' && depth <= 0) this.fail("expected ']]' to close the attribute");
        this.next();
      }
      const e = this.prevEnd();
      this.expectP(']', "to close the attribute (']]')");
      this.expectP(']', "to close the attribute (']]')");
      attrs.push(this.normText(s, e));
    }
    return attrs;
  }

  protected parseParallel(attrs: string[], start: number): CoStmt {
    this.next(); // parallel
    let async = false;
    const outerAttrs = [...attrs];
    if (this.isP('.')) {
      this.next();
      const m = this.expectIdent("'async' after 'parallel.'");
      if (m.value !== 'async') this.fail(`unknown parallel modifier '${m.value}'`, m);
      async = true;
    }
    if (this.isP('<')) {
      this.next();
      const s = this.expectIdent('a stream name');
      this.expectP('>', 'after the stream name');
      outerAttrs.push(`stream(${s.value})`);
    }
    const clauses: { vars: string[]; extents: CoExpr[]; level?: string; attrs: string[]; start: number }[] = [];
    do clauses.push(this.parseParaby());
    while (this.eatP(','));
    let body = this.parseBody('parallel');
    const end = this.prevEnd();
    let node: CoStmt | undefined;
    for (let i = clauses.length - 1; i >= 0; i--) {
      const c = clauses[i]!;
      node = {
        kind: 'parallel',
        vars: c.vars,
        extents: c.extents,
        level: c.level,
        async: i === 0 ? async : false,
        attributes: i === 0 ? [...outerAttrs, ...c.attrs] : c.attrs,
        body,
        span: span(i === 0 ? start : c.start, end),
      };
      body = [node];
    }
    return node!;
  }

  protected parseParaby(): { vars: string[]; extents: CoExpr[]; level?: string; attrs: string[]; start: number } {
    const start = this.tok.start;
    let vars: string[] = [];
    let extents: CoExpr[];
    if (this.isI('by')) {
      this.next();
      extents = this.unwrapList(this.parseExpr());
    } else if (this.isP('{')) {
      vars = this.parseIdList();
      this.expectKw('by', 'after the parallel variables');
      extents = this.unwrapList(this.parseExpr());
    } else {
      const id = this.expectIdent("a parallel variable or 'by'");
      if (this.eatP('=')) {
        vars = this.parseIdList();
      } else vars = [id.value];
      this.expectKw('by', 'after the parallel variable');
      extents = this.unwrapList(this.parseExpr());
    }
    let level: string | undefined;
    const attrs: string[] = [];
    if (this.isP(':')) {
      this.next();
      const lv = this.tok;
      if (lv.kind !== T_IDENT || !LEVELS.has(lv.value)) this.fail(`expected a parallel level (block, group-4, thread, ...) but found ${describe(lv)}`);
      this.next();
      level = lv.value;
      if (this.isP('(')) {
        this.next();
        const d = this.expectIdent('a device name');
        this.expectP(')', 'after the device name');
        attrs.push(`${level}(${d.value})`);
      }
      if (this.isP('<')) {
        for (const a of this.parseAngleTexts()) attrs.push(a);
      }
    }
    return { vars, extents, level, attrs, start };
  }

  protected expectKw(kw: string, context: string): void {
    if (this.isI(kw)) {
      this.next();
      return;
    }
    this.fail(`expected '${kw}' ${context}`);
  }

  /** `{a, b}` -> ["a", "b"]. */
  protected parseIdList(): string[] {
    this.expectP('{', 'to open the variable list');
    const ids: string[] = [];
    if (!this.isP('}')) {
      do ids.push(this.expectIdent('a variable name').value);
      while (this.eatP(','));
    }
    this.expectP('}', 'to close the variable list');
    return ids;
  }

  protected unwrapList(e: CoExpr): CoExpr[] {
    return e.kind === 'list' ? e.items : [e];
  }

  protected parseInthreads(): CoStmt {
    const start = this.next().start;
    let async = false;
    if (this.isP('.')) {
      this.next();
      const m = this.expectIdent("'async' after 'inthreads.'");
      if (m.value !== 'async') this.fail(`unknown inthreads modifier '${m.value}'`, m);
      async = true;
    }
    this.expectP('(', "after 'inthreads'");
    const cond = this.parseExpr();
    this.expectP(')', 'after the inthreads condition');
    const body = this.parseBody('inthreads');
    return { kind: 'inthreads', async, cond, body, span: span(start, this.prevEnd()) };
  }

  protected boundOf(t: Token): CoExpr {
    // `foreach x` iterates the bounded variable x: its extent is `#x`.
    const id: CoExpr = { kind: 'id', name: t.value, span: span(t.start, t.end) };
    return { kind: 'unary', op: '#', arg: id, span: span(t.start, t.end) };
  }

  protected parseForeach(): CoStmt {
    const start = this.next().start;
    const vars: string[] = [];
    const extents: CoExpr[] = [];
    const ranges: ({ start?: CoExpr; end?: CoExpr; step?: CoExpr } | undefined)[] = [];
    do {
      if (this.isP('{')) {
        const ids = this.parseIdList();
        this.expectKw('in', 'after the loop variables');
        this.pushWithin(ids, this.parseExpr(), vars, extents, ranges);
        continue;
      }
      const id = this.expectIdent('a loop variable');
      // `foreach a, b in [2, 3]`: an unbraced variable list bound by one `in`.
      const names = [id.value];
      let j = 0;
      const at = (n: number) => (n === 0 ? this.tok : this.la(n));
      while (this.isP(',', at(j)) && at(j + 1).kind === T_IDENT) {
        names.push(at(j + 1).value);
        j += 2;
      }
      if (names.length > 1 && this.isI('in', at(j))) {
        for (let i = 0; i <= j; i++) this.next();
        this.pushWithin(names, this.parseExpr(), vars, extents, ranges);
        continue;
      }
      if (this.isI('in')) {
        this.next();
        this.pushWithin([id.value], this.parseExpr(), vars, extents, ranges);
        continue;
      }
      if (this.isP('=') && this.isP('{', this.la(1))) {
        this.next();
        const ids = this.parseIdList();
        this.expectKw('in', 'after the loop variables');
        this.pushWithin(ids, this.parseExpr(), vars, extents, ranges);
        continue;
      }
      let bound = id;
      if (this.isP('=')) {
        this.next();
        bound = this.expectIdent('a bounded variable after "="');
      }
      vars.push(id.value);
      extents.push(this.boundOf(bound));
      ranges.push(this.isP('(') ? this.parseRange() : undefined);
    } while (this.eatP(','));
    const attributes: string[] = [];
    if (this.eatP(':')) {
      do attributes.push(this.parseSuffix());
      while (this.eatP(','));
    }
    const body = this.parseBody('foreach');
    return { kind: 'foreach', vars, extents, ranges, attributes, body, span: span(start, this.prevEnd()) };
  }

  protected pushWithin(ids: string[], ext: CoExpr, vars: string[], extents: CoExpr[], ranges: unknown[]): void {
    const items = ext.kind === 'list' && ext.items.length === ids.length ? ext.items : [ext];
    for (const id of ids) {
      vars.push(id);
      ranges.push(undefined);
    }
    for (const it of items) extents.push(it);
  }

  /** `(1:)`, `(1:-1:2)`, `(:N)`. */
  protected parseRange(): { start?: CoExpr; end?: CoExpr; step?: CoExpr } {
    this.expectP('(', 'to open the range');
    const r: { start?: CoExpr; end?: CoExpr; step?: CoExpr } = {};
    if (!this.isP(':')) r.start = this.parseExpr();
    this.expectP(':', 'in the loop range');
    if (!this.isP(':') && !this.isP(')')) r.end = this.parseExpr();
    if (this.eatP(':')) {
      if (!this.isP(')')) r.step = this.parseExpr();
    }
    this.expectP(')', 'to close the loop range');
    return r;
  }

  /** `unroll`, `unroll(4)`, `vectorize(x, 8)`. */
  protected parseSuffix(): string {
    const t = this.expectIdent("a loop attribute ('unroll', 'vectorize')");
    if (this.isP('(')) this.skipBalanced();
    return this.normText(t.start, this.prevEnd());
  }

  protected parseWith(): CoStmt {
    const start = this.next().start;
    const vars: string[] = [];
    const extents: CoExpr[] = [];
    const ranges: unknown[] = [];
    do {
      let ids: string[];
      if (this.isP('{')) ids = this.parseIdList();
      else {
        const id = this.expectIdent('a variable after "with"');
        if (this.isP('=')) {
          this.next();
          ids = this.parseIdList();
        } else ids = [id.value];
      }
      this.expectKw('in', 'after the with variables');
      this.pushWithin(ids, this.parseExpr(), vars, extents, ranges);
    } while (this.eatP(','));
    if (this.isI('where')) {
      this.next();
      do {
        this.expectIdent('a variable in the where clause');
        this.expectP('<->', 'in the where clause');
        this.expectIdent("a variable after '<->'");
      } while (this.eatP(','));
    }
    const body = this.parseBody('with');
    return { kind: 'with', vars, extents, body, span: span(start, this.prevEnd()) };
  }

  /** `apply {i, j} in acc.span { ... }`: an element-wise loop, modelled as a foreach with attribute `apply`. */
  protected parseApply(): CoStmt {
    const start = this.next().start;
    const vars = this.parseIdList();
    this.expectKw('in', 'after the apply variables');
    const ext = this.parseExpr();
    const body = this.parseBody('apply');
    return {
      kind: 'foreach',
      vars,
      extents: [ext],
      ranges: vars.map(() => undefined),
      attributes: ['apply'],
      body,
      span: span(start, this.prevEnd()),
    };
  }
}
