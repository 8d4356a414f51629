// What every group of builtins compiles its operands with: the call's context, arguments as numbers,
// pointers and barriers, cuda::ptx tag arguments dropped, the wait mode of a try_wait/test_wait, and
// the table form of a group (`cases`), which keys each handler by the builtin names it serves.
import type { SyntaxNode } from '../parser';
import type { SimBarrier } from '../../../sim/machine';
import { barrierAt, type WaitMode } from './barrier-runtime';
import type { CompilerContext, Ex, Fn, FnCx } from './context';
import type { Frame } from './runtime';
import { fail } from './syntax';
import { type CType, isNum, num, ptr, typeName, VOID } from './types';

/** A builtin call being compiled: the compiler, the function it is in, and the call's node. */
export interface BuiltinCx {
  c: CompilerContext;
  cx: FnCx;
  n: SyntaxNode;
}

/**
 * Compiles a call of a free builtin (`name` without its namespace `ns`), or gives undefined when
 * this form of the call is not modelled, leaving the caller to report it.
 */
export type FreeBuiltin = (k: BuiltinCx, name: string, ns: string, a: SyntaxNode[], targs?: SyntaxNode[]) => Ex | undefined;

/** Compiles a call of a member function of a library object (`self` evaluates to the object). */
export type MethodBuiltin = (k: BuiltinCx, t: CType, self: Fn, name: string, a: SyntaxNode[], obj?: Ex) => Ex | undefined;

/** Table entries that share one handler, the way case labels share one body. */
export function cases<H>(names: string[], handler: H): Record<string, H> {
  return Object.fromEntries(names.map((name) => [name, handler]));
}

/** Compiles call arguments as rvalues. */
export function args(k: BuiltinCx, nodes: SyntaxNode[]): Ex[] {
  return nodes.map((a) => k.c.rv(k.c.expr(k.cx, a)));
}

/** An operand converted to a number of type `dt`. */
export function asNum(k: BuiltinCx, e: Ex, dt: Parameters<typeof num>[0] = 's64'): Fn {
  return k.c.convertTo(e, num(dt), k.n, k.cx).ev;
}

/** An operand as a pointer (integers are generic addresses; barriers and structs their storage). */
export function asPtr(k: BuiltinCx, e: Ex): Fn {
  if (e.t.k === 'ptr' || (e.t.k === 'obj' && e.t.obj === 'nullptr')) return e.ev;
  if (e.t.k === 'barrier' || e.t.k === 'struct') return k.c.addressOf(e, k.n);
  if (isNum(e.t)) return k.c.convertTo(e, ptr(VOID), k.n).ev;
  fail(`expected a pointer, got ${typeName(e.t)}`, k.n);
}

/** A barrier operand: pointer to the mbarrier word, or a cuda::barrier object. */
export function barArg(k: BuiltinCx, node: SyntaxNode, what: string): (f: Frame) => SimBarrier {
  const e = k.c.expr(k.cx, node);
  let p: Fn;
  if (e.t.k === 'barrier' || e.t.k === 'struct') p = k.c.addressOf(e, node);
  else p = asPtr(k, k.c.rv(e));
  return (f) => barrierAt(f.ts.m, p(f), what);
}

/** The arguments without cuda::ptx tags (sem_release, scope_cta …), which select overloads only. */
export function noTags(k: BuiltinCx, nodes: SyntaxNode[]): SyntaxNode[] {
  return nodes.filter((a) => !/(^|::)(sem|scope|space|op|cta_group)_\w+$/.test(a.text.replace(/\s+/g, '')));
}

/** The value of a call evaluated for its effect. */
export function unit(f: Frame): number {
  void f;
  return 0;
}

/** A compiled value of type `t`. */
export const V = (ev: Fn, t: CType = VOID): Ex => ({ t, ev });

/** How a try_wait waits: it blocks when its loop retries it, else probes once or up to a time-limit hint. */
export function retryMode(k: BuiltinCx, hint: Fn | undefined): WaitMode | ((f: Frame) => WaitMode) {
  const retried = k.cx.retryProbe && k.cx.retryProbe.startIndex === k.n.startIndex && k.cx.retryProbe.endIndex === k.n.endIndex;
  if (retried) return 'block';
  // A lone try_wait may return false after a system-dependent time limit; an H100 returned before a
  // 256-byte bulk copy landed (test/fixtures/sim/gpu/bug_try_wait_unchecked.cu), so model the
  // limit as zero: one probe, and the program must check the result.
  if (!hint) return 'probe';
  return (f) => Math.max(1, Math.floor(hint(f)));
}

/** The wait mode at run time (fixed, or from a time-limit hint). */
export function modeOf(m: WaitMode | ((f: Frame) => WaitMode), f: Frame): WaitMode {
  return typeof m === 'function' ? m(f) : m;
}

/** A cuda::ptx function: its handler sees the arguments without tags. */
export function ptxForm(handler: FreeBuiltin): FreeBuiltin {
  return (k, name, ns, a, targs) => handler(k, name, ns, noTags(k, a), targs);
}
