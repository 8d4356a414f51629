// The lowering's bookkeeping (lower.ts): scopes binding source names, the frame of one function body being
// lowered (the kernel or an inlined helper), the per-kernel state, and what lowering an expression yields.
import type { Range } from '../../api';
import type { AsmInstruction, BarrierDecl, BarrierOp, Expr, Stmt } from '../../ir/types';
import type { SyntaxNode } from './parser';
import type { FnDef } from './scan';

/** What a source name stands for: a folded expression, a local (by IR name), a lambda, or a local type alias. */
export type Binding = { kind: 'expr'; expr: Expr } | { kind: 'local'; irName: string } | { kind: 'lambda'; node: SyntaxNode } | { kind: 'type'; node: SyntaxNode };

export class Scope {
  private readonly vars = new Map<string, Binding>();
  constructor(readonly parent?: Scope) {}
  get(name: string): Binding | undefined {
    return this.vars.get(name) ?? this.parent?.get(name);
  }
  set(name: string, b: Binding): void {
    this.vars.set(name, b);
  }
}

/** Per-invocation state of one function body being lowered (the kernel or an inlined helper). */
export interface Frame {
  fn: FnDef;
  scope: Scope;
  /** Probe ops (try_wait/test_wait) and arrive ops whose result lives in a local, by IR name. */
  resultVars: Map<string, BarrierOp[]>;
  /** Ops whose result is returned by this function. */
  returned: BarrierOp[];
  /** Local aliases: IR name -> the expression it was initialised with (for barrier pointers). */
  aliases: Map<string, Expr>;
  depth: number;
  /**
   * In an inlined member function: the object it was called on. Names the body does not declare are
   * its members (`stage` is `ring.stage`); what the body assigns to them is recorded as an unknown
   * change of the object, since the IR tracks variables, not fields.
   */
  self?: { expr: Expr; lvalue?: string };
}

export interface KernelState {
  decls: Map<string, BarrierDecl>;
  names: Set<string>;
  stack: string[];
  /** Helpers inlined so far. */
  used: Set<string>;
  /** Calls that may be barrier operations but resolve to nothing known, by callee (first call site). */
  notUnderstood: Map<string, { what: string; range: Range }>;
  /** Barrier-family instructions of literal asm strings, as written (for the PTX spelling check). */
  asmInstructions: AsmInstruction[];
}

/** What lowering an expression yields. */
export interface ExprResult {
  /** Ops (and syncs) the evaluation performs, in order. */
  stmts: Stmt[];
  /** Ops whose result is the value of the expression (token-returning arrives, probes). */
  valueOps: BarrierOp[];
}
