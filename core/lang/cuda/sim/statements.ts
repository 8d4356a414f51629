// Statements for the CUDA compiler: instruction emission (plain, jumps, branches, blocking
// operations and their temps, returns), blocks and scopes, control flow (if, while, do, for, switch,
// break/continue, return), and which expressions must be hoisted into instructions of their own
// because they call a user function or a builtin that can block.
import type { SyntaxNode } from '../parser';
import { isKnownPure } from './builtins';
import type { CompilerContext, Ex, Fn, FnCx, LV } from './context';
import type { Pointer } from '../../../sim/memory';
import { ROW_DECLINED, vecOf, type VFn } from './lanes';
import { BLOCKED, FRAME, type Frame, type Instr, loader, loadPointer, NO_ROW, type RowFx, SPLIT } from './runtime';
import { SimError } from '../../../sim/machine';
import { constantOf } from './type-traits';
import { allChildren, fail, lastName, locOf, named, operatorOf, unsupported, requiredField } from './syntax';
import { BOOL, type CType, decay, isNum, sizeOfType, typeName } from './types';

// ------------------------------------------------------------------ instruction emission

/** Appends an instruction; `stmt` marks it as a statement (where stepping stops). */
export function emit(c: CompilerContext, cx: FnCx, n: SyntaxNode, run: (f: Frame) => number, stmt = true): Instr {
  // Every instruction has the same shape (runRow included, set later where there is one), so the
  // executor's loops see one hidden class and stay optimised from launch to launch.
  const ins: Instr = { run, runRow: undefined, rowFx: false, loc: locOf(n, cx.name), stmt, target: -1, site: -1 };
  cx.code.push(ins);
  return ins;
}

/** An instruction that evaluates `ev` for its effect and falls through. */
export function emitExec(c: CompilerContext, cx: FnCx, n: SyntaxNode, ev: Fn, vec?: VFn, fx?: RowFx): void {
  const next = cx.code.length + 1;
  const ins = c.emit(cx, n, (f) => {
    ev(f);
    return next;
  });
  if (vec) ins.runRow = (fs, k) => (rowValues(vec, fs, k) ? next : NO_ROW);
  else if (fx) {
    const out: unknown[] = [];
    ins.rowFx = true;
    ins.runRow = (fs, k) => (fx(fs, k, out) ? next : NO_ROW);
  }
}

/** An unconditional jump; its target is patched once known. */
export function emitJump(c: CompilerContext, cx: FnCx, n: SyntaxNode): Instr {
  const ins: Instr = { run: () => ins.target, runRow: () => ins.target, rowFx: false, loc: locOf(n, cx.name), stmt: false, target: -1, site: -1 };
  cx.code.push(ins);
  return ins;
}

/** A branch taken when `cond` is false (to a target patched later); falls through otherwise. */
export function emitBranchFalse(c: CompilerContext, cx: FnCx, n: SyntaxNode, cond: Fn, vec?: VFn): Instr {
  const next = cx.code.length + 1;
  const ins: Instr = { run: (f) => (cond(f) ? next : ins.target), runRow: undefined, rowFx: false, loc: locOf(n, cx.name), stmt: true, target: -1, site: -1 };
  if (vec) ins.runRow = (fs, k, pcs) => branchRow(vec, fs, k, pcs, next, ins.target);
  cx.code.push(ins);
  return ins;
}

/** A branch to `target` when `cond` is true. */
export function emitBranchTrue(c: CompilerContext, cx: FnCx, n: SyntaxNode, cond: Fn, target: number, vec?: VFn): void {
  const next = cx.code.length + 1;
  const ins = c.emit(cx, n, (f) => (cond(f) ? target : next));
  if (vec) ins.runRow = (fs, k, pcs) => branchRow(vec, fs, k, pcs, target, next);
}

/** The lanes' values of `vec`, or undefined where the row declines (lanes.ts ROW_DECLINED: they run one by one). */
function rowValues(vec: VFn, fs: readonly Frame[], k: number): Float64Array | undefined {
  try {
    return vec(fs, k);
  } catch (e) {
    if (e === ROW_DECLINED) return undefined;
    throw e;
  }
}

