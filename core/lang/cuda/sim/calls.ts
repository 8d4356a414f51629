// Calls for the CUDA compiler: user functions compiled once per template binding (overloads by
// argument count and exact types, template argument deduction, default arguments), member functions,
// lambdas and callables held in variables, the call instruction that pushes a frame, and dispatch to
// the builtins (builtins.ts) for everything the file does not define.
import { SCALAR_DTYPES } from '../c-types';
import { SimError } from '../../../sim/machine';
import type { SyntaxNode } from '../parser';
import { compileBuiltinCall, compileMethodCall } from './builtins';
import { type CallTarget, type CompilerContext, type Ex, type Fn, FnCx, type FnDecl, type FnInst, freshId, type LambdaInfo, ownerOf } from './context';
import { type Closure, envOf, FRAME, Frame, selfOf } from './runtime';
import { enclosingFunction, fail, findFunctionDeclarator, innermostName, lastName, locOf, missingIncludesNote, named, unsupported, requiredField } from './syntax';
import { keptSnippet } from './snippets';
import { applyDefaults, bindTemplateArgs, callArgs, isAliasTemplate, packElem, packLen, packLength, packsIn, spellType, templateParams, templateScope, withPackElement } from './templates';
import { CONSTRAINT_UNSATISFIED } from './concepts';
import { isNumericLimits, numericLimitsCall } from './numeric-limits';
import { fromExpression, isSubstitutionFailure, scopeOf, withCxx } from './type-traits';
import { type CType, decay, num, ptr, sameType, type StructDef, typeName, VOID } from './types';

/** Compiles (once per template binding) a user function. */
export function instantiate(c: CompilerContext, decl: FnDecl, tbind: Map<string, CType | number>, at: SyntaxNode): FnInst {
  c.prepareFileScope();
  // Spelled with cv-qualifiers and references: `T = const int` and `T = int` may answer a trait differently.
  const key = `${decl.owner?.name ?? ''}::${decl.name}@${decl.node.startIndex}<${[...tbind].map(([k, v]) => `${k}=${typeof v === 'number' ? v : spellType(v, true)}`).join(',')}>`;
  const have = c.instances.get(key);
  if (have) return have;
  const fd = findFunctionDeclarator(requiredField(decl.node, 'declarator'))!;
  const cx = new FnCx(decl.owner ? `${decl.owner.name}::${decl.name}` : decl.name, null, tbind, decl.owner, locOf(decl.node, decl.name));
  // Template arguments with their declared types, and an out-of-class member's names for its class's arguments.
  for (const [k, v] of decl.outer ?? []) cx.scopes[0].set(k, v);
  if (decl.tparams && tbind.size) for (const [k, v] of templateScope(c, templateParams(decl.tparams, c), tbind)) cx.scopes[0].set(k, v);
  cx.host = !!c.host && isHostFunction(decl);
  const inst: FnInst = { decl, fn: cx.fn, ret: VOID, params: [] };
  c.instances.set(key, inst);
  try {
    compileFunction(c, decl, cx, inst, fd, at);
  } catch (e) {
    c.instances.delete(key);
    // Compiled on behalf of a call: the report names the call sites that led here, outermost first.
    if (e instanceof SimError && e.loc && at !== decl.node) (e.callSites ??= []).unshift(locOf(at, enclosingFunction(at)));
    throw e;
  }
  return inst;
}

/** A function host code runs: neither `__global__` nor `__device__` (a `__host__ __device__` one counts as device code). */
function isHostFunction(decl: FnDecl): boolean {
  if (decl.owner?.name.startsWith('std::')) return true;
  const body = decl.node.childForFieldName('body');
  const head = decl.node.text.slice(0, body ? body.startIndex - decl.node.startIndex : undefined);
  return !/\b__(global|device)__\b/.test(head);
}

