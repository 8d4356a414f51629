// Per-kernel facts shared by rules and hovers: every operation with its enclosing control flow,
// variable definitions, ring sizes, and (lazily) protocol runs at plausible block sizes.
import { evaluate, exprKey, freeVars, walkExpr } from '../ir/expr';
import type { BarrierOp, Expr, Kernel, KernelModule, LaunchShapeSource, Stmt } from '../ir/types';
import { visitStmts } from '../ir/visit';
import { derivedVars, roleBranches, runProtocol, type RunResult } from './protocol-run';
import { isThreadDependent } from './threads';

export type LoopStmt = Extract<Stmt, { kind: 'loop' }>;
export type IfStmt = Extract<Stmt, { kind: 'if' }>;

export interface Site {
  op: BarrierOp;
  stmt: Stmt;
  /** Enclosing ifs and loops, outermost first; for ifs, which branch holds the site. */
  ancestors: { stmt: Stmt; branch?: 'then' | 'else' }[];
  /** The statement list that directly holds the op, and its position there. */
  list: Stmt[];
  index: number;
  /** Program order over the whole kernel. */
  order: number;
}

/** The sizes a kernel whose block size nothing gives is analysed at (its findings are then information notes unless they hold at every plausible size). */
export const CANDIDATE_BLOCK_SIZES: readonly number[] = [128, 256, 384];

const WARP = 32;
const MAX_BLOCK = 1024;

/** The block sizes a kernel is analysed at, and where they come from (hovers say it). */
export interface AnalysedBlockSizes {
  sizes: readonly number[];
  source: LaunchShapeSource | 'candidates';
}

/**
 * The front end's launch shape first (a `// phaseflip:` comment, the file's launches, the user's launch
 * setting, the kernel's own `blockDim.x` checks, `__launch_bounds__`), then the older fields, else the
 * candidate sizes.
 */
export function analysedBlockSizes(kernel: Kernel): AnalysedBlockSizes {
  const shape = kernel.launchShape;
  if (shape?.source && shape.blocks.length) return { sizes: shape.blocks, source: shape.source };
  if (kernel.launchBlockSizes?.length) return { sizes: kernel.launchBlockSizes, source: 'launch-site' };
  if (kernel.launchBounds) return { sizes: [kernel.launchBounds], source: 'launch-bounds' };
  return { sizes: CANDIDATE_BLOCK_SIZES, source: 'candidates' };
}

/** Whether something in the source gives the kernel's block size (otherwise the analysis assumes sizes). */
export function blockSizeKnown(kernel: Kernel): boolean {
  return analysedBlockSizes(kernel).source !== 'candidates';
}

/**
 * Protocol runs shared by every KernelFacts of one lint (a kernel is replayed once per size however
 * many views of it the rules get). Undefined records a replay that overflowed.
 */
export class ReplayCache {
  private readonly runs = new Map<Kernel, Map<number, RunResult | undefined>>();

  run(kernel: Kernel, size: number, compute: () => RunResult | undefined): RunResult | undefined {
    let bySize = this.runs.get(kernel);
    if (!bySize) this.runs.set(kernel, (bySize = new Map()));
    if (!bySize.has(size)) bySize.set(size, compute());
    return bySize.get(size);
  }
}

export interface FactsOptions {
  /** Replay exactly these block sizes (default: the analysed sizes). */
  sizes?: readonly number[];
  /** When the block size is not known, replay every plausible size too (see blockSizes). */
  widen?: boolean;
  replays?: ReplayCache;
}

export class KernelFacts {
  readonly sites: Site[] = [];
  readonly derived: Map<string, Expr>;
  private runsCache: RunResult[] | null | undefined;
  private readonly replays: ReplayCache;

  constructor(readonly kernel: Kernel, readonly module: KernelModule, private readonly options: FactsOptions = {}) {
    this.replays = options.replays ?? new ReplayCache();
    this.derived = derivedVars(kernel);
    let order = 0;
    const visit = (list: Stmt[], ancestors: Site['ancestors']): void => {
      list.forEach((s, index) => {
        if (s.kind === 'op') this.sites.push({ op: s.op, stmt: s, ancestors, list, index, order: order++ });
        else if (s.kind === 'if') {
          visit(s.then, [...ancestors, { stmt: s, branch: 'then' }]);
          visit(s.else, [...ancestors, { stmt: s, branch: 'else' }]);
        } else if (s.kind === 'loop') visit(s.body, [...ancestors, { stmt: s }]);
      });
    };
    visit(kernel.body, []);
  }