/** A row's branch: `yes` for lanes whose condition holds, `no` for the others (SPLIT when they differ). */
function branchRow(vec: VFn, fs: readonly Frame[], k: number, pcs: Int32Array, yes: number, no: number): number {
  const cond = rowValues(vec, fs, k);
  if (!cond) return NO_ROW;
  let all = -1;
  for (let j = 0; j < k; j++) {
    const pc = cond[j] ? yes : no;
    pcs[j] = pc;
    if (j === 0) all = pc;
    else if (pc !== all) all = SPLIT;
  }
  return all;
}

/**
 * A blocking operation as its own instruction: `op(f)` returns undefined while the thread must
 * wait (it has been blocked by a machine service) and the value otherwise; the value lands in a
 * temp slot the expression reads.
 */
export function emitBlocking(c: CompilerContext, cx: FnCx, n: SyntaxNode, t: CType, op: (f: Frame) => unknown, fx?: RowFx): Ex {
  const dst = cx.slot();
  const next = cx.code.length + 1;
  const ins = c.emit(cx, n, (f) => {
    const v = op(f);
    if (v === undefined) return BLOCKED;
    f.v[dst] = v;
    return next;
  });
  if (fx) {
    // The row: lanes whose wait is satisfied go on, the others are blocked (SPLIT with BLOCKED).
    const out: unknown[] = [];
    ins.rowFx = true;
    ins.runRow = (fs, k, pcs) => {
      if (!fx(fs, k, out)) return NO_ROW;
      let blocked = false;
      for (let j = 0; j < k; j++) {
        const v = out[j];
        if (v === undefined) {
          pcs[j] = BLOCKED;
          blocked = true;
        } else {
          fs[j].v[dst] = v;
          pcs[j] = next;
        }
      }
      return blocked ? SPLIT : next;
    };
  }
  return { t, ev: (f) => f.v[dst], pure: true };
}

/** Evaluates `e` now into a temp (so a following blocking instruction can re-run without side effects). */
export function toTemp(c: CompilerContext, cx: FnCx, n: SyntaxNode, e: Ex): Ex {
  if (e.cv !== undefined || e.pure) return e;
  const dst = cx.slot();
  const ev = e.ev;
  c.emitExec(cx, n, (f) => (f.v[dst] = ev(f)));
  return { t: e.t, ev: (f) => f.v[dst], pure: true, str: e.str };
}

/** Returns from the function: the value lands in the caller's temp and the caller's frame resumes. */
export function emitReturn(c: CompilerContext, cx: FnCx, value: Fn | undefined, n: SyntaxNode): void {
  c.emit(cx, n, (f) => {
    const v = value ? value(f) : undefined;
    const caller = f.caller;
    f.ts.frame = caller as Frame;
    if (caller && f.retSlot >= 0) caller.v[f.retSlot] = v;
    f.release();
    return FRAME;
  });
}

// ------------------------------------------------------------------ statements

/** A compound statement with its own scope. */
export function block(c: CompilerContext, cx: FnCx, n: SyntaxNode): void {
  cx.scopes.push(new Map());
  const start = cx.code.length;
  for (const s of named(n)) c.stmt(cx, s);
  closeScope(cx, start);
}

/** Pops a scope and ends the debugger-visible range of the locals it declared. */
function closeScope(cx: FnCx, start: number): void {
  cx.scopes.pop();
  const end = cx.code.length;
  for (const l of cx.locals) if (l.to === Infinity && l.from >= start && !cx.scopes.some((s) => [...s.values()].some((v) => v.k === 'var' && v.idx === l.index && v.where === l.where))) l.to = end;
}

