// Ring positions that restart with every iteration of an outer loop (a persistent kernel's tile loop)
// while the barriers they index keep their phases: the stage and phase a wait uses are declared inside
// the tile loop and advanced by the K loop inside it. Correct only when each tile runs a multiple of
// 2 x stages iterations (every slot then ends a tile at the parity it started with).
import { freeVars } from '../ir/expr';
import type { Expr, Stmt } from '../ir/types';
import { declarationLoops, loopAssigned, ringSize, visitStmts, type KernelFacts, type LoopStmt, type Site } from './facts';

export interface RingReset {
  /** The wait whose slot and parity restart. */
  site: Site;
  /** The loop at whose every iteration they restart (the tile loop). */
  outer: LoopStmt;
  /** The loop that advances them (the K loop): the site's innermost loop. */
  inner: LoopStmt;
  /** The restarting variables, as the IR names them. */
  vars: string[];
  /** Slots in the ring, when known. */
  stages?: number;
  /** Iterations of `inner` per iteration of `outer`, when constant. */
  trips?: number;
}

/** Variables an expression reads directly: an array element's index is left out (`phase[stage]` reads `phase`). */
function directVars(e: Expr): Set<string> {
  const out = new Set<string>();
  const go = (x: Expr): void => {
    switch (x.kind) {
      case 'var':
        out.add(x.name);
        break;
      case 'index':
        go(x.object);
        break;
      case 'member':
        go(x.object);
        break;
      case 'unary':
        go(x.arg);
        break;
      case 'binary':
        go(x.left);
        go(x.right);
        break;
      case 'cond':
        go(x.test);
        go(x.then);
        go(x.else);
        break;
      case 'call':
        x.args.forEach(go);
        break;
      default:
        break;
    }
  };
  go(e);
  return out;
}

/** Iterations of a canonical `for (v = a; v < b; ++v)` whose bounds are constants. */
function constantTrips(loop: LoopStmt, facts: KernelFacts): number | undefined {
  if (!loop.var || !loop.init || !loop.cond || loop.cond.kind !== 'binary' || loop.cond.op !== '<') return undefined;
  if (loop.cond.left.kind !== 'var' || loop.cond.left.name !== loop.var) return undefined;
  const step = loop.step ?? [];
  if (step.length !== 1 || step[0].kind !== 'assign' || step[0].target !== loop.var || !(step[0].op === '++' || (step[0].op === '+=' && facts.value(step[0].value) === 1))) return undefined;
  const from = facts.value(loop.init);
  const to = facts.value(loop.cond.right);
  return from !== undefined && to !== undefined ? Math.max(0, to - from) : undefined;
}

/** Whether `base` is initialised inside `loop` (a ring re-created per tile restarts its phases too). */
function initialisedIn(loop: LoopStmt, base: string): boolean {
  let found = false;
  visitStmts(loop.body, (s) => {
    if (s.kind === 'op' && (s.op.kind === 'init' || s.op.kind === 'inval') && s.op.barrier?.base === base) found = true;
  });
  return found;
}

/** Blocking parity waits whose slot and parity restart each outer iteration while their barriers persist. */
export function ringResets(facts: KernelFacts): RingReset[] {
  const decls = declarationLoops(facts.kernel.body);
  const out: RingReset[] = [];
  for (const site of facts.sites) {
    const op = site.op;
    if (op.kind !== 'wait-parity' || op.result !== 'blocking' || !op.barrier || !op.parity) continue;
    const loops = facts.loops(site);
    if (loops.length < 2) continue;
    const inner = loops[loops.length - 1];
    const position = (e: Expr | undefined): Set<string> => (e ? freeVars(facts.resolve(e, inner)) : new Set<string>());
    const vars = new Set([...position(op.barrier.index), ...position(op.parity)]);
    // The parity itself must restart: one read from a per-slot phase array (`phase[stage]`) follows each slot.
    const parityVars = directVars(facts.resolve(op.parity, inner));
    if (!vars.size) continue;
    // The outermost enclosing loop that declares an advancing position variable, and assigns none declared outside it.
    for (const outer of loops.slice(0, -1)) {
      const assigned = loopAssigned(outer);
      const inside = (v: string): boolean => decls.get(v)?.includes(outer) ?? false;
      const restarting = [...vars].filter((v) => inside(v) && loopAssigned(inner).has(v));
      if (!restarting.length) continue;
      if (!restarting.some((v) => parityVars.has(v))) break;
      if ([...vars].some((v) => assigned.has(v) && !inside(v))) break;
      if (outer.var && vars.has(outer.var)) break;
      if (initialisedIn(outer, op.barrier.base)) break;
      // An outer loop that runs at most once carries nothing over.
      const outerTrips = constantTrips(outer, facts);
      if (outerTrips !== undefined && outerTrips <= 1) break;
      const between = loops.slice(loops.indexOf(outer) + 1);
      const stages = facts.arrayLength(op.barrier.base) ?? ringSize(op.barrier.index, inner, facts);
      const trips = between.length === 1 ? constantTrips(inner, facts) : undefined;
      out.push({ site, outer, inner, vars: restarting, stages, trips });
      break;
    }
  }
  return out;
}

/** Whether a restart is harmless: every tile runs a whole number of double rounds of the ring. */
export function restartIsAligned(r: RingReset): boolean {
  return r.stages !== undefined && r.trips !== undefined && r.trips % (2 * r.stages) === 0;
}