function compileFunction(c: CompilerContext, decl: FnDecl, cx: FnCx, inst: FnInst, fd: SyntaxNode, at: SyntaxNode): void {
  const decln = decl.node.childForFieldName('declarator');
  const tn = decl.node.childForFieldName('type') ?? (decln?.type === 'operator_cast' ? decln.childForFieldName('type') : null);
  let ret = tn ? c.baseType(cx, tn) : VOID;
  // Pointer/reference return declarators wrap the function declarator.
  for (let d = decl.node.childForFieldName('declarator'); d && d !== fd; d = d.childForFieldName('declarator') ?? named(d)[0] ?? null) {
    if (d.type === 'pointer_declarator') ret = ptr(ret);
  }
  if (ret.k === 'obj' && ret.obj === 'tag' && ret.n === -1) {
    cx.retDeduce = true;
    ret = VOID;
  }
  cx.ret = ret;
  inst.ret = ret;
  c.scanAddressTaken(decl.node, cx.addrTaken);
  for (const p of named(requiredField(fd, 'parameters'))) {
    if (p.type === 'variadic_parameter') unsupported('variadic function', p);
    if (p.type === 'variadic_parameter_declaration') {
      packParams(c, cx, inst, p);
      continue;
    }
    if (p.type !== 'parameter_declaration' && p.type !== 'optional_parameter_declaration') continue;
    const ptn = requiredField(p, 'type');
    const base = c.baseType(cx, ptn);
    const dn = p.childForFieldName('declarator');
    if (!dn || dn.type.startsWith('abstract_')) {
      // An unnamed parameter (`T const &`, CUTLASS's __CUTLASS_UNUSED): passed, never read.
      if (!dn && base.k === 'void') continue;
      const ref = dn?.type === 'abstract_reference_declarator';
      inst.params.push({ name: '', type: dn?.type === 'abstract_pointer_declarator' ? ptr(base) : base, ref });
      cx.slot();
      continue;
    }
    const info = c.declarator(cx, base, dn);
    const type = info.type.k === 'arr' && !info.ref ? ptr(info.type.of) : info.type;
    inst.params.push({ name: info.name, type, ref: info.ref });
    c.declareParam(cx, info.name, type, info.ref, p);
  }
  const body = decl.node.childForFieldName('body');
  if (!body) unsupported(`function ${decl.name} has no body`, at);
  if (decl.ctor && decl.owner) c.emitFieldInits(cx, decl.owner, named(decl.node).find((x) => x.type === 'field_initializer_list'));
  c.block(cx, body);
  // The implicit return at the closing brace: where a thread that runs off the end is (and a CTA exits).
  c.emitReturn(cx, undefined, body.lastChild?.type === '}' ? body.lastChild : body);
  inst.ret = cx.ret;
  cx.finish();
}

/**
 * A function parameter pack (`Ts... xs`, `Args&... args`, `float&... d`): one parameter per element of
 * the template pack its type names, `xs#0`, `xs#1`, …, and its length as `...xs` (sizeof..., expansions).
 */
function packParams(c: CompilerContext, cx: FnCx, inst: FnInst, p: SyntaxNode): void {
  const tn = requiredField(p, 'type');
  const dn = p.childForFieldName('declarator');
  let ref = false;
  let cur: SyntaxNode | null | undefined = dn;
  while (cur && cur.type !== 'variadic_declarator') {
    if (cur.type === 'reference_declarator') ref = true;
    else unsupported(`parameter pack declarator '${dn!.text}'`, cur);
    cur = named(cur)[0];
  }
  const name = cur ? (named(cur).find((x) => x.type === 'identifier')?.text ?? '') : '';
  const packs = packsIn(c, cx, tn);
  // `float&... d` (no template pack in its type) is not a pack C++ can deduce from a call.
  if (!packs.length) unsupported(`parameter pack '${p.text}' whose type names no template parameter pack`, p);
  const len = packLength(c, cx, packs, p);
  for (let i = 0; i < len; i++) {
    const type = withPackElement(cx, packs, i, c, () => c.baseType(cx, tn));
    const pt = type.k === 'arr' && !ref ? ptr(type.of) : type;
    inst.params.push({ name: name ? `${name}#${i}` : '', type: pt, ref });
    if (name) c.declareParam(cx, packElem(name, i), pt, ref, p);
    else cx.slot();
  }
  if (name) cx.scopes[0].set(packLen(name), { k: 'const', type: num('u64'), value: len });
}

/** Calls a user function or lambda: arguments evaluated, frame pushed; the result lands in a temp. */
export function emitCall(c: CompilerContext, cx: FnCx, n: SyntaxNode, target: CallTarget, args: Ex[], self?: Fn, env?: Fn): Ex {
  const dst = cx.slot();
  const argFns = args.map((a, i) => {
    const p = target.params[i];
    if (!p) return a.ev;
    // An unnamed reference parameter is never read through: a register variable binds to a copy.
    if (p.ref && !p.name && a.lv?.k === 'slot') return c.addressOf({ t: a.t, ev: a.ev }, n);
    if (p.ref) return c.addressOf(a.t.k === 'struct' && a.t.def.conversions && (p.type.k === 'num' || p.type.k === 'ptr') ? c.convertTo(a, p.type, n, cx) : a, n);
    return c.convertTo(a, p.type, n, cx).ev;
  });
  const nargs = argFns.length;
  const next = cx.code.length + 1;
  c.emit(cx, n, (f) => {
    const nf = Frame.enter(target.fn(), f.ts, f);
    for (let i = 0; i < nargs; i++) nf.v[i] = argFns[i](f);
    if (self) nf.self = self(f);
    if (env) nf.env = env(f);
    nf.retSlot = dst;
    f.pc = next;
    f.ts.frame = nf;
    return FRAME;
  });
  return { t: target.ret, ev: (f) => f.v[dst], pure: true };
}

/**
 * The static member function a call names through its class: a class template instantiation
 * (`SM90::GMMA::MMA_64x8x16_F32F16F16_SS<Major::K, Major::K>::fma`, CuTe's MMA atoms) or an alias of one
 * (`using Atom = …; Atom::fma(…)`), if it names one.
 */
