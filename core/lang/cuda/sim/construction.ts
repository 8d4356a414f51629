// Starting a struct object's life: its constructor (member-init list, then body) or, without one,
// its default member initialisers (`int index = 0;`), where a variable is declared and as every
// constructor's prologue. Constant initialisers are stored in place; others run in a compiled
// function of their own with the object as `this`, since they may read members and template arguments.
import type { SyntaxNode } from '../parser';
import type { DType } from '../../../sim/dtypes';
import { SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { type CompilerContext, type Fn, FnCx, type FnDecl, type LV } from './context';
import { fieldEx } from './lvalues';
import { type CompiledFn, selfOf, storer } from './runtime';
import { fail, locOf, named, unsupported } from './syntax';
import { type CType, isNum, type StructDef, VOID } from './types';

/** Does a type need code to start its life (constructors or default member initialisers, here or in its fields)? */
export function needsConstruction(c: CompilerContext, t: CType): boolean {
  if (t.k === 'arr') return needsConstruction(c, t.of);
  if (t.k !== 'struct') return false;
  const d = t.def;
  return !!d.ctors?.length || !!d.fieldInits?.size || d.fields.some((f) => needsConstruction(c, f.type));
}

/**
 * Starts the life of a struct object at `self` (a pointer): its constructor with the arguments of
 * `init`, else its default member initialisers. False when a brace list initialises it as a plain
 * aggregate instead (the caller's job).
 */
export function construct(c: CompilerContext, cx: FnCx, self: Fn, def: StructDef, init: SyntaxNode | undefined, n: SyntaxNode): boolean {
  const ctors = def.ctors as FnDecl[] | undefined;
  const items = init && (init.type === 'argument_list' || init.type === 'initializer_list') ? named(init) : undefined;
  if (init && !items) return false; // a copy of another object
  if (ctors?.length) {
    c.callUser(cx, ctors, items ?? [], n, undefined, self);
    return true;
  }
  if (items?.length) {
    if (items.length < def.fields.length && def.fields.slice(items.length).some((f) => def.fieldInits?.has(f.name) || needsConstruction(c, f.type)))
      unsupported(`a brace initialiser of ${def.name} that leaves members with default member initialisers to them`, init!);
    return false;
  }
  defaultInit(c, cx, self, def, n);
  return true;
}

/** Default member initialisers of an object without a constructor. */
function defaultInit(c: CompilerContext, cx: FnCx, self: Fn, def: StructDef, n: SyntaxNode): void {
  const stores: { off: number; dt: DType; value: number }[] = [];
  if (constantInits(c, def, 0, stores)) {
    if (!stores.length) return;
    const put = stores.map((s) => ({ off: s.off, value: s.value, store: storer(s.dt) }));
    c.emitExec(cx, n, (f) => {
      const p = self(f) as Pointer;
      for (const s of put) s.store(p.buf, p.offset + s.off, s.value);
    });
    return;
  }
  if (!def.initFn) {
    const at = def.node ?? n;
    const icx = new FnCx(`${def.name}::(default member initialisers)`, null, new Map(), def, locOf(at, def.name));
    def.initFn = icx.fn;
    c.emitFieldInits(icx, def, undefined);
    c.emitReturn(icx, undefined, at);
    icx.finish();
  }
  const fn = def.initFn as CompiledFn;
  c.emitCall(cx, n, { fn: () => fn, ret: VOID, params: [] }, [], self);
}

/** The default member initialisers of `def` (and its struct fields) as constant stores; false if one is not constant. */
function constantInits(c: CompilerContext, def: StructDef, base: number, out: { off: number; dt: DType; value: number }[]): boolean {
  for (const f of def.fields) {
    if (f.bits && def.fieldInits?.has(f.name)) return false;
    if (f.via) continue;
    const init = def.fieldInits?.get(f.name);
    if (init) {
      if (!isNum(f.type)) return false;
      const items = init.type === 'initializer_list' || init.type === 'argument_list' ? named(init) : [init];
      if (items.length > 1) return false;
      let value = 0;
      if (items.length) {
        try {
          value = c.constEval(memberContext(def), items[0], f.type);
        } catch (e) {
          if (!(e instanceof SimError)) throw e;
          return false;
        }
      }
      out.push({ off: base + f.offset, dt: f.type.dt, value });
    } else if (f.type.k === 'struct' && needsConstruction(c, f.type)) {
      if (f.type.def.ctors?.length || !constantInits(c, f.type.def, base + f.offset, out)) return false;
    } else if (needsConstruction(c, f.type)) return false;
  }
  return true;
}

/** Where a struct's member initialisers are evaluated: its own names and template arguments in scope. */
function memberContext(def: StructDef): FnCx {
  const cx = new FnCx(`<${def.name}>`, null, new Map(), def, def.node ? locOf(def.node) : { line: 0 });
  cx.scopes = [def.members ?? new Map()];
  return cx;
}

/**
 * A constructor's prologue (and the default member initialisers' function): every field in
 * declaration order from the member-init list, else its default member initialiser, else its own
 * construction if its type has one. `cx` is a member function of `def` (`this` is the object).
 */
export function emitFieldInits(c: CompilerContext, cx: FnCx, def: StructDef, memberInits: SyntaxNode | undefined): void {
  const given = new Map<string, SyntaxNode>();
  for (const fi of memberInits ? named(memberInits) : []) {
    if (fi.type !== 'field_initializer') continue;
    const name = named(fi).find((x) => x.type === 'field_identifier');
    const args = named(fi).find((x) => x.type === 'argument_list' || x.type === 'initializer_list');
    if (!name || !args) unsupported(`member initialiser '${fi.text}'`, fi);
    if (!def.fields.some((f) => f.name === name.text)) unsupported(`initialising '${name.text}' (not a data member of ${def.name}) in a constructor`, fi);
    given.set(name.text, args);
  }
  for (const f of def.fields) {
    // A member of an anonymous union/struct member starts its life only when named here.
    if (f.via && !given.has(f.name)) continue;
    const off = f.offset;
    const ptr: Fn = (fr) => {
      const p = selfOf(fr);
      return { buf: p.buf, offset: p.offset + off } satisfies Pointer;
    };
    const lv = fieldEx(c, (fr) => selfOf(fr).buf, (fr) => selfOf(fr).offset, f).lv as LV & { k: 'mem' };
    const init = given.get(f.name) ?? def.fieldInits?.get(f.name);
    if (init) initField(c, cx, lv, ptr, f.type, init);
    else if (f.type.k === 'struct' && needsConstruction(c, f.type)) c.construct(cx, ptr, f.type.def, undefined, memberInits ?? def.node!);
    else if (needsConstruction(c, f.type)) unsupported(`an array of ${f.type.k === 'arr' ? 'objects with constructors' : 'objects'} as a member of ${def.name}`, def.node!);
  }
}

/** One member from its initialiser: `(args)`, `{args}` or `= value`. */
function initField(c: CompilerContext, cx: FnCx, lv: LV & { k: 'mem' }, ptr: Fn, t: CType, init: SyntaxNode): void {
  const list = init.type === 'argument_list' || init.type === 'initializer_list';
  if (list && t.k === 'struct' && needsConstruction(c, t) && c.construct(cx, ptr, t.def, init, init)) return;
  if (list && (t.k === 'struct' || t.k === 'arr')) {
    c.initAggregate(cx, lv, t, init, init);
    return;
  }
  const items = list ? named(init) : [init];
  if (items.length > 1) fail(`too many initialisers for a member of type ${t.k}`, init);
  const st = c.storeFn(lv, t);
  if (!items.length) {
    const zero = t.k === 'ptr' ? null : 0;
    c.emitExec(cx, init, (f) => st(f, zero));
    return;
  }
  const v = c.convertTo(c.rv(c.expr(cx, items[0])), t, items[0]).ev;
  c.emitExec(cx, init, (f) => st(f, v(f)));
}