export function stmt(c: CompilerContext, cx: FnCx, n: SyntaxNode): void {
  switch (n.type) {
    case 'compound_statement':
      c.block(cx, n);
      return;
    case 'declaration':
      c.declaration(cx, n);
      return;
    case 'expression_statement': {
      const e = named(n)[0];
      if (!e) return;
      const x = c.expr(cx, e);
      if (!x.pure && x.cv === undefined) c.emitExec(cx, n, x.ev, x.vec, x.row);
      return;
    }
    case 'if_statement': {
      const cond = condition(c, cx, requiredField(n, 'condition'));
      // `if constexpr`: only the branch taken is compiled (the other may not compile for these arguments).
      if (cond.cv === undefined && allChildren(n).some((k) => k.type === 'constexpr')) fail(`the condition of 'if constexpr' is not a compile-time constant`, requiredField(n, 'condition'));
      const cons = requiredField(n, 'consequence');
      const alt = n.childForFieldName('alternative');
      if (cond.cv !== undefined) {
        // Constant condition: compile only the live branch (template-dependent code).
        if (cond.cv) scoped(c, cx, cons);
        else if (alt) scoped(c, cx, named(alt)[0] ?? alt);
        return;
      }
      const br = c.emitBranchFalse(cx, n, cond.ev, cond.vec);
      scoped(c, cx, cons);
      if (alt) {
        const j = c.emitJump(cx, alt);
        br.target = cx.code.length;
        scoped(c, cx, named(alt)[0] ?? alt);
        j.target = cx.code.length;
      } else br.target = cx.code.length;
      return;
    }
    case 'while_statement': {
      const top = cx.code.length;
      const condNode = requiredField(n, 'condition');
      const saved = cx.retryProbe;
      cx.retryProbe = retriedProbe(condNode);
      const cond = condition(c, cx, condNode);
      cx.retryProbe = saved;
      const br = c.emitBranchFalse(cx, n, cond.ev, cond.vec);
      const loop = { brk: [] as Instr[], cont: [] as Instr[], sw: false };
      cx.loops.push(loop);
      scoped(c, cx, requiredField(n, 'body'));
      cx.loops.pop();
      const j = c.emitJump(cx, n);
      j.target = top;
      br.target = cx.code.length;
      for (const b of loop.brk) b.target = cx.code.length;
      for (const c of loop.cont) c.target = top;
      return;
    }
    case 'do_statement': {
      const top = cx.code.length;
      const loop = { brk: [] as Instr[], cont: [] as Instr[], sw: false };
      cx.loops.push(loop);
      scoped(c, cx, requiredField(n, 'body'));
      cx.loops.pop();
      const contAt = cx.code.length;
      const condNode = requiredField(n, 'condition');
      const saved = cx.retryProbe;
      cx.retryProbe = retriedProbe(condNode);
      const cond = c.expr(cx, condNode);
      cx.retryProbe = saved;
      c.emitBranchTrue(cx, condNode, c.truth(cond, condNode), top, vecOf(cond));
      for (const b of loop.brk) b.target = cx.code.length;
      for (const c of loop.cont) c.target = contAt;
      return;
    }
    case 'for_statement': {
      cx.scopes.push(new Map());
      const start = cx.code.length;
      const init = n.childForFieldName('initializer');
      if (init) {
        if (init.type === 'declaration') c.declaration(cx, init);
        else {
          const e = c.expr(cx, init);
          if (!e.pure && e.cv === undefined) c.emitExec(cx, init, e.ev, e.vec);
        }
      }
      const top = cx.code.length;
      const condNode = n.childForFieldName('condition');
      let br: Instr | undefined;
      if (condNode) {
        const cond = c.expr(cx, condNode);
        if (cond.cv === undefined || !cond.cv) br = c.emitBranchFalse(cx, condNode, c.truth(cond, condNode), vecOf(cond));
      }
      const loop = { brk: [] as Instr[], cont: [] as Instr[], sw: false };
      cx.loops.push(loop);
      scoped(c, cx, requiredField(n, 'body'));
      cx.loops.pop();
      const contAt = cx.code.length;
      const upd = n.childForFieldName('update');
      if (upd) {
        const e = c.expr(cx, upd);
        if (!e.pure && e.cv === undefined) c.emitExec(cx, upd, e.ev, e.vec);
      }
      const j = c.emitJump(cx, n);
      j.target = top;
      if (br) br.target = cx.code.length;
      for (const b of loop.brk) b.target = cx.code.length;
      for (const c of loop.cont) c.target = contAt;
      closeScope(cx, start);
      return;
    }
    case 'for_range_loop':
      rangeFor(c, cx, n);
      return;
    case 'break_statement': {
      const l = cx.loops[cx.loops.length - 1];
      if (!l) fail('break outside a loop or switch', n);
      l.brk.push(c.emitJump(cx, n));
      return;
    }
    case 'continue_statement': {
      let l: (typeof cx.loops)[number] | undefined;
      for (let i = cx.loops.length - 1; i >= 0; i--)
        if (!cx.loops[i].sw) {
          l = cx.loops[i];
          break;
        }
      if (!l) fail('continue outside a loop', n);
      // A continue is a statement of its own (the debugger stops on it).
      const ins = c.emitJump(cx, n);
      ins.stmt = true;
      l.cont.push(ins);
      return;
    }
    case 'return_statement': {
      const v = named(n)[0];
      if (!v) {
        c.emitReturn(cx, undefined, n);
        return;
      }
      const e = c.expr(cx, v);
      if (cx.retDeduce && cx.ret.k === 'void') cx.ret = decay(e.t);
      const ev = cx.ret.k === 'void' ? e.ev : c.convertTo(e, cx.ret, v, cx).ev;
      c.emitReturn(cx, ev, n);
      return;
    }
    case 'switch_statement':
      switchStmt(c, cx, n);
      return;
    case 'type_definition':
    case 'alias_declaration':
      c.typeDecl(cx, n);
      return;
    case 'static_assert_declaration':
      staticAssert(c, cx, n);
      return;
    case 'using_declaration':
    case 'namespace_alias_definition':
    case 'comment':
      return;
    case 'preproc_call':
    case 'preproc_def':
    case 'preproc_function_def':
      return; // #pragma unroll, nv_diag_suppress …
    case 'labeled_statement': {
      // Labels without goto are harmless; goto is unsupported.
      const s = named(n).filter((child) => child.type !== 'statement_identifier');
      for (const child of s) c.stmt(cx, child);
      return;
    }
    case 'goto_statement':
      unsupported('goto', n);
      break;
    case 'struct_specifier':
    case 'class_specifier':
    case 'union_specifier':
      c.baseType(cx, n);
      return;
    case 'enum_specifier':
      c.enumDecl(cx, n);
      return;
    case 'ERROR':
      fail(`syntax error near '${n.text.slice(0, 40)}'`, n);
      break;
    case 'try_statement':
    case 'throw_statement':
      unsupported('exceptions', n);
      break;
    default:
      unsupported(`statement '${n.type}'`, n);
  }
}

