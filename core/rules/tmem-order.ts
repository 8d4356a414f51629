// Program order of one thread through a kernel's statements, for the tensor-memory (tcgen05) rules: what a
// thread executes after or before a statement, descending into branches and loops it reaches and climbing
// out of the ones around it without entering their other branch (another role's code).
import type { BarrierOp, Expr, Kernel, Stmt } from '../ir/types';

interface Place {
  list: Stmt[];
  index: number;
  owner?: Stmt;
}

/** Where each statement of a kernel sits: its list, its index there and the statement that holds the list. */
export class ProgramOrder {
  private readonly places = new Map<Stmt, Place>();

  /** `evaluate` folds an `if` condition: a branch a constant condition never takes is not walked into. */
  constructor(kernel: Kernel, private readonly evaluate: (e: Expr) => number | undefined = () => undefined) {
    this.index(kernel.body, undefined);
  }

  private live(s: Stmt): Stmt[][] {
    if (s.kind !== 'if') return childLists(s);
    const v = this.evaluate(s.cond);
    return v === undefined ? [s.then, s.else] : [v !== 0 ? s.then : s.else];
  }

  private *forward(s: Stmt): Generator<Stmt> {
    yield s;
    for (const list of this.live(s)) for (const c of list) yield* this.forward(c);
  }

  private *backward(s: Stmt): Generator<Stmt> {
    for (const list of [...this.live(s)].reverse()) for (let i = list.length - 1; i >= 0; i--) yield* this.backward(list[i]);
    yield s;
  }

  /** The statements `s` holds that a thread may run (a constant condition's dead branch left out). */
  liveLists(s: Stmt): Stmt[][] {
    return this.live(s);
  }

  private index(list: Stmt[], owner: Stmt | undefined): void {
    list.forEach((s, index) => {
      this.places.set(s, { list, index, owner });
      for (const child of childLists(s)) this.index(child, s);
    });
  }

  /** Statements a thread may execute after `s` (pre-order, both branches of a later `if`); loops are not wrapped. */
  *after(s: Stmt): Generator<Stmt> {
    let place = this.places.get(s);
    while (place) {
      for (let i = place.index + 1; i < place.list.length; i++) yield* this.forward(place.list[i]);
      place = place.owner ? this.places.get(place.owner) : undefined;
    }
  }

  /** Statements a thread may have executed before `s`, nearest first; loops are not wrapped. */
  *before(s: Stmt): Generator<Stmt> {
    let place = this.places.get(s);
    while (place) {
      for (let i = place.index - 1; i >= 0; i--) yield* this.backward(place.list[i]);
      place = place.owner ? this.places.get(place.owner) : undefined;
    }
  }

  /** The statements before `s` at its own level and then at each enclosing level, nearest first, each whole (not entered). */
  *precedingUnits(s: Stmt): Generator<Stmt> {
    let place = this.places.get(s);
    while (place) {
      for (let i = place.index - 1; i >= 0; i--) yield place.list[i];
      place = place.owner ? this.places.get(place.owner) : undefined;
    }
  }

  /** The statements that hold `s`, innermost first. */
  *owners(s: Stmt): Generator<Stmt> {
    let owner = this.places.get(s)?.owner;
    while (owner) {
      yield owner;
      owner = this.places.get(owner)?.owner;
    }
  }
}

function childLists(s: Stmt): Stmt[][] {
  if (s.kind === 'if') return [s.then, s.else];
  if (s.kind === 'loop') return [s.body, ...(s.step ? [s.step] : [])];
  return [];
}

/** An operation on tensor memory that the issuing thread orders: tcgen05.ld/st/cp/shift, tcgen05.mma, tcgen05.wait. */
export function touchesTmem(op: BarrierOp): boolean {
  return op.kind === 'tmem-access' || op.kind === 'tmem-wait' || (op.kind === 'mma' && /tcgen05|umma/i.test(op.api));
}

/**
 * An operation the tensor core runs asynchronously on tensor memory: tcgen05.mma and tcgen05.cp/shift. These are
 * what races with another role's tcgen05.ld/st when a handoff lacks its fences.
 */
export function tensorCoreOp(op: BarrierOp): boolean {
  return (op.kind === 'mma' && /tcgen05|umma/i.test(op.api)) || (op.kind === 'tmem-access' && /tcgen05\.(cp|shift)/.test(op.api));
}

/** Every statement of a kernel with its operation, in source order. */
export function opStatements(kernel: Kernel): Extract<Stmt, { kind: 'op' }>[] {
  const out: Extract<Stmt, { kind: 'op' }>[] = [];
  const walk = (list: Stmt[]): void => {
    for (const s of list) {
      if (s.kind === 'op') out.push(s);
      for (const c of childLists(s)) walk(c);
    }
  };
  walk(kernel.body);
  return out;
}