  get constants(): Map<string, number> {
    return this.module.constants;
  }

  value(e: Expr | undefined): number | undefined {
    return evaluate(e, (n) => this.module.constants.get(n));
  }

  loops(site: Site): LoopStmt[] {
    return site.ancestors.map((a) => a.stmt).filter((s): s is LoopStmt => s.kind === 'loop');
  }

  innermostLoop(site: Site): LoopStmt | undefined {
    const l = this.loops(site);
    return l[l.length - 1];
  }

  opsOn(base: string): Site[] {
    return this.sites.filter((s) => s.op.barrier?.base === base);
  }

  isThreadDependent(e: Expr): boolean {
    return isThreadDependent(e, (n) => this.derived.get(n));
  }

  /**
   * Whether `e` reads something `leaf` recognises, directly or through the single definitions of the locals it
   * reads (`extra` first, e.g. a loop variable's initial value), each local followed once.
   */
  dependsOn(e: Expr, leaf: (x: Expr) => boolean, extra?: ReadonlyMap<string, Expr>, seen = new Set<string>()): boolean {
    let found = false;
    walkExpr(e, (x) => {
      if (found) return;
      if (leaf(x)) found = true;
      else if (x.kind === 'var' && !seen.has(x.name)) {
        seen.add(x.name);
        const def = extra?.get(x.name) ?? this.derived.get(x.name);
        if (def && this.dependsOn(def, leaf, extra, seen)) found = true;
      }
    });
    return found;
  }

  /** Bases handed to code we cannot see: their protocol is not fully visible. */
  escapes(base: string): boolean {
    let found = false;
    visitStmts(this.kernel.body, (s) => {
      if (s.kind === 'assign' && s.target === base && (s.op === 'call?' || s.op === 'call-arg')) found = true;
    });
    return found;
  }

  /** Constant length of the barrier array `base`, if declared with one. */
  arrayLength(base: string): number | undefined {
    const d = this.kernel.decls.get(base);
    if (!d) return undefined;
    if (d.length !== undefined) return d.length;
    if (d.lengthExpr) return this.module.constants.get(d.lengthExpr.text.trim());
    return undefined;
  }

  /**
   * The block sizes runs() replays. A kernel whose block size the source gives is replayed at it; one
   * whose block size is not known at the candidate sizes and, widened, also at the other sizes it could
   * plausibly run at: one warp, the smallest block that reaches every role branch, the sizes its own
   * constant init counts suggest (one arrival per thread or per warp) and 1024. Findings that hold at
   * every one of them do not depend on the block size; the others are only information notes.
   */
  blockSizes(): readonly number[] {
    if (this.options.sizes) return this.options.sizes;
    const analysed = analysedBlockSizes(this.kernel);
    return analysed.source === 'candidates' && this.options.widen ? this.plausibleBlockSizes() : analysed.sizes;
  }

  /** The candidate sizes first, then the other plausible sizes in ascending order (see blockSizes). */
  plausibleBlockSizes(): number[] {
    const extra = new Set<number>([WARP, MAX_BLOCK]);
    const roles = roleBranches(this.kernel, this.derived);
    const largest = this.replay(MAX_BLOCK);
    if (largest && roles.length) {
      const first = Math.max(...roles.map((s) => largest.firstEntered.get(s) ?? MAX_BLOCK));
      extra.add(Math.min(MAX_BLOCK, Math.ceil((first + 1) / WARP) * WARP));
    }
    for (const s of this.sites) {
      if (s.op.kind !== 'init') continue;
      const c = this.value(s.op.count);
      if (c === undefined || c <= 0) continue;
      for (const size of [c, c * WARP]) if (size <= MAX_BLOCK && size % WARP === 0) extra.add(size);
    }
    return [...CANDIDATE_BLOCK_SIZES, ...[...extra].filter((b) => !CANDIDATE_BLOCK_SIZES.includes(b)).sort((a, b) => a - b)];
  }

  private replay(size: number): RunResult | undefined {
    return this.replays.run(this.kernel, size, () => runProtocol(this.kernel, size, this.module.constants, this.maxIterations(), this.derived));
  }

  private maxIterations(): number {
    return Math.min(16, Math.max(4, 2 * this.maxRing() + 2));
  }