/**
 * `static_assert(cond, "msg")` in a function: nvcc accepted the program, so the condition holds for the
 * instantiations nvcc compiled; it is checked here for the one being compiled (template arguments the program
 * does not allow, or a trait answered wrongly, show up as a failed assertion). A condition the simulator cannot
 * evaluate (a trait it does not model included) has no effect on a run and is skipped.
 */
function staticAssert(c: CompilerContext, cx: FnCx, n: SyntaxNode): void {
  const cond = requiredField(n, 'condition');
  let v: number;
  try {
    v = c.constEval(cx, cond);
  } catch (e) {
    if (e instanceof SimError) return;
    throw e;
  }
  if (!v) {
    const msg = n.childForFieldName('message');
    fail(`static assertion failed${msg ? `: ${msg.text}` : ''} ('${cond.text}')`, n);
  }
}

/** A sub-statement with its own scope. */
/**
 * `for (T x : range)`, `for (auto& x : range)`: over an array (its declared length) or a std::vector
 * (its size when the loop starts; begin and end are evaluated once, as C++ does). The element is
 * bound by reference or copied each iteration.
 */
function rangeFor(c: CompilerContext, cx: FnCx, n: SyntaxNode): void {
  const start = cx.code.length;
  cx.scopes.push(new Map());
  const rn = requiredField(n, 'right');
  const r = c.expr(cx, rn);
  let et: CType;
  let first: Fn;
  let count: Fn;
  if (r.t.k === 'arr') {
    et = r.t.of;
    first = c.decayFn(r);
    const len = r.t.n;
    count = () => len;
  } else if (r.t.k === 'struct' && r.t.def.fields[0]?.name === '__data' && r.t.def.fields[1]?.name === '__size' && r.t.def.fields[0].type.k === 'ptr') {
    et = r.t.def.fields[0].type.to;
    const self = c.addressOf(r, rn);
    const so = r.t.def.fields[1].offset;
    first = (f) => loadPointer((self(f) as Pointer).buf, (self(f) as Pointer).offset);
    count = (f) => Number(loader('u64')((self(f) as Pointer).buf, (self(f) as Pointer).offset + so));
  } else unsupported(`a range-based for loop over a ${typeName(r.t)} (arrays and std::vector are modelled)`, rn);
  const base = cx.slot();
  const end = cx.slot();
  const idx = cx.slot();
  c.emitExec(cx, n, (f) => {
    f.v[base] = first(f);
    f.v[end] = count(f);
    f.v[idx] = 0;
  });
  const top = cx.code.length;
  const br = c.emitBranchFalse(cx, n, (f) => f.v[idx] < f.v[end]);
  const es = Math.max(1, sizeOfType(et));
  const elem: LV = { k: 'mem', buf: (f) => (f.v[base] as Pointer).buf, off: (f) => (f.v[base] as Pointer).offset + f.v[idx] * es };
  // The loop variable, declared afresh each iteration.
  cx.scopes.push(new Map());
  const bodyStart = cx.code.length;
  const dn = requiredField(n, 'declarator');
  const tn = requiredField(n, 'type');
  const declared = tn.type === 'placeholder_type_specifier' ? et : c.baseType(cx, tn);
  const info = c.declarator(cx, declared, dn);
  const vt = tn.type === 'placeholder_type_specifier' ? et : info.type;
  const scope = cx.scopes[cx.scopes.length - 1];
  if (info.ref) {
    const slot = cx.slot();
    c.emitExec(cx, dn, (f) => (f.v[slot] = { buf: elem.buf(f), offset: elem.off(f) }));
    scope.set(info.name, { k: 'var', type: vt, where: 'ref', idx: slot, cx });
    cx.locals.push({ name: info.name, type: vt, where: 'ref', index: slot, from: cx.code.length, to: Infinity });
  } else {
    const value = c.convertTo({ t: et, ev: c.loadFn(elem, et), lv: elem }, vt, dn, cx);
    if (isNum(vt) || vt.k === 'ptr') {
      const slot = cx.slot();
      const v = value.ev;
      c.emitExec(cx, dn, (f) => (f.v[slot] = v(f)));
      scope.set(info.name, { k: 'var', type: vt, where: 'slot', idx: slot, cx });
      cx.locals.push({ name: info.name, type: vt, where: 'slot', index: slot, from: cx.code.length, to: Infinity });
    } else {
      const m = c.memLocal(cx, info.name, vt);
      const st = c.storeFn({ k: 'mem', buf: (f) => f.mem[m], off: () => 0 }, vt);
      const v = value.ev;
      c.emitExec(cx, dn, (f) => st(f, v(f)));
      scope.set(info.name, { k: 'var', type: vt, where: 'mem', idx: m, cx });
      cx.locals.push({ name: info.name, type: vt, where: 'mem', index: m, from: cx.code.length, to: Infinity });
    }
  }
  const loop = { brk: [] as Instr[], cont: [] as Instr[], sw: false };
  cx.loops.push(loop);
  scoped(c, cx, requiredField(n, 'body'));
  cx.loops.pop();
  closeScope(cx, bodyStart);
  const contAt = cx.code.length;
  c.emitExec(cx, n, (f) => (f.v[idx] += 1));
  const j = c.emitJump(cx, n);
  j.target = top;
  br.target = cx.code.length;
  for (const b of loop.brk) b.target = cx.code.length;
  for (const x of loop.cont) x.target = contAt;
  closeScope(cx, start);
}

