// Croqtile declarations: tensors and scalars with storage, shape and initialiser, events (`event<N>`, `= ready`),
// MMA fragments and shape tuples.
import type { CoExpr, CoStmt, EventDeclarator, Span } from '../ast';
import type { Tok } from '../lexer';
import { ExpressionParser } from './expressions';
import { STORAGE, TYPE_KEYWORDS, describe } from './parser-base';

// Token kinds as local constants: read on every step, and a const enum imported under isolatedModules would be a
// property read on the lexer module (slow when the module is not bundled, e.g. under the test runner).
const T_IDENT: Tok = 0;

// Local rather than imported from ./parser-base: called for every node, and an imported function is a property read
// per call when the modules are not bundled (under the test runner).
function span(start: number, end: number): Span {
  return { start, end };
}

export class DeclarationParser extends ExpressionParser {
  /** Right-hand side of `=`: an expression, or an ituple derivation `x{a, b}`. */
  protected parseAssignValue(): CoExpr {
    const v = this.parseExpr();
    if (v.kind === 'id' && this.isP('{')) {
      const items = this.parseBracketList('{', '}');
      return { kind: 'index', object: v, indices: items, span: span(v.span.start, this.prevEnd()) };
    }
    return v;
  }

  /** `[storage] [mutable] (event ... | type [shape] declarators)`. */
  protected parseDeclaration(out: CoStmt[]): void {
    const start = this.tok.start;
    let storage: string | undefined;
    if (this.tok.kind === T_IDENT && STORAGE.has(this.tok.value)) storage = this.next().value;
    let mutable = false;
    if (this.isI('mutable')) {
      this.next();
      mutable = true;
    }
    if (!storage && this.tok.kind === T_IDENT && STORAGE.has(this.tok.value)) storage = this.next().value;
    if (this.isI('event')) {
      out.push(this.parseEventDecl(start, storage));
      return;
    }
    let type = 'auto';
    const tt = this.tok;
    if (tt.kind === T_IDENT && TYPE_KEYWORDS.has(tt.value)) {
      this.next();
      type = tt.value;
    } else if (this.isI('frag')) {
      this.parseFragDecl(out, start);
      return;
    } else if (!mutable) {
      this.fail(`expected a type or 'event' after '${storage ?? 'declaration'}' but found ${describe(tt)}`);
    }
    let shape: CoExpr[] = [];
    if (this.isP('[')) shape = this.parseShape();
    this.parseDeclarators(out, start, { storage, type, shape, mutable });
  }

  protected parseDeclarators(
    out: CoStmt[],
    start: number,
    base: { storage?: string; type: string; shape: CoExpr[]; mutable: boolean },
  ): void {
    const items: { name: string; dims: CoExpr[]; span: Span; init?: CoExpr }[] = [];
    do {
      const nt = this.expectIdent('a name in the declaration');
      const dims: CoExpr[] = [];
      while (this.isP('[')) {
        this.next();
        dims.push(this.parseExpr());
        this.expectP(']', 'after the array extent');
      }
      let init: CoExpr | undefined;
      if (this.eatP('=')) init = this.parseAssignValue();
      else if (this.isP('{')) {
        this.next();
        init = this.isP('}') ? undefined : this.parseExpr();
        this.expectP('}', 'to close the initialiser');
      }
      items.push({ name: nt.value, dims, span: span(nt.start, this.prevEnd()), init });
    } while (this.eatP(','));
    this.expectSemi('after declaration');
    const sp = span(start, this.prevEnd());
    const inits = items.filter((i) => i.init !== undefined).length;
    if (inits <= 1 && (inits === 0 || items[items.length - 1]!.init !== undefined)) {
      out.push({
        kind: 'decl',
        storage: base.storage,
        type: base.type,
        shape: base.shape,
        names: items.map((i) => ({ name: i.name, dims: i.dims, span: i.span })),
        init: items[items.length - 1]!.init,
        mutable: base.mutable,
        span: sp,
      });
      return;
    }
    // `int a = 1, b = 2;`: one declaration per declarator so each keeps its initialiser.
    for (const i of items) {
      out.push({
        kind: 'decl',
        storage: base.storage,
        type: base.type,
        shape: base.shape,
        names: [{ name: i.name, dims: i.dims, span: i.span }],
        init: i.init,
        mutable: base.mutable,
        span: sp,
      });
    }
  }

  /** `[M, K]`, `[[M, K]]`, `[lhs.span]`, `[auto]`. */
  protected parseShape(): CoExpr[] {
    const items = this.parseBracketList('[', ']');
    if (items.length === 1 && items[0]!.kind === 'list') return items[0]!.items;
    return items;
  }

  protected parseEventDecl(start: number, storage: string | undefined): CoStmt {
    this.next(); // event
    let count: CoExpr | undefined;
    if (this.isP('<')) {
      this.next();
      count = this.parseExprNoGt();
      this.closeAngle('after the event count');
    }
    const items: EventDeclarator[] = [];
    do {
      const nt = this.expectIdent('an event name');
      const dims: CoExpr[] = [];
      while (this.isP('[')) {
        this.next();
        dims.push(this.parseExpr());
        this.expectP(']', 'after the event array extent');
      }
      let ready = false;
      if (this.eatP('=')) {
        const r = this.expectIdent("'ready' after '='");
        if (r.value !== 'ready') this.fail("event initializer must be 'ready'", r);
        ready = true;
      }
      items.push({ name: nt.value, dims, ready, span: span(nt.start, this.prevEnd()), nameSpan: span(nt.start, nt.end) });
    } while (this.eatP(','));
    const st = storage === 'shared' || storage === 'global' ? storage : 'local';
    const node: CoStmt = { kind: 'event-decl', storage: st, count, items, span: span(start, this.tok.end) };
    this.expectSemi('after event declaration');
    node.span = span(start, this.prevEnd());
    return node;
  }

  /** `frag f32[64] x;`, `frag x {0.0f};`, `frag.f16 x[2] {0};` (a storage qualifier before `frag` is dropped). */
  protected parseFragDecl(out: CoStmt[], start = this.tok.start): void {
    this.next(); // frag
    let type = 'auto';
    if (this.isP('.')) {
      this.next();
      type = this.expectIdent('a fragment element type').value;
    } else if (this.tok.kind === T_IDENT && TYPE_KEYWORDS.has(this.tok.value)) {
      type = this.next().value;
    }
    let shape: CoExpr[] = [];
    if (this.isP('[')) shape = this.parseShape();
    this.parseDeclarators(out, start, { storage: 'frag', type, shape, mutable: false });
  }

  /** `mdspan<2> sp : [M, N];`, `ituple t = {1, 2};`, `sp : [10, 20];`. */
  protected parseShapeDecl(out: CoStmt[]): void {
    const start = this.tok.start;
    let type = 'mdspan';
    if (this.isI('mdspan') || this.isI('ituple')) {
      type = this.next().value;
      if (this.isP('<')) this.parseAngleTexts();
    }
    const nt = this.expectIdent(() => `a name after '${type}'`);
    let init: CoExpr | undefined;
    const dims: CoExpr[] = [];
    if (this.eatP(':') || this.eatP('=')) {
      if (!this.isP(';')) init = this.parseAssignValue();
    } else if (this.isP('[')) {
      this.next();
      dims.push(this.parseExpr());
      this.expectP(']', 'after the extent');
    }
    this.expectSemi('after declaration');
    out.push({
      kind: 'decl',
      type,
      shape: [],
      names: [{ name: nt.value, dims, span: span(nt.start, nt.end) }],
      init,
      mutable: false,
      span: span(start, this.prevEnd()),
    });
  }
}