function staticMemberOfTemplate(c: CompilerContext, cx: FnCx, callee: SyntaxNode): FnDecl[] | undefined {
  if (callee.type !== 'qualified_identifier') return undefined;
  // `ns::Sel<64>::type::wgmma`: each scope in turn, a struct's member typedef after the struct.
  let q = callee;
  let def: StructDef | undefined;
  for (;;) {
    const scope = q.childForFieldName('scope');
    if (!scope || (scope.type !== 'template_type' && scope.type !== 'type_identifier' && scope.type !== 'namespace_identifier')) return undefined;
    if (def) {
      const m = def.members?.get(scope.text);
      def = m?.k === 'type' && m.type.k === 'struct' ? m.type.def : c.scopeStruct(cx, scope); // or a nested struct, by its name
    } else def = c.scopeStruct(cx, scope);
    const inner = q.childForFieldName('name');
    if (inner?.type !== 'qualified_identifier') break;
    q = inner;
  }
  const name = q.childForFieldName('name');
  if (!name) return undefined;
  const method = name.type === 'template_function' ? name.childForFieldName('name')?.text : name.text;
  return method ? (def?.methods.get(method) as FnDecl[] | undefined) : undefined;
}

/** The scalar type a name denotes (`int32_t`, `uint64_t`, a typedef or enum), for functional casts. */
function namedScalarType(c: CompilerContext, cx: FnCx, name: string): CType | undefined {
  const s = c.lookup(cx, name);
  if (s?.sym.k === 'type') return s.sym.type.k === 'num' ? s.sym.type : undefined;
  const dt = SCALAR_DTYPES[name.replace(/^(std|cuda::std)::/, '')];
  return dt ? num(dt) : undefined;
}

export function call(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  if (cx.host && c.host) {
    const launch = c.host.expr(c, cx, n);
    if (launch) return launch;
  }
  const fnNode = requiredField(n, 'function');
  const argsNode = requiredField(n, 'arguments');
  const argNodes = named(argsNode);
  let targs: SyntaxNode[] | undefined;
  let callee = fnNode;
  if (callee.type === 'qualified_identifier') {
    const inner = innermostName(callee);
    if (inner.type === 'template_function') {
      targs = named(requiredField(inner, 'arguments'));
    }
  }
  if (callee.type === 'template_function') {
    targs = named(requiredField(callee, 'arguments'));
    callee = requiredField(callee, 'name');
  }
  if (callee.type === 'field_expression') return methodCall(c, cx, callee, argNodes, n, targs);
  const made = temporaryObject(c, cx, callee, targs, requiredField(n, 'arguments'), n);
  if (made) return made;
  const limits = numericLimitsMember(c, cx, callee, argNodes.length, n);
  if (limits) return limits;
  const member = staticMemberOfTemplate(c, cx, callee);
  if (member) return c.callUser(cx, member, argNodes, n, targs);
  if (/^(static_cast|reinterpret_cast|const_cast|bit_cast|std::bit_cast|cuda::std::bit_cast)$/.test(callee.text) && targs?.length === 1 && argNodes.length === 1) {
    const t = targs[0].type === 'type_descriptor' ? c.typeDescriptor(cx, targs[0]) : c.baseType(cx, targs[0]);
    const e = c.expr(cx, argNodes[0]);
    if (/bit_cast/.test(callee.text)) unsupported('bit_cast', n);
    return c.cast(cx, t, e, n);
  }
  // `std::declval<T>()`: only its type means anything (decltype, sizeof); evaluated, the program is ill-formed.
  if (/^(?:(?:::)?(?:std|cuda::std|cute)::)?declval$/.test(callee.text.replace(/\s+/g, '')) && targs?.length === 1 && !argNodes.length && !c.functions.has('declval')) {
    const t = targs[0].type === 'type_descriptor' ? c.typeDescriptor(cx, targs[0]) : c.baseType(cx, targs[0]);
    const text = n.text;
    return {
      t,
      ev: () => {
        throw new SimError(`'${text}' evaluated: std::declval may only appear in unevaluated operands (decltype, sizeof)`);
      },
    };
  }
  // `float(x)`, `unsigned(x)`: a functional cast to an arithmetic type.
  if (argNodes.length === 1 && (callee.type === 'primitive_type' || callee.type === 'sized_type_specifier')) {
    const t = c.baseType(cx, callee);
    if (t.k === 'num') return c.cast(cx, t, c.expr(cx, argNodes[0]), n);
  }
  if (callee.type === 'parenthesized_expression') {
    // `(T)(x)` with T a type (a template parameter, a typedef): a cast the grammar read as a call.
    const inner = named(callee)[0];
    const s = inner?.type === 'identifier' && argNodes.length === 1 ? c.lookup(cx, inner.text) : undefined;
    if (s?.sym.k === 'type') return c.cast(cx, s.sym.type, c.expr(cx, argNodes[0]), n);
    unsupported('calling through a parenthesised expression', n);
  }
  // `float(t)`, `uint32_t(x)`: a functional-style cast to a scalar type.
  const scalar = argNodes.length === 1 && !targs ? SCALAR_DTYPES[callee.text.trim()] : undefined;
  if (scalar && !c.lookup(cx, callee.text.trim())) return c.cast(cx, num(scalar), c.expr(cx, argNodes[0]), n);
  // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
  const fullName = callee.text.replace(/\s+/g, '').replace(/<[\s\S]*$/, '').replace(/^::/, '');
  const name = lastName(fullName);
  // A lambda or callable held in a variable.
  if (callee.type === 'identifier') {
    const s = c.lookup(cx, name);
    if (s && s.sym.k === 'var' && s.sym.type.k === 'lambda') {
      const info = c.lambdas.get(s.sym.type.id)!;
      const cl = c.symbolEx(cx, s.sym, s.depth, name, callee).ev;
      const args = argNodes.map((a) => c.rv(c.expr(cx, a)));
      if (args.length !== info.params.length) fail(`lambda '${name}' takes ${info.params.length} argument(s), got ${args.length}`, n);
      return c.emitCall(cx, n, { fn: () => info.fn, ret: info.ret, params: info.params }, args, undefined, (f) => (cl(f) as Closure).env);
    }
  }
  // Member function called without `this->` inside another member.
  const owner = ownerOf(cx);
  if (owner && callee.type === 'identifier') {
    const md = owner.def.methods.get(name) as FnDecl[] | undefined;
    if (md) {
      const d = owner.depth;
      // A static member function calling another has no object to pass on (CUTLASS/DeepGEMM's atoms).
      return c.callUser(cx, md, argNodes, n, targs, (f) => envOf(f, d).self ?? (md.every(isStatic) ? undefined : selfOf(envOf(f, d))));
    }
  }
  const user = c.functions.get(name);
  if (user && !(fullName.startsWith('cuda::') || fullName.startsWith('std::'))) return c.callUser(cx, user, argNodes, n, targs);
  // `int32_t(x)`, `Alias(x)`: a functional cast to a type named by an identifier.
  const castTo = !user && argNodes.length === 1 && !targs ? namedScalarType(c, cx, fullName) : undefined;
  if (castTo) return c.cast(cx, castTo, c.expr(cx, argNodes[0]), n);
  const h = cx.host ? c.host?.call(c, cx, fullName, argNodes, n, targs) : undefined;
  if (h) return h;
  const b = compileBuiltinCall(c, cx, fullName, argNodes, n, targs);
  if (b) return b;
  if (user) return c.callUser(cx, user, argNodes, n, targs);
  const macro = c.functionMacros.get(fullName);
  if (macro) return macroCall(c, cx, macro, argNodes, n);
  // A helper that lives in an include that was not found: say so, it is the likely cause.
  unsupported(`call to '${fullName}'${missingIncludesNote(c.missingIncludes)}`, n);
}