function scoped(c: CompilerContext, cx: FnCx, n: SyntaxNode): void {
  if (n.type === 'compound_statement') return c.block(cx, n);
  cx.scopes.push(new Map());
  const s = cx.code.length;
  c.stmt(cx, n);
  closeScope(cx, s);
}

function condition(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  // condition_clause / parenthesized_expression
  let inner = n;
  if (n.type === 'condition_clause' || n.type === 'parenthesized_expression') {
    const v = n.childForFieldName('value') ?? named(n)[0];
    if (v?.type === 'declaration') unsupported('a declaration in a condition', v);
    inner = v!;
  }
  const e = constantOf(c.expr(cx, inner));
  return { t: BOOL, ev: c.truth(e, inner), cv: e.cv !== undefined ? (e.cv ? 1 : 0) : undefined, vec: vecOf(e) };
}


/** A condition's value: pointers test against null, numbers against zero. */
export function truth(c: CompilerContext, e: Ex, n: SyntaxNode): Fn {
  const ev = e.ev;
  if (e.t.k === 'ptr') return (f) => (ev(f) ? 1 : 0);
  if (!isNum(e.t)) unsupported(`a ${typeName(e.t)} used as a condition`, n);
  return ev;
}

function switchStmt(c: CompilerContext, cx: FnCx, n: SyntaxNode): void {
  const cond = condition(c, cx, requiredField(n, 'condition'));
  const body = requiredField(n, 'body');
  const tmp = cx.slot();
  const cev = cond.ev;
  c.emitExec(cx, n, (f) => (f.v[tmp] = cev(f)));
  const cases = named(body).filter((cs) => cs.type === 'case_statement');
  const jumps: { ins: Instr; cs: SyntaxNode }[] = [];
  for (const cs of cases) {
    const v = cs.childForFieldName('value');
    if (!v) continue;
    const val = c.constEval(cx, v);
    const next = cx.code.length + 1;
    const ins: Instr = { run: (f) => (f.v[tmp] === val ? ins.target : next), runRow: undefined, rowFx: false, loc: locOf(cs, cx.name), stmt: false, target: -1, site: -1 };
    cx.code.push(ins);
    jumps.push({ ins, cs });
  }
  const dflt = c.emitJump(cx, n);
  const loop = { brk: [] as Instr[], cont: [] as Instr[], sw: true };
  cx.loops.push(loop);
  cx.scopes.push(new Map());
  let sawDefault = false;
  for (const cs of named(body)) {
    if (cs.type !== 'case_statement') {
      c.stmt(cx, cs);
      continue;
    }
    const at = cx.code.length;
    for (const j of jumps) if (j.cs.startIndex === cs.startIndex) j.ins.target = at;
    if (!cs.childForFieldName('value')) {
      dflt.target = at;
      sawDefault = true;
    }
    const v = cs.childForFieldName('value');
    for (const s of named(cs)) if (!v || s.startIndex !== v.startIndex) c.stmt(cx, s);
  }
  cx.scopes.pop();
  cx.loops.pop();
  if (!sawDefault) dflt.target = cx.code.length;
  for (const b of loop.brk) b.target = cx.code.length;
}