  /**
   * The runs of runs() done again with every CTA of the cluster assumed to run the same code, so that arrivals on a
   * peer's barrier count on this CTA's own (ReplayOptions.remoteArrivalsAsLocal). Not cached: only the rules about
   * cluster peers ask, for kernels that arrive remotely. Null where runs() is.
   */
  clusterSymmetricRuns(): RunResult[] | null {
    if (this.module.deadline !== undefined && Date.now() > this.module.deadline) return null;
    const runs = this.runs();
    if (!runs) return null;
    const out: RunResult[] = [];
    for (const r of runs) {
      const again = runProtocol(this.kernel, r.blockSize, this.module.constants, this.maxIterations(), this.derived, { remoteArrivalsAsLocal: true });
      if (!again) return null;
      out.push(again);
    }
    return out;
  }

  /**
   * Protocol runs at every plausible block size of blockSizes() (one where each thread-identity branch
   * that holds barrier operations is taken by at least one thread). Null when the kernel is out of
   * reach: the replay overflowed at a size the source gives (or a candidate size), or no size is plausible.
   * A widening size that overflows is left out.
   */
  runs(): RunResult[] | null {
    if (this.runsCache !== undefined) return this.runsCache;
    if (this.module.deadline !== undefined && Date.now() > this.module.deadline) {
      this.module.truncated = true;
      this.runsCache = null;
      return null;
    }
    const sizes = this.blockSizes();
    const strict = this.options.sizes ?? analysedBlockSizes(this.kernel).sizes;
    const roles = roleBranches(this.kernel, this.derived);
    const out: RunResult[] = [];
    for (const b of sizes) {
      if (b > MAX_BLOCK || b <= 0) continue;
      const r = this.replay(b);
      if (!r) {
        if (!strict.includes(b)) continue;
        this.runsCache = null;
        return null;
      }
      // Plausibility uses the thread-identity branches each thread entered.
      const plausible = roles.every((s) => r.entered.has(s));
      if (plausible) out.push(r);
    }
    this.runsCache = out.length ? out : null;
    return this.runsCache;
  }

  /** Locals assigned exactly once (with `=`) inside a loop: their value during an iteration. */
  loopDefs(loop: LoopStmt): Map<string, Expr> {
    const defs = new Map<string, Expr>();
    const counts = new Map<string, number>();
    visitStmts(loop.body, (x) => {
      if (x.kind === 'assign' && x.op !== 'call-arg') {
        counts.set(x.target, (counts.get(x.target) ?? 0) + 1);
        if (x.op === '=' && x.value) defs.set(x.target, x.value);
      }
    });
    for (const [v, n] of counts) if (n > 1) defs.delete(v);
    return defs;
  }

  /**
   * An expression with single-definition locals replaced by their definitions (kernel-wide ones and,
   * given a loop, the ones set once per iteration), and `(x % a) % b` folded to `x % b` when b divides a.
   */
  resolve(e: Expr, loop?: LoopStmt, depth = 0): Expr {
    if (depth > 8) return e;
    const defs = loop ? this.loopDefs(loop) : undefined;
    const go = (x: Expr, d: number): Expr => {
      if (d > 8) return x;
      switch (x.kind) {
        case 'var': {
          const def = this.derived.get(x.name) ?? defs?.get(x.name);
          return def ? go(def, d + 1) : x;
        }
        case 'binary': {
          const l = go(x.left, d + 1);
          const r = go(x.right, d + 1);
          if (x.op === '%' && l.kind === 'binary' && l.op === '%') {
            const a = this.value(l.right);
            const b = this.value(r);
            if (a !== undefined && b !== undefined && b !== 0 && a % b === 0) return { ...x, left: l.left, right: r };
          }
          return { ...x, left: l, right: r };
        }
        case 'unary':
          return { ...x, arg: go(x.arg, d + 1) };
        case 'call':
          return { ...x, args: x.args.map((a) => go(a, d + 1)) };
        default:
          return x;
      }
    };
    return go(e, depth);
  }

  private maxRing(): number {
    let m = 1;
    for (const s of this.sites) {
      const len = s.op.barrier ? this.arrayLength(s.op.barrier.base) : undefined;
      if (len && len > m && len <= 8) m = len;
    }
    return m;
  }
}