/**
 * `T(args)` where T names a class template instance (`FP8MMA<N, MMA>()`, DeepGEMM's selectors) or a
 * struct: a temporary object of the frame, constructed (or zeroed and brace-initialised) each time.
 */
function temporaryObject(c: CompilerContext, cx: FnCx, callee: SyntaxNode, targs: SyntaxNode[] | undefined, args: SyntaxNode, n: SyntaxNode): Ex | undefined {
  let def: StructDef | undefined;
  if (callee.type !== 'identifier' || c.functions.has(callee.text)) return undefined;
  if (targs) {
    if (c.templateStructs.has(callee.text)) def = c.classTemplate(cx, callee.text, targs, callee);
  } else if (!c.lookup(cx, callee.text)) {
    def = c.structs.get(callee.text) ?? (c.lazyStructs.has(callee.text) ? c.structDef(cx, callee.text, callee) : undefined);
    // A class template whose parameters all have defaults (`MMA_64x64x32_F32E4M3E4M3_SS_TN()`).
    if (!def && c.templateStructs.has(callee.text)) def = c.classTemplate(cx, callee.text, [], callee);
  }
  if (!def) return undefined;
  const t: CType = { k: 'struct', def };
  const m = c.memLocal(cx, `${def.name} temporary`, t);
  const self: Fn = (f) => ({ buf: f.mem[m], offset: 0 });
  const size = def.size;
  c.emitExec(cx, n, (f) => f.mem[m].bytes.fill(0, 0, size));
  if (!c.construct(cx, self, def, args, n) && named(args).length) c.initAggregate(cx, { k: 'mem', buf: (f) => f.mem[m], off: () => 0 }, t, args, n);
  return { t, ev: self };
}

function isStatic(d: FnDecl): boolean {
  return d.node.children.some((x) => x?.type === 'storage_class_specifier' && x.text === 'static');
}

let macroDepth = 0;

/**
 * A function-like macro the front end left unexpanded in device code (`CUTLASS_UNUSED(line)` in
 * CUTLASS's headers, the first definition when #if branches define it twice): its body with the
 * arguments put in, parsed on the invocation's line and compiled there when it is one expression.
 */