/** Does evaluating `n` need its own instructions (a user call or a blocking builtin)? */
export function needsHoist(c: CompilerContext, cx: FnCx, n: SyntaxNode): boolean {
  if (n.type === 'call_expression') {
    const fnNode = requiredField(n, 'function');
    // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
    const name = lastName(fnNode.text.replace(/\s+/g, '').replace(/<[\s\S]*$/, ''));
    if (fnNode.type === 'field_expression') return true;
    if (c.functions.has(name)) return true;
    const s = c.lookup(cx, name);
    if (s?.sym.k === 'var') return true;
    if (!isKnownPure(name)) return true;
  }
  if (n.type === 'gnu_asm_expression' || n.type === 'lambda_expression' || n.type === 'new_expression') return true;
  for (const ch of named(n)) if (needsHoist(c, cx, ch)) return true;
  return false;
}

/** `while (!probe(...))` / `do {} while (!probe(...))`: the probe node, if the condition is one. */
function retriedProbe(cond: SyntaxNode): SyntaxNode | undefined {
  let n = cond;
  while (n.type === 'parenthesized_expression' || n.type === 'condition_clause') n = n.childForFieldName('value') ?? named(n)[0];
  if (n.type === 'unary_expression' && n.childForFieldName('operator') && operatorOf(n) === '!') {
    let a = requiredField(n, 'argument');
    while (a.type === 'parenthesized_expression') a = named(a)[0];
    if (a.type === 'call_expression') return a;
  }
  return undefined;
}