/** The loops enclosing each local's declaration (`let x = ...`), outermost first. */
export function declarationLoops(body: Stmt[]): Map<string, LoopStmt[]> {
  const out = new Map<string, LoopStmt[]>();
  const walk = (list: Stmt[], loops: LoopStmt[]): void => {
    for (const s of list) {
      if (s.kind === 'assign' && s.declared && !out.has(s.target)) out.set(s.target, loops);
      else if (s.kind === 'if') {
        walk(s.then, loops);
        walk(s.else, loops);
      } else if (s.kind === 'loop') walk(s.body, [...loops, s]);
    }
  };
  walk(body, []);
  return out;
}

/** Calls `f` for every loop of a statement tree, outer loops first. */
export function forEachLoop(stmts: Stmt[], f: (loop: LoopStmt) => void): void {
  visitStmts(stmts, (s) => {
    if (s.kind === 'loop') f(s);
  });
}

export { visitStmts };

/** Variables a statement list may modify (assignments, updates, by-reference calls). */
export function assignedIn(stmts: Stmt[]): Set<string> {
  const out = new Set<string>();
  visitStmts(stmts, (s) => {
    if (s.kind === 'assign') out.add(s.target);
    if (s.kind === 'op' && s.op.tokenOut) out.add(s.op.tokenOut);
  });
  return out;
}

export function loopAssigned(loop: LoopStmt): Set<string> {
  const out = assignedIn(loop.body);
  for (const v of assignedIn(loop.step ?? [])) out.add(v);
  if (loop.var) out.add(loop.var);
  return out;
}

/**
 * Ring structure of a slot index inside a loop: `i % S`, `(base + i) % S`, or a variable that the
 * loop advances and wraps at S. Returns S (a constant > 0) or undefined.
 */
export function ringSize(index: Expr | undefined, loop: LoopStmt, facts: KernelFacts): number | undefined {
  if (!index) return undefined;
  const assigned = loopAssigned(loop);
  if (index.kind === 'binary' && index.op === '%') {
    const s = facts.value(index.right);
    if (s !== undefined && [...freeVars(index.left)].some((v) => assigned.has(v))) return s;
    return undefined;
  }
  if (index.kind === 'binary' && index.op === '&') {
    const m = facts.value(index.right);
    if (m !== undefined && ((m + 1) & m) === 0 && [...freeVars(index.left)].some((v) => assigned.has(v))) return m + 1;
  }
  if (index.kind === 'binary' && index.op === '+') {
    // bar + 2 then [i % 2] gives (2 + i % 2): the constant part is an offset, not a ring.
    const l = facts.value(index.left);
    if (l !== undefined) return ringSize(index.right, loop, facts);
    const r = facts.value(index.right);
    if (r !== undefined) return ringSize(index.left, loop, facts);
  }
  if (index.kind === 'var' && assigned.has(index.name)) {
    // `const int s = k % STAGES;` inside the loop: the ring is the expression it is defined by.
    const def = facts.derived.get(index.name) ?? facts.loopDefs(loop).get(index.name);
    if (def) return ringSize(def, loop, facts);
    return wrapOf(index.name, loop, facts);
  }
  return undefined;
}

/** S when `v` is advanced and wrapped at S in the loop (`v = (v + 1) % S`, `if (++v == S) v = 0`). */
export function wrapOf(v: string, loop: LoopStmt, facts: KernelFacts): number | undefined {
  let size: number | undefined;
  const stmts = [...loop.body, ...(loop.step ?? [])];
  visitStmts(stmts, (s) => {
    if (s.kind === 'assign' && s.target === v && s.value?.kind === 'binary' && s.value.op === '%' && freeVars(s.value.left).has(v)) {
      size = facts.value(s.value.right);
    }
    if (s.kind === 'if' && s.cond.kind === 'binary' && (s.cond.op === '==' || s.cond.op === '>=')) {
      const l = s.cond.left;
      const resets = s.then.some((t) => t.kind === 'assign' && t.target === v && t.op === '=' && facts.value(t.value) === 0);
      if (resets && l.kind === 'var' && l.name === v) size = facts.value(s.cond.right);
    }
    if (s.kind === 'assign' && s.target === v && s.value?.kind === 'cond') {
      // v = (v == S - 1) ? 0 : v + 1
      const t = s.value.test;
      if (t.kind === 'binary' && t.op === '==' && facts.value(s.value.then) === 0) {
        const last = facts.value(t.right);
        if (last !== undefined) size = last + 1;
      }
    }
  });
  return size;
}

export function sameIndex(a: Expr | undefined, b: Expr | undefined): boolean {
  return exprKey(a) === exprKey(b);
}
