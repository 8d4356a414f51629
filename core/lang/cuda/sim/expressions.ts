// Expressions for the CUDA compiler: literals, names (locals, constants, shared and global
// variables, fields of `this`), member and index access, unary, binary, logical and conditional
// operators, increments and assignments, casts. Each becomes a `(frame) => value` closure
// specialised by type at compile time; constant operands fold.
import { isPairType, pairBinop } from './vector-builtins';
import type { SyntaxNode } from '../parser';
import type { DType } from '../../../sim/dtypes';
import { SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { compileBuiltinCall } from './builtins';
import { type CompilerContext, type Ex, type Fn, type FnCx, type FnDecl, hasOwner, type LV, ownerOf, type Sym } from './context';
import { fieldEx, slotReader } from './lvalues';
import { laneType, vArith, vCompare, vDivConst, vDivVar, vecOf, vLogical, vLaunchDim, vModifySlot, vSelect, vShift, vSlot, vStoreSlot, vThreadIndex, vUnary } from './lanes';
import { envOf, type Frame, type Instr, selfOf } from './runtime';
import { needsHoist } from './statements';
import { expandPattern, packLen, packsIn } from './templates';
import { conceptValue, requiresExpression } from './concepts';
import { constantOf, scopeOf, traitMember, withCxx } from './type-traits';
import { fail, lastName, locOf, named, nothingDoneBefore, operatorOf, unsupported, requiredField } from './syntax';
import {
  alignOfType,
  arith,
  BOOL,
  bitNot,
  commonType,
  compare,
  type CType,
  F32,
  F64,
  isFloatDt,
  isNum,
  negate,
  num,
  promote,
  ptr,
  S32,
  S64,
  shift,
  sizeOfType,
  typeName,
  U32,
  U64,
  VOID,
  wide,
} from './types';

export function expr(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  switch (n.type) {
    case 'number_literal':
      return numberLiteral(n);
    case 'char_literal': {
      const c = n.text.slice(1, -1);
      const v = c.startsWith('\\') ? ({ n: 10, t: 9, '0': 0, '\\': 92, "'": 39, r: 13 } as Record<string, number>)[c[1]] ?? c.charCodeAt(1) : c.charCodeAt(0);
      return { t: num('s8'), ev: () => v, cv: v };
    }
    case 'true':
      return { t: BOOL, ev: () => 1, cv: 1 };
    case 'false':
      return { t: BOOL, ev: () => 0, cv: 0 };
    case 'null':
    case 'nullptr':
      return { t: { k: 'obj', obj: 'nullptr' }, ev: () => null, cv: 0 };
    case 'string_literal':
    case 'concatenated_string': {
      const s = stringValue(n);
      return { t: { k: 'obj', obj: 'string' }, ev: () => s, str: s };
    }
    case 'parenthesized_expression':
      return c.expr(cx, named(n)[0]);
    case 'identifier':
      return identifier(c, cx, n);
    case 'qualified_identifier':
      return qualified(c, cx, n);
    case 'this':
      if (!cx.owner) fail("'this' outside a member function", n);
      return { t: ptr({ k: 'struct', def: cx.owner }), ev: (f) => selfOf(f) };
    case 'field_expression':
      return field(c, cx, n);
    case 'subscript_expression':
      return (cx.host && c.host?.expr(c, cx, n)) || subscript(c, cx, n);
    case 'pointer_expression':
      return pointerExpr(c, cx, n);
    case 'unary_expression':
      return unary(c, cx, n);
    case 'binary_expression':
      return c.binary(cx, n);
    case 'update_expression':
      return update(c, cx, n);
    case 'assignment_expression':
      return assignment(c, cx, n);
    case 'conditional_expression':
      return conditional(c, cx, n);
    case 'comma_expression': {
      const l = c.expr(cx, requiredField(n, 'left'));
      const r = c.expr(cx, requiredField(n, 'right'));
      const a = l.ev;
      const b = r.ev;
      return { t: r.t, ev: (f) => (a(f), b(f)), lv: undefined };
    }
    case 'cast_expression': {
      const t = c.typeDescriptor(cx, requiredField(n, 'type'));
      return c.cast(cx, t, c.expr(cx, requiredField(n, 'value')), n);
    }
    case 'sizeof_expression': {
      if (/^sizeof\s*\.\.\./.test(n.text)) {
        // `sizeof...(Ts)`: the length of a template or function parameter pack.
        // The name between `sizeof...(` and `)`, cut by position (a trailing-blank regex is quadratic on long blank runs).
        const name = /^sizeof\s*\.\.\.\s*(?:\(\s*)?(\w+)/.exec(n.text)?.[1] ?? n.text;
        const len = c.lookup(cx, packLen(name));
        if (len?.sym.k !== 'const') fail(`'${name}' is not a parameter pack`, n);
        const v = len.sym.value;
        return { t: U64, ev: () => v, cv: v };
      }
      const tn = n.childForFieldName('type');
      const vn = n.childForFieldName('value') ?? named(n)[0];
      const t = tn ? c.typeDescriptor(cx, tn) : c.typeOf(cx, vn);
      const v = sizeOfType(t);
      return { t: U64, ev: () => v, cv: v };
    }
    case 'alignof_expression': {
      const tn = named(n)[0];
      const t = tn.type === 'type_descriptor' ? c.typeDescriptor(cx, tn) : c.typeOf(cx, tn);
      const v = alignOfType(t);
      return { t: U64, ev: () => v, cv: v };
    }
    case 'call_expression':
      return c.call(cx, n);
    case 'fold_expression':
      return foldExpression(c, cx, n);
    case 'lambda_expression':
      return c.lambda(cx, n);
    case 'initializer_list': {
      const items = named(n);
      if (items.length === 1) return c.expr(cx, items[0]);
      unsupported('a brace list used as a value', n);
      break;
    }
    case 'new_expression':
    case 'delete_expression': {
      const h = cx.host ? c.host?.expr(c, cx, n) : undefined;
      if (h) return h;
      if (n.type === 'delete_expression') unsupported(`expression '${n.type}'`, n);
      return compileBuiltinCall(c, cx, 'operator new', [], n) ?? unsupported('new', n);
    }
    case 'gnu_asm_expression':
      return compileBuiltinCall(c, cx, 'asm', [], n) ?? unsupported('asm', n);
    case 'template_function':
    case 'template_type':
      return traitValue(c, cx, n) ?? conceptValue(c, cx, n, n.childForFieldName('name')?.text ?? '') ?? unsupported(`template function '${n.text}' used as a value`, n);
    case 'requires_expression':
      return requiresExpression(c, cx, n);
    case 'ERROR':
      fail(`syntax error near '${n.text.slice(0, 40)}'`, n);
      break;
    case 'compound_literal_expression':
      return compoundLiteral(c, cx, n);
    case 'user_defined_literal':
    case 'throw_expression':
    default:
      unsupported(`expression '${n.type}'`, n);
  }
}

function identifier(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const name = n.text;
  const r = c.lookup(cx, name);
  if (r) return c.symbolEx(cx, r.sym, r.depth, name, n);
  if (cx.owner || hasOwner(cx)) {
    const owner = ownerOf(cx)!;
    const fld = owner.def.fields.find((x) => x.name === name);
    if (fld) {
      const d = owner.depth;
      return fieldEx(c, (f) => selfOf(envOf(f, d)).buf, (f) => selfOf(envOf(f, d)).offset, fld);
    }
  }
  const special = builtinIdentifier(name);
  if (special) return special;
  if (name === '__LINE__') {
    // The preprocessor leaves it to the compiler: the line where it is written (CUTLASS's synclog calls pass it).
    const line = n.startPosition.row + 1;
    return { t: S32, ev: () => line, cv: line };
  }
  if (c.functions.has(name)) unsupported(`function '${name}' used as a value`, n);
  fail(`unknown identifier '${name}'`, n);
}

export function symbolEx(c: CompilerContext, cx: FnCx, s: Sym, depth: number, name: string, n: SyntaxNode): Ex {
  switch (s.k) {
    case 'const': {
      const v = s.value;
      return { t: s.type, ev: () => v, cv: v };
    }
    case 'var': {
      if (s.where === 'slot' || s.where === 'num') {
        const num = s.where === 'num';
        const lv: LV = { k: 'slot', depth, idx: s.idx, num };
        const out: Ex = { t: s.type, ev: slotReader(depth, s.idx, num && s.type.k === 'num' ? s.type.dt : undefined), lv };
        if (depth === 0 && s.type.k === 'num' && laneType(s.type.dt)) out.vec = vSlot(s.idx, num);
        return out;
      }
      if (s.where === 'mem') {
        const m = s.idx;
        const lv: LV = depth === 0 ? { k: 'mem', buf: (f) => f.mem[m], off: () => 0 } : { k: 'mem', buf: (f) => envOf(f, depth).mem[m], off: () => 0 };
        return { t: s.type, ev: c.loadFn(lv, s.type), lv };
      }
      const rd = slotReader(depth, s.idx);
      const lv: LV = {
        k: 'mem',
        buf: (f) => {
          const p = rd(f) as Pointer | null;
          if (!p) throw new SimError(`reference '${name}' is null`);
          return p.buf;
        },
        off: (f) => (rd(f) as Pointer).offset,
      };
      return { t: s.type, ev: c.loadFn(lv, s.type), lv };
    }
    case 'shared': {
      const i = s.idx;
      const lv: LV = { k: 'mem', buf: (f) => f.ts.blk.shared[i], off: () => 0 };
      return { t: s.type, ev: c.loadFn(lv, s.type), lv };
    }
    case 'dyn': {
      const lv: LV = { k: 'mem', buf: (f) => f.ts.blk.dynamic, off: () => 0 };
      return { t: s.type, ev: c.loadFn(lv, s.type), lv };
    }
    case 'global': {
      // The run's copy of the variable (RunStorage): compiled code is shared by runs.
      const index = s.index;
      const lv: LV = { k: 'mem', buf: (f) => f.ts.ex.storage.global(index), off: () => 0 };
      return { t: s.type, ev: c.loadFn(lv, s.type), lv };
    }
    case 'type':
      fail(`type '${name}' used as a value`, n);
  }
}

function qualified(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const text = n.text.replace(/\s+/g, '').replace(/^::/, '');
  const r = c.lookup(cx, text);
  if (r) return c.symbolEx(cx, r.sym, r.depth, text, n);
  // A struct's static constexpr member (`Ring<4>::kStages`, `S::kN`, `std::is_same<T, U>::value`: the scope next to the name).
  let q = n;
  while (q.childForFieldName('name')?.type === 'qualified_identifier') q = q.childForFieldName('name')!;
  const scope = q.childForFieldName('scope');
  const member = q.childForFieldName('name');
  // (`value` reads as a type name inside a template argument list: `enable_if<is_integral<T>::value, int>`.)
  if (scope && (member?.type === 'identifier' || member?.type === 'type_identifier')) {
    const m = c.scopeStruct(cx, scope)?.members?.get(member.text);
    if (m?.k === 'const') return c.symbolEx(cx, m, 0, text, n);
  }
  // `std::is_same_v<T, U>`, `cute::is_integral_v<T>`.
  if (member?.type === 'template_function' || member?.type === 'template_type') {
    const v = traitValue(c, cx, member) ?? conceptValue(c, cx, member, text.replace(/<[\s\S]*$/, ''));
    if (v) return v;
  }
  // cuda::ptx tags (sem_release, scope_cta, space_shared …) select overloads; they carry no value.
  if (/(^|::)(sem|scope|space|op|kind|dst|src|cta_group)_\w+$/.test(text)) return { t: { k: 'obj', obj: 'tag' }, ev: () => text, str: lastName(text) };
  // cuda::pipeline_role::producer / consumer (make_pipeline's role argument).
  const role = /(^|::)pipeline_role::(producer|consumer)$/.exec(text);
  if (role) {
    const v = role[2] === 'producer' ? 0 : 1;
    return { t: { k: 'obj', obj: 'pipeline_role' }, ev: () => v, cv: v };
  }
  const last = lastName(text);
  const r2 = c.lookup(cx, last);
  if (r2 && (r2.sym.k === 'const' || r2.sym.k === 'global')) return c.symbolEx(cx, r2.sym, r2.depth, last, n);
  const special = builtinIdentifier(text) ?? builtinIdentifier(last);
  if (special) return special;
  fail(`unknown name '${text}'`, n);
}

/** A trait's `_v` variable template (`is_same_v<T, U>`) as a constant, or undefined when `n` names none. */
function traitValue(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex | undefined {
  const name = n.childForFieldName('name')?.text ?? '';
  const m = traitMember(c, cx, scopeOf(n), name, named(requiredField(n, 'arguments')), n, 'v');
  if (m?.k !== 'const') return undefined;
  return c.symbolEx(cx, m, 0, n.text, n);
}

function field(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const arg = requiredField(n, 'argument');
  const fname = requiredField(n, 'field').text;
  const arrow = n.childForFieldName('operator')?.text === '->';
  if (!arrow && arg.type === 'identifier' && /^(threadIdx|blockIdx|blockDim|gridDim)$/.test(arg.text) && !c.lookup(cx, arg.text)) {
    const e = dim3Field(arg.text, fname);
    if (e) return e;
    fail(`${arg.text} has no field '${fname}'`, n);
  }
  const base = c.expr(cx, arg);
  let st: CType;
  let B: Fn;
  let O: Fn;
  if (arrow) {
    const pt = c.rv(base).t;
    if (pt.k !== 'ptr') fail(`'->' on a ${typeName(pt)}`, n);
    st = pt.to;
    const pv = c.rv(base).ev;
    B = (f) => {
      const p = pv(f) as Pointer | null;
      if (!p) throw new SimError(`null pointer dereference in '${n.text}'`);
      return p.buf;
    };
    O = (f) => (pv(f) as Pointer).offset;
    if (st.k === 'struct') {
      const fld = st.def.fields.find((x) => x.name === fname);
      if (!fld) fail(`${st.def.name} has no field '${fname}'`, n);
      // One pointer evaluation per access.
      return fieldEx(c, B, (f) => (pv(f) as Pointer).offset, fld);
    }
  } else {
    st = base.t;
    if (st.k === 'struct') {
      const fld = st.def.fields.find((x) => x.name === fname);
      if (!fld) fail(`${st.def.name} has no field '${fname}'`, n);
      if (base.lv?.k === 'mem') return fieldEx(c, base.lv.buf, base.lv.off, fld);
      // Rvalue struct (a call's result): its storage pointer.
      const pv = base.ev;
      return fieldEx(c, (f) => (pv(f) as Pointer).buf, (f) => (pv(f) as Pointer).offset, fld);
    }
  }
  fail(`'${fname}' is not a field of ${typeName(st)} (methods must be called)`, n);
}

function subscript(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const a = c.expr(cx, requiredField(n, 'argument'));
  const idxList = n.childForFieldName('indices') ?? named(n)[1];
  const idxNode = idxList.type === 'subscript_argument_list' ? named(idxList)[0] : idxList;
  const i = c.expr(cx, idxNode);
  if (!isNum(i.t)) fail(`array index '${idxNode.text}' is not an integer`, idxNode);
  let ie = i.ev;
  if (isFloatDt(i.t.dt)) fail(`array index '${idxNode.text}' is a ${i.t.dt}`, idxNode);
  if (a.t.k === 'arr') {
    const et = a.t.of;
    const es = sizeOfType(et);
    if (a.lv?.k !== 'mem') unsupported(`indexing '${n.text}'`, n);
    const B = a.lv.buf;
    const O = a.lv.off;
    const n0 = a.t.n;
    // Arrays with a known bound are checked per dimension (C would silently index the next row).
    if (n0 > 0 && a.t.of.k === 'arr') {
      const name = requiredField(n, 'argument').text;
      const raw = ie;
      ie = (f) => {
        const x = raw(f);
        if (x < 0 || x >= n0) throw new SimError(`index ${x} out of bounds of '${name}' (dimension of ${n0})`, undefined, 'oob');
        return x;
      };
    }
    if (i.cv !== undefined) {
      const k = i.cv * es;
      const lv: LV = { k: 'mem', buf: B, off: (f) => O(f) + k };
      return { t: et, ev: c.loadFn(lv, et), lv };
    }
    const vi = ie === i.ev ? vecOf(i) : undefined;
    const lv: LV = { k: 'mem', buf: B, off: (f) => O(f) + ie(f) * es, elem: vi && { buf: B, base: O, index: vi, es } };
    return { t: et, ev: c.loadFn(lv, et), lv };
  }
  if (a.t.k === 'ptr') {
    const et = a.t.to;
    const es = sizeOfType(et);
    if (et.k === 'void') fail('indexing a void pointer', n);
    const pv = a.ev;
    const B: Fn = (f) => {
      const p = pv(f) as Pointer | null;
      if (!p) throw new SimError(`null pointer dereference in '${n.text}'`);
      return p.buf;
    };
    const vi = vecOf(i);
    const lv: LV = { k: 'mem', buf: B, off: (f) => (pv(f) as Pointer).offset + ie(f) * es, elem: vi && { buf: B, base: (f) => (pv(f) as Pointer).offset, index: vi, es } };
    return { t: et, ev: c.loadFn(lv, et), lv };
  }
  unsupported(`indexing a ${typeName(a.t)}`, n);
}

function pointerExpr(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const op = operatorOf(n);
  const arg = requiredField(n, 'argument');
  const a = c.expr(cx, arg);
  if (op === '&') {
    if (a.t.k === 'lambda') return a;
    return { t: ptr(a.t), ev: c.addressOf(a, arg) };
  }
  const r = c.rv(a);
  if (r.t.k !== 'ptr') fail(`'*' on a ${typeName(r.t)}`, n);
  const et = r.t.to;
  const pv = r.ev;
  const lv: LV = {
    k: 'mem',
    buf: (f) => {
      const p = pv(f) as Pointer | null;
      if (!p) throw new SimError(`null pointer dereference in '${n.text}'`);
      return p.buf;
    },
    off: (f) => (pv(f) as Pointer).offset,
  };
  return { t: et, ev: et.k === 'void' ? pv : c.loadFn(lv, et), lv };
}

function unary(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const op = operatorOf(n);
  const a = c.rv(c.expr(cx, requiredField(n, 'argument')));
  if (op === '!') {
    const t = c.truth(a, n);
    const va = vecOf(a);
    return fold({ t: BOOL, ev: (f) => (t(f) ? 0 : 1), vec: va && vUnary('!', 'bool', va) }, a);
  }
  if (!isNum(a.t)) fail(`unary ${op} on a ${typeName(a.t)}`, n);
  const dt = promote(a.t.dt);
  const pe = c.convertTo(a, num(dt), n);
  if (op === '+') return pe;
  const vp = vecOf(pe);
  if (op === '-') return fold({ t: num(dt), ev: negate(dt, pe.ev), vec: vp && vUnary('-', dt, vp) }, pe);
  if (op === '~') return fold({ t: num(dt), ev: bitNot(dt, pe.ev), vec: vp && vUnary('~', dt, vp) }, pe);
  unsupported(`unary operator ${op}`, n);
}

export function binary(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const op = operatorOf(n);
  const ln = requiredField(n, 'left');
  const rn = requiredField(n, 'right');
  if (op === '&&' || op === '||') return logical(c, cx, op, ln, rn, n);
  if (op === '>') {
    const call = c.misparsedTemplateCall(cx, n);
    if (call) return call;
  }
  // A program's own operator on a struct (float4 has none built in; one the program defines is an
  // ordinary function, as with nvcc).
  const user = c.functions.get(`operator${op}`);
  if (user && !user[0].owner) {
    const lt = c.typeOf(cx, ln);
    const rt = c.typeOf(cx, rn);
    if ((lt.k === 'struct' || rt.k === 'struct') && !(isPairType(lt) && isPairType(rt))) return c.callUser(cx, user, [ln, rn], n);
  }
  const member = memberOperator(c, cx, ln, op, n);
  if (member) return member(rn);
  const l = viaConversion(c, cx, c.rv(c.expr(cx, ln)), n);
  const r = viaConversion(c, cx, c.rv(c.expr(cx, rn)), n);
  return c.binop(op, l, r, n);
}

export function binop(c: CompilerContext, op: string, l: Ex, r: Ex, n: SyntaxNode): Ex {
  // Pointer arithmetic and comparison.
  if (l.t.k === 'ptr' || r.t.k === 'ptr' || (l.t.k === 'obj' && l.t.obj === 'nullptr') || (r.t.k === 'obj' && r.t.obj === 'nullptr')) return pointerBinop(c, op, l, r, n);
  // Scoped enumerations the simulator models as objects (cuda::pipeline_role) compare by value.
  if (l.t.k === 'obj' && r.t.k === 'obj' && l.t.obj === 'pipeline_role' && r.t.obj === 'pipeline_role' && (op === '==' || op === '!=')) {
    const [a, b] = [l.ev, r.ev];
    return { t: num('bool'), ev: op === '==' ? (f) => (a(f) === b(f) ? 1 : 0) : (f) => (a(f) !== b(f) ? 1 : 0) };
  }
  if (l.t.k === 'struct' || r.t.k === 'struct') {
    const pair = pairBinop(c, op, l, r, n);
    if (pair) return pair;
  }
  if (!isNum(l.t) || !isNum(r.t)) fail(`operator ${op} on ${typeName(l.t)} and ${typeName(r.t)}`, n);
  let out: Ex;
  if (op === '<<' || op === '>>') {
    const dt = promote(l.t.dt);
    if (isFloatDt(dt)) fail(`shift of a ${dt}`, n);
    const a = c.convertTo(l, num(dt), n);
    const b = c.convertTo(r, num(promote(r.t.dt)), n);
    out = { t: num(dt), ev: shift(op, dt, a.ev, b.ev) };
    const [va, vb] = [vecOf(a), vecOf(b)];
    if (va && vb && laneType(b.t.k === 'num' ? b.t.dt : 'u64')) out.vec = vShift(op, dt, va, vb);
  } else {
    const dt = commonType(l.t.dt, r.t.dt);
    const a = c.convertTo(l, num(dt), n);
    const b = c.convertTo(r, num(dt), n);
    const [va, vb] = laneType(dt) ? [vecOf(a), vecOf(b)] : [undefined, undefined];
    if (op === '<' || op === '>' || op === '<=' || op === '>=' || op === '==' || op === '!=') {
      out = { t: BOOL, ev: compare(op, a.ev, b.ev) };
      if (va && vb) out.vec = vCompare(op, va, vb);
    } else {
      if (isFloatDt(dt) && (op === '%' || op === '&' || op === '|' || op === '^')) fail(`operator ${op} on ${dt}`, n);
      out = { t: num(dt), ev: arith(op, dt, a.ev, b.ev) };
      // A divisor that varies may be zero in some lane (a fault): its row declines then, which is exact
      // only where nothing with an effect ran before the division in the statement.
      if (va && vb) out.vec = vArith(op, dt, va, vb) ?? (b.cv !== undefined ? vDivConst(op, dt, va, b.cv) : nothingDoneBefore(n) ? vDivVar(op, dt, va, vb) : undefined);
    }
  }
  if (l.cv !== undefined && r.cv !== undefined) {
    const v = out.ev(null as unknown as Frame);
    return { t: out.t, ev: () => v, cv: v };
  }
  return out;
}

function pointerBinop(c: CompilerContext, op: string, l: Ex, r: Ex, n: SyntaxNode): Ex {
  const lp = l.t.k === 'ptr' || (l.t.k === 'obj' && l.t.obj === 'nullptr');
  const rp = r.t.k === 'ptr' || (r.t.k === 'obj' && r.t.obj === 'nullptr');
  if ((op === '+' || op === '-') && lp && !rp && isNum(r.t)) {
    const pt = l.t as { k: 'ptr'; to: CType };
    const es = pt.to.k === 'void' ? 1 : sizeOfType(pt.to);
    const A = l.ev;
    const B = r.ev;
    const sign = op === '-' ? -1 : 1;
    return {
      t: l.t,
      ev: (f) => {
        const p = A(f) as Pointer | null;
        if (!p) throw new SimError(`arithmetic on a null pointer in '${n.text}'`);
        return { buf: p.buf, offset: p.offset + sign * B(f) * es };
      },
    };
  }
  if (op === '+' && rp && !lp && isNum(l.t)) return pointerBinop(c, op, r, l, n);
  if (op === '-' && lp && rp) {
    const pt = l.t as { k: 'ptr'; to: CType };
    const es = Math.max(1, sizeOfType(pt.to));
    const A = l.ev;
    const B = r.ev;
    return {
      t: S64,
      ev: (f) => {
        const a = A(f) as Pointer;
        const b = B(f) as Pointer;
        if (!a || !b || a.buf !== b.buf) throw new SimError(`subtracting pointers into different buffers in '${n.text}'`);
        return Math.trunc((a.offset - b.offset) / es);
      },
    };
  }
  if (op === '==' || op === '!=' || op === '<' || op === '>' || op === '<=' || op === '>=') {
    const A = lp ? l.ev : l.cv === 0 ? () => null : undefined;
    const B = rp ? r.ev : r.cv === 0 ? () => null : undefined;
    if (!A || !B) fail(`comparing a pointer with a non-pointer in '${n.text}'`, n);
    const key = (p: Pointer | null) => (p ? p.offset : -1);
    const same = (a: Pointer | null, b: Pointer | null) => a === b || (!!a && !!b && a.buf === b.buf && a.offset === b.offset);
    switch (op) {
      case '==':
        return { t: BOOL, ev: (f) => (same(A(f), B(f)) ? 1 : 0) };
      case '!=':
        return { t: BOOL, ev: (f) => (same(A(f), B(f)) ? 0 : 1) };
      default: {
        const cmp = compare(op, (f) => key(A(f)), (f) => key(B(f)));
        return { t: BOOL, ev: cmp };
      }
    }
  }
  fail(`operator ${op} on pointers`, n);
}

function logical(c: CompilerContext, cx: FnCx, op: string, ln: SyntaxNode, rn: SyntaxNode, n: SyntaxNode): Ex {
  const l = c.rv(c.expr(cx, ln));
  const lt = c.truth(l, ln);
  if (!needsHoist(c, cx, rn)) {
    const r = c.rv(c.expr(cx, rn));
    const rt = c.truth(r, rn);
    const out: Ex = op === '&&' ? { t: BOOL, ev: (f) => (lt(f) && rt(f) ? 1 : 0) } : { t: BOOL, ev: (f) => (lt(f) || rt(f) ? 1 : 0) };
    // Both sides at once for a row's lanes: only when the right side has no effect to short-circuit.
    const [vl, vr] = [vecOf(l), vecOf(r)];
    if (vl && vr && !assigns(rn)) out.vec = vLogical(op as '&&' | '||', vl, vr);
    if (l.cv !== undefined && r.cv !== undefined) {
      const v = out.ev(null as unknown as Frame);
      return { t: BOOL, ev: () => v, cv: v };
    }
    if (l.cv !== undefined && op === '&&' && !l.cv) return { t: BOOL, ev: () => 0, cv: 0 };
    if (l.cv !== undefined && op === '||' && l.cv) return { t: BOOL, ev: () => 1, cv: 1 };
    return out;
  }
  // The right side calls a function or blocks: real control flow keeps short-circuiting.
  const tmp = cx.slot();
  c.emitExec(cx, ln, (f) => (f.v[tmp] = lt(f) ? 1 : 0));
  const next = cx.code.length + 1;
  const skip: Instr = { run: (f) => ((op === '&&' ? f.v[tmp] : !f.v[tmp]) ? next : skip.target), runRow: undefined, rowFx: false, loc: locOf(n, cx.name), stmt: false, target: -1, site: -1 };
  cx.code.push(skip);
  const r = c.rv(c.expr(cx, rn));
  const rt = c.truth(r, rn);
  c.emitExec(cx, rn, (f) => (f.v[tmp] = rt(f) ? 1 : 0));
  skip.target = cx.code.length;
  return { t: BOOL, ev: (f) => f.v[tmp], pure: true };
}

function conditional(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const cn = requiredField(n, 'condition');
  const an = requiredField(n, 'consequence');
  const bn = requiredField(n, 'alternative');
  const cond = c.rv(c.expr(cx, cn));
  const ct = c.truth(cond, cn);
  if (!needsHoist(c, cx, an) && !needsHoist(c, cx, bn)) {
    const a = c.rv(c.expr(cx, an));
    const b = c.rv(c.expr(cx, bn));
    const t = resultType(a.t, b.t);
    const A = c.convertTo(a, t, an).ev;
    const B = c.convertTo(b, t, bn).ev;
    if (cond.cv !== undefined) return cond.cv ? c.convertTo(a, t, an) : c.convertTo(b, t, bn);
    const out: Ex = { t, ev: (f) => (ct(f) ? A(f) : B(f)) };
    // Both arms at once for a row's lanes: only when neither has an effect the choice would skip.
    const [vc, va, vb] = [vecOf(cond), vecOf(c.convertTo(a, t, an)), vecOf(c.convertTo(b, t, bn))];
    if (vc && va && vb && !assigns(an) && !assigns(bn)) out.vec = vSelect(vc, va, vb);
    return out;
  }
  const tmp = cx.slot();
  const br = c.emitBranchFalse(cx, cn, ct);
  br.stmt = false;
  const mark = cx.code.length;
  const a = c.rv(c.expr(cx, an));
  // Types of both arms must be known before converting; compile b's type by a dry run.
  const bt = c.rv({ t: c.typeOf(cx, bn), ev: () => 0 }).t;
  const t = resultType(a.t, bt);
  const A = c.convertTo(a, t, an).ev;
  c.emitExec(cx, an, (f) => (f.v[tmp] = A(f)));
  const j = c.emitJump(cx, n);
  br.target = cx.code.length;
  void mark;
  const b = c.rv(c.expr(cx, bn));
  const B = c.convertTo(b, t, bn).ev;
  c.emitExec(cx, bn, (f) => (f.v[tmp] = B(f)));
  j.target = cx.code.length;
  return { t, ev: (f) => f.v[tmp], pure: true };
}

function update(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const op = operatorOf(n);
  const argN = requiredField(n, 'argument');
  const a = c.expr(cx, argN);
  const prefix = n.firstChild?.type === '++' || n.firstChild?.type === '--';
  if (!a.lv) fail(`'${argN.text}' is not assignable`, n);
  const one: Ex = { t: S32, ev: () => 1, cv: 1 };
  const bop = op === '++' ? '+' : '-';
  const newV = a.t.k === 'ptr' ? pointerBinop(c, bop, a, one, n) : c.convertTo(c.binop(bop, a, one, n), a.t, n);
  return modify(c, a, newV, prefix ? 'new' : 'old');
}

/** Read-modify-write of an lvalue evaluating its address once. */
function modify(c: CompilerContext, a: Ex, newEx: Ex, result: 'new' | 'old'): Ex {
  const lv = a.lv!;
  const t = a.t;
  const newV = newEx.ev;
  if (lv.k === 'slot') {
    const { depth, idx } = lv;
    if (lv.num) {
      if (depth === 0) {
        const vn = vecOf(newEx);
        const vec = vn && vModifySlot(idx, vn, result);
        if (result === 'new') return { t, ev: (f) => (f.d[idx] = newV(f)), vec };
        return {
          t,
          ev: (f) => {
            const old = f.d[idx];
            f.d[idx] = newV(f);
            return old;
          },
          vec,
        };
      }
      return {
        t,
        ev: (f) => {
          const e = envOf(f, depth);
          const old = e.d[idx];
          const v = newV(f);
          e.d[idx] = v;
          return result === 'new' ? v : old;
        },
      };
    }
    if (depth === 0) {
      if (result === 'new') return { t, ev: (f) => (f.v[idx] = newV(f)) };
      return {
        t,
        ev: (f) => {
          const old = f.v[idx];
          f.v[idx] = newV(f);
          return old;
        },
      };
    }
    return {
      t,
      ev: (f) => {
        const e = envOf(f, depth);
        const old = e.v[idx];
        const v = newV(f);
        e.v[idx] = v;
        return result === 'new' ? v : old;
      },
    };
  }
  // Memory: newV reads through a.lv again; pin buffer and offset for this evaluation.
  const st = c.storeFn(lv, t);
  return {
    t,
    ev: (f) => {
      const old = a.ev(f);
      const v = newV(f);
      st(f, v);
      return result === 'new' ? v : old;
    },
  };
}

function assignment(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const op = operatorOf(n);
  const ln = requiredField(n, 'left');
  const rn = requiredField(n, 'right');
  const member = memberOperator(c, cx, ln, op, n);
  if (member) return member(rn);
  // Right side first: hoisted calls in it run before the store.
  const r = c.rv(rn.type === 'initializer_list' && named(rn).length === 1 ? c.expr(cx, named(rn)[0]) : c.expr(cx, rn));
  const l = c.expr(cx, ln);
  if (!l.lv) fail(`'${ln.text}' is not assignable`, n);
  if (l.t.k === 'arr') fail(`cannot assign to array '${ln.text}'`, n);
  if (op === '=') {
    const rc = c.convertTo(r, l.t, rn, cx);
    const v = rc.ev;
    const lv = l.lv;
    if (lv.k === 'slot' && lv.depth === 0) {
      const idx = lv.idx;
      if (lv.num) {
        const vr = vecOf(rc);
        return { t: l.t, ev: (f) => (f.d[idx] = v(f)), vec: vr && vStoreSlot(idx, vr) };
      }
      return { t: l.t, ev: (f) => (f.v[idx] = v(f)) };
    }
    const st = c.storeFn(lv, l.t);
    return {
      t: l.t,
      ev: (f) => {
        const x = v(f);
        st(f, x);
        return x;
      },
    };
  }
  const bop = op.slice(0, -1);
  const rr = { ...r, cv: undefined };
  const nv = l.t.k === 'ptr' ? pointerBinop(c, bop, l, rr, n) : c.convertTo(c.binop(bop, c.rv(l), rr, n), l.t, n);
  return modify(c, l, nv, 'new');
}

/** `T{args}` (`make_index_sequence<N>{}`, `float4{…}`): a temporary of type T. */
function compoundLiteral(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const tn = requiredField(n, 'type');
  const t = tn.type === 'type_descriptor' ? c.typeDescriptor(cx, tn) : c.baseType(cx, tn);
  const init = requiredField(n, 'value');
  if (isNum(t) || t.k === 'ptr') {
    const items = named(init);
    if (items.length > 1) fail(`too many initialisers for a ${typeName(t)}`, init);
    return items.length ? c.convertTo(c.rv(c.expr(cx, items[0])), t, n, cx) : { t, ev: () => (t.k === 'ptr' ? null : 0), cv: t.k === 'ptr' ? undefined : 0 };
  }
  if (t.k !== 'struct' && t.k !== 'arr') unsupported(`a ${typeName(t)} compound literal`, n);
  const m = c.memLocal(cx, `${typeName(t)} temporary`, t);
  const size = sizeOfType(t);
  c.emitExec(cx, n, (f) => f.mem[m].bytes.fill(0, 0, size));
  const self: Fn = (f) => ({ buf: f.mem[m], offset: 0 });
  if (!(t.k === 'struct' && c.construct(cx, self, t.def, init, n)) && named(init).length) c.initAggregate(cx, { k: 'mem', buf: (f) => f.mem[m], off: () => 0 }, t, init, n);
  return { t, ev: self };
}

/**
 * A fold expression over a pack: `(xs + ...)` (right), `(... + xs)` (left), `(xs * ... * 2)` and
 * `(1 + ... + xs)` (with an initial value), `(f(xs), ...)`. An empty pack gives the initial value, or
 * void for `,`. `&&` and `||` folds are not modelled (they short-circuit).
 */
function foldExpression(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  // The `...` itself may stand in the left or right field.
  const side = (x: SyntaxNode | null) => (x && x.isNamed ? x : null);
  const l = side(n.childForFieldName('left'));
  const r = side(n.childForFieldName('right'));
  const op = n.children.find((x) => x && !x.isNamed && x.type !== '...' && x.type !== '(' && x.type !== ')')?.type ?? '';
  if (op === '&&' || op === '||') unsupported(`a fold expression over '${op}'`, n);
  const lPack = !!l && packsIn(c, cx, l).length > 0;
  const rightFold = !!l && (lPack || !r); // the pack is on the left: E op ... [op I]
  const pattern = rightFold ? l! : r!;
  const init = rightFold ? r : l;
  const items = expandPattern(c, cx, pattern, n);
  if (init) {
    const e = c.expr(cx, init);
    if (rightFold) items.push(e);
    else items.unshift(e);
  }
  if (!items.length) {
    if (op === ',') return { t: VOID, ev: () => undefined };
    fail(`a unary fold over '${op}' of an empty pack`, n);
  }
  const combine = (a: Ex, b: Ex): Ex => {
    if (op === ',') {
      const x = a.ev;
      const y = b.ev;
      return { t: b.t, ev: (f) => (x(f), y(f)) };
    }
    return c.binop(op, c.rv(a), c.rv(b), n);
  };
  if (rightFold) {
    let acc = items[items.length - 1];
    for (let i = items.length - 2; i >= 0; i--) acc = combine(items[i], acc);
    return acc;
  }
  let acc = items[0];
  for (let i = 1; i < items.length; i++) acc = combine(acc, items[i]);
  return acc;
}

/** `a op b` where `a`'s struct defines `operator op` as a member (`operator=`, `operator+=`, `operator+`): a call on `a`. */
function memberOperator(c: CompilerContext, cx: FnCx, ln: SyntaxNode, op: string, n: SyntaxNode): ((rn: SyntaxNode) => Ex) | undefined {
  const lt = c.typeOf(cx, ln);
  const md = lt.k === 'struct' ? (lt.def.methods.get(`operator${op}`) as FnDecl[] | undefined) : undefined;
  if (!md) return undefined;
  return (rn) => {
    const l = c.expr(cx, ln);
    return c.callUser(cx, md, [rn], n, undefined, c.addressOf(l, ln));
  };
}

/** An operand of a built-in operator: a struct with a conversion operator to a number or pointer becomes that. */
function viaConversion(c: CompilerContext, cx: FnCx, e: Ex, n: SyntaxNode): Ex {
  e = constantOf(e);
  if (e.t.k !== 'struct' || !e.t.def.conversions?.length) return e;
  const to = e.t.def.conversions.find((x) => x.to.k === 'num' || x.to.k === 'ptr')?.to;
  return to ? c.convertTo(e, to, n, cx) : e;
}

export function cast(c: CompilerContext, cx: FnCx, t: CType, e: Ex, n: SyntaxNode): Ex {
  if (t.k === 'void') return { t: VOID, ev: e.ev, pure: e.pure };
  const r = c.rv(e);
  if (t.k === 'ptr' && r.t.k === 'ptr') return { t, ev: r.ev };
  if (t.k === 'struct' && r.t.k === 'struct' && r.t.def === t.def) return e;
  return c.convertTo(r, t, n, cx);
}

function resultType(a: CType, b: CType): CType {
  if (isNum(a) && isNum(b)) return num(commonType(a.dt, b.dt));
  if (a.k === 'ptr') return a;
  if (b.k === 'ptr') return b;
  return a;
}

/** Whether evaluating `n` may assign (a vector form evaluates what short-circuiting would skip). */
function assigns(n: SyntaxNode): boolean {
  if (n.type === 'assignment_expression' || n.type === 'update_expression' || n.type === 'call_expression') return true;
  for (const k of named(n)) if (assigns(k)) return true;
  return false;
}

function fold(out: Ex, a: Ex): Ex {
  if (a.cv === undefined) return out;
  const v = out.ev(null as unknown as Frame);
  return { t: out.t, ev: () => v, cv: v };
}

function numberLiteral(n: SyntaxNode): Ex {
  // The grammar folds a sign into the literal (`-9223372036854775807LL`): C++ negates the unsigned-magnitude literal.
  const signed = /^\s*([-+])\s*/.exec(n.text);
  if (signed) {
    const pos = literalValue(n, n.text.slice(signed[0].length));
    if (signed[1] === '+' || !isNum(pos.t)) return pos;
    const v = negate(pos.t.dt, () => pos.cv)(undefined);
    return { t: pos.t, ev: () => v, cv: v };
  }
  return literalValue(n, n.text);
}

function literalValue(n: SyntaxNode, written: string): Ex {
  let text = written.replace(/'/g, '');
  const lower = text.toLowerCase();
  const isHex = lower.startsWith('0x');
  const isFloat = !isHex && /[.e]/.test(lower);
  if (isFloat) {
    const f32 = /f$/.test(lower);
    text = text.replace(/[fFlL]+$/, '');
    const v = f32 ? Math.fround(Number(text)) : Number(text);
    const t = f32 ? F32 : F64;
    return { t, ev: () => v, cv: v };
  }
  const suf = /[uUlL]+$/.exec(text)?.[0].toLowerCase() ?? '';
  const digits = text.slice(0, text.length - suf.length);
  let v: number;
  if (isHex) v = Number(digits);
  else if (/^0b/i.test(digits)) v = parseInt(digits.slice(2), 2);
  else if (/^0[0-7]+$/.test(digits)) v = parseInt(digits, 8);
  else v = Number(digits);
  const unsigned = suf.includes('u');
  const long = suf.includes('l');
  let dt: DType;
  if (!long && !unsigned && v <= 0x7fffffff) dt = 's32';
  else if (!long && (unsigned || isHex) && v <= 0xffffffff) dt = 'u32';
  else if (unsigned) dt = 'u64';
  else dt = v <= Number.MAX_SAFE_INTEGER ? 's64' : 'u64';
  if (v > Number.MAX_SAFE_INTEGER) {
    // Beyond 2^53 the value is a bigint (types.ts Int64), parsed from the digits so it stays exact; a
    // signed literal stays signed while it fits (`9223372036854775807LL` is a long long).
    const big = /^0[0-7]+$/.test(digits) ? BigInt(`0o${digits.slice(1)}`) : BigInt(digits);
    if (big >= 18446744073709551616n) throw new SimError(`integer literal ${n.text} does not fit in 64 bits`, locOf(n), 'unsupported');
    const signed = !unsigned && big <= 9223372036854775807n;
    const w = wide(big, signed) as number;
    return { t: literalType(signed ? 's64' : 'u64', suf), ev: () => w, cv: w };
  }
  return { t: literalType(dt, suf), ev: () => v, cv: v };
}

/** An integer literal's type, with the fundamental type C++ gives it (`1L` is a long, `1LL` a long long) for the type traits. */
function literalType(dt: DType, suffix: string): CType {
  const ll = suffix.includes('ll');
  const name = { s32: 'int', u32: 'unsigned int', s64: ll ? 'long long' : 'long', u64: ll ? 'unsigned long long' : 'unsigned long' }[dt as 's32'];
  return name ? withCxx(num(dt), { name }) : num(dt);
}

function stringValue(n: SyntaxNode): string {
  if (n.type === 'concatenated_string') return named(n).map(stringValue).join('');
  let s = '';
  for (const c of named(n)) {
    if (c.type === 'string_content') s += c.text;
    else if (c.type === 'escape_sequence') {
      const e = c.text;
      const map: Record<string, string> = { n: '\n', t: '\t', '\\': '\\', '"': '"', "'": "'", r: '\r', '0': '\0', a: '\x07' };
      if (e[1] === 'x') s += String.fromCharCode(parseInt(e.slice(2), 16));
      else s += map[e[1]] ?? e.slice(1);
    }
  }
  return s;
}

/** threadIdx.x and friends, warpSize. */
function dim3Field(obj: string, field: string): Ex | undefined {
  const j = field === 'x' ? 0 : field === 'y' ? 1 : field === 'z' ? 2 : -1;
  if (j < 0) return undefined;
  const i = j as 0 | 1 | 2;
  switch (obj) {
    case 'threadIdx':
      return { t: U32, ev: (f) => f.ts.t.threadIdx[i], vec: vThreadIndex('threadIdx', i) };
    case 'blockIdx':
      return { t: U32, ev: (f) => f.ts.t.blockIdx[i], vec: vThreadIndex('blockIdx', i) };
    case 'blockDim':
      return { t: U32, ev: (f) => f.ts.m.blockDim[i], vec: vLaunchDim('blockDim', i) };
    case 'gridDim':
      return { t: U32, ev: (f) => f.ts.m.grid[i], vec: vLaunchDim('gridDim', i) };
  }
  return undefined;
}

function builtinIdentifier(name: string): Ex | undefined {
  switch (name) {
    case 'warpSize':
      return { t: S32, ev: () => 32, cv: 32 };
    case 'NULL':
      return { t: { k: 'obj', obj: 'nullptr' }, ev: () => null, cv: 0 };
    case 'INT_MAX':
      return { t: S32, ev: () => 2147483647, cv: 2147483647 };
    case 'INT_MIN':
      return { t: S32, ev: () => -2147483648, cv: -2147483648 };
    case 'UINT_MAX':
      return { t: U32, ev: () => 4294967295, cv: 4294967295 };
    case 'FLT_MAX':
      return { t: F32, ev: () => 3.4028234663852886e38, cv: 3.4028234663852886e38 };
    case 'INFINITY':
      return { t: F32, ev: () => Infinity, cv: Infinity };
    case 'NAN':
      return { t: F32, ev: () => NaN, cv: NaN };
  }
  return undefined;
}