function macroCall(c: CompilerContext, cx: FnCx, macro: SyntaxNode, argNodes: SyntaxNode[], n: SyntaxNode): Ex {
  const params = named(requiredField(macro, 'parameters')).map((p) => p.text);
  const body = (macro.childForFieldName('value')?.text ?? '').replace(/\\\n/g, ' ');
  const name = macro.childForFieldName('name')?.text ?? '';
  if (params.some((p) => p === '...') || /#/.test(body)) unsupported(`macro ${name} (variadic, # or ## in its body)`, n);
  if (params.length !== argNodes.length) fail(`macro ${name} takes ${params.length} argument(s), got ${argNodes.length}`, n);
  const text = body.replace(/[A-Za-z_]\w*/g, (w) => {
    const i = params.indexOf(w);
    return i < 0 ? w : `(${argNodes[i].text})`;
  });
  const root = keptSnippet(n, `${'\n'.repeat(n.startPosition.row)}void ${name}() { ${text}; }`);
  const stmts = root ? named(named(named(root)[0]).find((x) => x.type === 'compound_statement')!) : [];
  if (stmts.length !== 1 || stmts[0].type !== 'expression_statement' || !named(stmts[0])[0]) unsupported(`macro ${name} (its expansion '${text.trim()}' is not one expression)`, n);
  if (macroDepth > 32) fail(`macro ${name} expands without end`, n);
  macroDepth++;
  try {
    return c.expr(cx, named(stmts[0])[0]);
  } finally {
    macroDepth--;
  }
}

function methodCall(c: CompilerContext, cx: FnCx, callee: SyntaxNode, argNodes: SyntaxNode[], n: SyntaxNode, targs?: SyntaxNode[]): Ex {
  const objNode = requiredField(callee, 'argument');
  // `r.wait<2>()` and `r.template wait<2>()` name a member template with its arguments.
  let fieldNode = requiredField(callee, 'field');
  if (fieldNode.type === 'dependent_name') fieldNode = named(fieldNode)[0] ?? fieldNode;
  if (fieldNode.type === 'template_method') {
    targs = named(requiredField(fieldNode, 'arguments'));
    fieldNode = requiredField(fieldNode, 'name');
  }
  const mname = fieldNode.text;
  const arrow = callee.childForFieldName('operator')?.text === '->';
  const obj = c.expr(cx, objNode);
  let t = obj.t;
  let selfFn: Fn;
  if (arrow) {
    const r = c.rv(obj);
    if (r.t.k !== 'ptr') fail(`'->' on a ${typeName(r.t)}`, callee);
    t = r.t.to;
    selfFn = r.ev;
  } else selfFn = t.k === 'struct' || t.k === 'barrier' ? c.addressOf(obj, objNode) : obj.ev;
  if (t.k === 'struct') {
    const md = t.def.methods.get(mname) as FnDecl[] | undefined;
    if (!md) fail(`${t.def.name} has no member function '${mname}'`, callee);
    return c.callUser(cx, md, argNodes, n, targs, selfFn);
  }
  const b = compileMethodCall(c, cx, t, selfFn, mname, argNodes, n, targs, arrow ? undefined : obj);
  if (b) return b;
  unsupported(`member function '${mname}' of ${typeName(t)}`, n);
}

/**
 * `obj.f<K>(args)` where the grammar read `(obj.f < K) > (args)`: a call of member template `f`
 * when `obj`'s struct has one by that name (C++ knows the type; the grammar does not).
 */
export function misparsedTemplateCall(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex | undefined {
  const l = n.childForFieldName('left');
  const r = n.childForFieldName('right');
  if (n.childForFieldName('operator')?.text !== '>' || l?.type !== 'binary_expression' || l.childForFieldName('operator')?.text !== '<' || r?.type !== 'parenthesized_expression') return undefined;
  const fe = l.childForFieldName('left');
  if (fe?.type !== 'field_expression' || fe.childForFieldName('field')?.type !== 'field_identifier') return undefined;
  let t = c.typeOf(cx, requiredField(fe, 'argument'));
  if (fe.childForFieldName('operator')?.text === '->') t = t.k === 'ptr' ? t.to : VOID;
  if (t.k !== 'struct') return undefined;
  const md = t.def.methods.get(requiredField(fe, 'field').text) as FnDecl[] | undefined;
  if (!md?.some((d) => d.tparams)) return undefined;
  const args: SyntaxNode[] = [];
  const flatten = (a: SyntaxNode | undefined): void => {
    if (!a) return;
    if (a.type === 'comma_expression') {
      flatten(a.childForFieldName('left') ?? undefined);
      flatten(a.childForFieldName('right') ?? undefined);
    } else args.push(a);
  };
  flatten(named(r)[0]);
  return methodCall(c, cx, fe, args, n, [requiredField(l, 'right')]);
}

/** `std::numeric_limits<T>::max()` and its kin: a constant, or undefined when the callee is not one. */
function numericLimitsMember(c: CompilerContext, cx: FnCx, callee: SyntaxNode, argCount: number, n: SyntaxNode): Ex | undefined {
  if (callee.type !== 'qualified_identifier') return undefined;
  let q = callee;
  while (q.childForFieldName('name')?.type === 'qualified_identifier') q = q.childForFieldName('name')!;
  const scope = q.childForFieldName('scope');
  const fn = q.childForFieldName('name');
  if (scope?.type !== 'template_type' || fn?.type !== 'identifier' || !isNumericLimits(c, scopeOf(scope), scope.childForFieldName('name')?.text ?? '')) return undefined;
  const args = named(requiredField(scope, 'arguments'));
  if (args.length !== 1) fail('std::numeric_limits takes one template argument', scope);
  const t = args[0].type === 'type_descriptor' ? c.typeDescriptor(cx, args[0]) : c.baseType(cx, args[0]);
  return numericLimitsCall(t, fn.text, argCount, n);
}

/** Picks an overload by argument count, deduces template arguments, compiles and calls it. */
export function callUser(c: CompilerContext, cx: FnCx, decls: FnDecl[], argNodes: SyntaxNode[], n: SyntaxNode, targs?: SyntaxNode[], self?: Fn): Ex {
  const args = callArgs(c, cx, argNodes);
  const fits = decls.filter((d) => {
    const fd = findFunctionDeclarator(requiredField(d.node, 'declarator'));
    const all = fd ? named(requiredField(fd, 'parameters')) : [];
    const ps = all.filter((p) => p.type === 'parameter_declaration' || p.type === 'optional_parameter_declaration');
    const required = ps.filter((p) => p.type === 'parameter_declaration' && !(p.namedChildCount === 1 && p.text === 'void')).length;
    const variadic = all.some((p) => p.type === 'variadic_parameter_declaration');
    return (variadic || args.length <= ps.length) && args.length >= required;
  });
  if (!fits.length) fail(`no overload of '${decls[0].name}' takes ${args.length} argument(s)`, n);
  // Explicit template arguments name a template.
  if (targs && fits.length > 1 && fits.some((d) => d.tparams)) fits.splice(0, fits.length, ...fits.filter((d) => d.tparams));
  // Prefer an overload whose parameter types match exactly (simple overload resolution).
  let decl = fits[0];
  if (fits.length > 1) {
    for (const d of fits) {
      if (d.tparams) continue;
      try {
        const inst = c.instantiate(d, new Map(), n);
        if (inst.params.every((p, i) => !args[i] || sameType(decay(p.type), decay(c.rv(args[i]).t)))) {
          decl = d;
          break;
        }
      } catch {
        /* try the next */
      }
    }
  }
  let tbind = new Map<string, CType | number>();
  if (decl.tparams) {
    // SFINAE: a template whose substitution fails (a false enable_if among its template parameters) is not a
    // candidate; the next one that fits is tried. A failure in the body is an error, as in C++.
    // A deduction failure removes a candidate the same way; a non-template that fits is the last resort.
    // Among templates constrained by concepts C++ takes the most constrained; the simulator stops if two are viable.
    const candidates = [decl, ...fits.filter((d) => d !== decl && d.tparams)];
    const fallback = fits.find((d) => !d.tparams);
    const failures: string[] = [];
    const constrained = candidates.length > 1 && candidates.some((d) => templateParams(d.tparams!, c).some((p) => p.constraint));
    let chosen: FnDecl | undefined;
    for (const d of candidates) {
      const b = new Map<string, CType | number>();
      const params = templateParams(d.tparams!, c);
      try {
        bindTemplate(c, cx, d, b, args, n, targs);
        templateScope(c, params, b);
      } catch (e) {
        const removable = e instanceof SimError && (isSubstitutionFailure(e) || e.message.includes(CONSTRAINT_UNSATISFIED) || /^cannot deduce /.test(e.message));
        if (!removable || (candidates.length === 1 && !fallback)) throw e;
        failures.push(e.message);
        continue;
      }
      if (chosen) unsupported(`choosing between overloads of '${decl.name}' constrained by concepts (more than one is viable: the most constrained one is not worked out)`, n);
      chosen = d;
      tbind = b;
      if (!constrained) break;
    }
    if (!chosen && !fallback) fail(`no overload of '${decl.name}' is viable: ${failures.join('; ')}`, n);
    decl = chosen ?? fallback!;
  }
  const inst = c.instantiate(decl, tbind, n);
  const pargs = args.map((a, i) => (inst.params[i]?.ref ? a : c.rv(a)));
  // Default arguments.
  const fd = findFunctionDeclarator(requiredField(decl.node, 'declarator'))!;
  const ps = named(requiredField(fd, 'parameters')).filter((p) => p.type === 'parameter_declaration' || p.type === 'optional_parameter_declaration');
  for (let i = args.length; i < ps.length; i++) {
    const dv = ps[i].childForFieldName('default_value');
    if (!dv) fail(`missing argument ${i + 1} of '${decl.name}'`, n);
    pargs.push(c.expr(cx, dv));
  }
  return c.emitCall(cx, n, { fn: () => inst.fn, ret: inst.ret, params: inst.params }, pargs, self);
}

function bindTemplate(c: CompilerContext, cx: FnCx, decl: FnDecl, tbind: Map<string, CType | number>, args: Ex[], n: SyntaxNode, targs?: SyntaxNode[]): void {
  const params = templateParams(decl.tparams!, c);
  bindTemplateArgs(c, cx, params, targs ?? [], decl.name, n, tbind);
  // Deduce the rest from the function parameters.
  const names = params.map((p) => ({ name: p.name, type: p.kind === 'type' }));
  const fd = findFunctionDeclarator(requiredField(decl.node, 'declarator'))!;
  const ps = named(requiredField(fd, 'parameters')).filter((p) => p.type === 'parameter_declaration' || p.type === 'optional_parameter_declaration');
  ps.forEach((p, i) => {
    const a = args[i];
    if (!a) return;
    deduce(c, requiredField(p, 'type'), p.childForFieldName('declarator'), a.t, names, tbind, { lvalue: !!a.lv, constParam: named(p).some((x) => x.type === 'type_qualifier' && x.text === 'const') });
  });
  // A trailing function parameter pack (`Ts&... xs`) takes the remaining arguments, one element each.
  const packParam = named(requiredField(fd, 'parameters')).find((p) => p.type === 'variadic_parameter_declaration');
  const tpack = packParam && params.find((p) => p.pack && p.kind === 'type' && requiredField(packParam, 'type').text.replace(/\s+/g, '').replace(/const|&|\*/g, '') === p.name);
  if (packParam && tpack && !tbind.has(packLen(tpack.name))) {
    const rest = args.slice(ps.length);
    rest.forEach((a, j) => {
      const one = new Map<string, CType | number>();
      deduce(c, requiredField(packParam, 'type'), packParam.childForFieldName('declarator'), a.t, [{ name: tpack.name, type: true }], one, { lvalue: !!a.lv, constParam: named(packParam).some((x) => x.type === 'type_qualifier' && x.text === 'const') });
      const t = one.get(tpack.name);
      if (t === undefined) fail(`cannot deduce element ${j} of pack '${tpack.name}' of '${decl.name}'`, n);
      tbind.set(packElem(tpack.name, j), t);
    });
    tbind.set(packLen(tpack.name), rest.length);
  }
  const missing = applyDefaults(c, params, tbind, n);
  if (missing.length) fail(`cannot deduce template argument '${missing[0]}' of '${decl.name}'`, n);
}

/**
 * `f(Seq<Is...>)` with `template <int... Is> using Seq = std::integer_sequence<int, Is...>`: deduces from the
 * aliased type with the alias's parameters, then gives each deduced value to the name written in its place
 * (only plain names and packs, `Seq<T, Is...>`, are arguments deduction can see through).
 */
function deduceThroughAlias(c: CompilerContext, written: SyntaxNode, alias: SyntaxNode, arg: CType, names: { name: string; type: boolean }[], out: Map<string, CType | number>, how: { lvalue: boolean; constParam: boolean }): void {
  const list = alias.parent?.childForFieldName('parameters');
  const aliased = alias.childForFieldName('type');
  const target = aliased?.type === 'type_descriptor' && !aliased.childForFieldName('declarator') ? aliased.childForFieldName('type') : null;
  if (!list || !target) return;
  const params = templateParams(list, c);
  const argNodes = named(requiredField(written, 'arguments'));
  const inner = new Map<string, CType | number>();
  deduce(c, target, null, arg, params.map((p) => ({ name: p.name, type: p.kind === 'type' })), inner, how);
  params.forEach((p, i) => {
    const a = argNodes[i]?.text.replace(/\s+/g, '');
    if (!a) return;
    const mine = a.endsWith('...') ? a.slice(0, -3) : a;
    if (!names.some((x) => x.name === mine)) return;
    if (p.pack) {
      const len = inner.get(packLen(p.name));
      if (typeof len !== 'number' || out.has(packLen(mine))) return;
      for (let j = 0; j < len; j++) out.set(packElem(mine, j), inner.get(packElem(p.name, j))!);
      out.set(packLen(mine), len);
    } else if (inner.has(p.name) && !out.has(mine)) out.set(mine, inner.get(p.name)!);
  });
}

export function lambda(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const id = freshId();
  const name = `lambda@${n.startPosition.row + 1}`;
  const lcx = new FnCx(name, cx, new Map(), undefined, locOf(n, name));
  lcx.host = cx.host;
  const info: LambdaInfo = { id, fn: lcx.fn, ret: VOID, params: [] };
  c.lambdas.set(id, info);
  const decl = n.childForFieldName('declarator');
  const body = requiredField(n, 'body');
  c.scanAddressTaken(body, lcx.addrTaken);
  const params = decl?.childForFieldName('parameters');
  if (params)
    for (const p of named(params)) {
      if (p.type !== 'parameter_declaration') continue;
      const tn = requiredField(p, 'type');
      if (tn.type === 'placeholder_type_specifier') unsupported('a generic lambda (auto parameter)', p);
      const base = c.baseType(lcx, tn);
      const dn = p.childForFieldName('declarator');
      const info2 = dn ? c.declarator(lcx, base, dn) : { name: '', type: base, ref: false };
      const type = info2.type.k === 'arr' ? ptr(info2.type.of) : info2.type;
      info.params.push({ name: info2.name, type, ref: info2.ref });
      c.declareParam(lcx, info2.name, type, info2.ref, p);
    }
  const rt = decl?.childForFieldName('type') ?? named(decl ?? n).find((x) => x.type === 'trailing_return_type');
  if (rt) lcx.ret = c.typeDescriptor(lcx, rt.type === 'trailing_return_type' ? named(rt)[0] : rt);
  else lcx.retDeduce = true;
  c.block(lcx, body);
  c.emitReturn(lcx, undefined, body);
  info.ret = lcx.ret;
  lcx.finish();
  // The closure captures the enclosing function's frame: its frames are never reused (Frame.release).
  cx.fn.capturesFrame = true;
  return { t: { k: 'lambda', id }, ev: (f) => ({ fn: info.fn, env: f }) satisfies Closure };
}

/**
 * Deduces template arguments from one function parameter and its argument's type. A deduced type comes from an
 * expression, whose cv-qualifiers the compiler does not keep: it is marked so (type-traits.ts), exact where C++
 * drops them anyway (by value: top-level cv; `const T&`: T's own cv). `T&&` given an lvalue deduces `A&`.
 */
function deduce(c: CompilerContext, tn: SyntaxNode, decl: SyntaxNode | null, arg: CType, names: { name: string; type: boolean }[], out: Map<string, CType | number>, how: { lvalue: boolean; constParam: boolean }): void {
  const tname = tn.text.replace(/\s+/g, '');
  const isParam = names.find((x) => x.type && x.name === tname);
  // Walk the declarator to the identifier, peeling pointers from the argument type.
  let t = arg;
  let ref = false;
  let refText = '';
  let arrN: SyntaxNode | null = null;
  let cur = decl;
  while (cur && cur.type !== 'identifier') {
    if (cur.type === 'pointer_declarator') {
      if (t.k === 'ptr') t = t.to;
      else if (t.k === 'arr') t = t.of;
      else return;
    } else if (cur.type === 'reference_declarator') {
      ref = true;
      refText = cur.text.trimStart().startsWith('&&') ? '&&' : '&';
    }
    else if (cur.type === 'array_declarator') {
      arrN = cur.childForFieldName('size');
      if (t.k === 'arr') {
        if (arrN?.type === 'identifier' && names.some((x) => !x.type && x.name === arrN!.text)) out.set(arrN.text, t.n);
        t = t.of;
      }
    }
    cur = cur.childForFieldName('declarator') ?? named(cur).find((x) => x.type.endsWith('declarator') || x.type === 'identifier') ?? null;
  }
  if (isParam && !out.has(tname)) {
    let d: CType;
    if (!ref) d = fromExpression(decay(t), { top: false });
    else if (refText === '&&' && !how.constParam && how.lvalue) d = withCxx(fromExpression(t, { top: true }), { ref: '&' });
    else d = fromExpression(t, { top: !how.constParam && refText === '&' });
    out.set(tname, d);
  }
  // `Ring<S>& r` given a Ring<4>: S is 4 (and a `Ring<T>` gives T); `ns::Ring<S>` alike.
  while (tn.type === 'qualified_identifier' && tn.childForFieldName('name')) tn = tn.childForFieldName('name')!;
  const tmplName = tn.type === 'template_type' ? tn.childForFieldName('name')?.text : undefined;
  if (tmplName && isAliasTemplate(c, tmplName)) {
    deduceThroughAlias(c, tn, c.aliasTemplates.get(tmplName)!, t, names, out, how);
    return;
  }
  const seq = tmplName === 'integer_sequence' && t.k === 'struct' && t.def.template?.name === 'index_sequence';
  if (tn.type === 'template_type' && t.k === 'struct' && (t.def.template?.name === tmplName || seq)) {
    // `integer_sequence<T, I...>` names the element type first; the simulator's sequences carry the values only.
    const argNodes = named(requiredField(tn, 'arguments')).slice(seq ? 1 : 0);
    argNodes.forEach((a, i) => {
      const name = a.text.replace(/\s+/g, '');
      // A pack expansion (`Idx...`) takes the remaining arguments.
      const pack = name.endsWith('...') ? name.slice(0, -3) : undefined;
      if (pack && names.some((x) => x.name === pack) && !out.has(packLen(pack))) {
        const rest = t.def.template!.args.slice(i);
        rest.forEach((v, j) => out.set(packElem(pack, j), v));
        out.set(packLen(pack), rest.length);
        return;
      }
      const v = t.def.template!.args[i];
      if (v !== undefined && names.some((x) => x.name === name) && !out.has(name)) out.set(name, v);
    });
  }
}
