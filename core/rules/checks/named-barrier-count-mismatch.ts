// PF406: named barriers (`bar.sync`/`bar.arrive`, CUTLASS `NamedBarrier`) whose id or thread count cannot
// work: a count that is not a multiple of 32, an id outside 0..15, id 0 shared with __syncthreads, or a
// count that differs from the number of threads that reach the barrier with that id.
import { analysedBlockSizes, blockSizeKnown } from '../../analysis/facts';
import { evalForThread, type ThreadPoint } from '../../analysis/threads';
import { evaluate } from '../../ir/expr';
import type { Expr, Kernel, NamedBarrierUse, Stmt } from '../../ir/types';
import type { Range } from '../../api';
import type { RuleContext, RuleDef } from '../types';
import { exprText, line1 } from '../naming';

type NamedSync = Extract<Stmt, { kind: 'sync' }> & { named: NamedBarrierUse };

const WARP = 32;
const HARDWARE_NAMED_BARRIERS = 16;

export const namedBarrierCountMismatch: RuleDef = {
  meta: {
    id: 'named-barrier-count-mismatch',
    code: 'PF406',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'A named barrier\'s id or thread count cannot match the threads that use it.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Checks every named-barrier sync or arrive (`bar.sync`, `bar.arrive`, `barrier.sync`, `barrier.cta.*` in inline PTX, `__barrier_sync`, CUTLASS `NamedBarrier::sync/arrive`, whose user ids start after the 8 CUTLASS reserves) whose operands fold to numbers: a thread count that is not a multiple of 32, an id outside 0..15, id 0 with a thread count below the block while `__syncthreads` (barrier 0 for every thread) is also used. When the block size is known ([launch shapes](../launch-shapes.md)) it walks the kernel for every thread and compares, per id, the thread count with the number of threads that reach a sync or arrive on that id, and reports one id used with two different thread counts. Whatever does not fold (a data-dependent branch before the barrier, an id held in a variable that changes, an unknown block size) keeps it silent.',
    whyIsThisBad:
      'PTX requires the thread count to be a multiple of the warp size and the id to be below 16: anything else is undefined behaviour. A barrier whose count exceeds the threads that reach it never completes, so every thread waiting on it hangs; one reached by more threads than its count completes once per count, so the threads pass in groups that do not wait for each other (a race), and a remainder hangs. Barrier 0 is the one `__syncthreads` uses with the whole block: a partial barrier on id 0 mixes with it and hangs or releases the wrong threads.',
    bad: `__global__ void __launch_bounds__(256) k(float* out) {
  __shared__ float tile[128];
  if (threadIdx.x < 128) {
    tile[threadIdx.x] = out[threadIdx.x];
    asm volatile("bar.arrive 1, 128;");
  } else {
    asm volatile("bar.sync 1, 128;");
    out[threadIdx.x] = tile[threadIdx.x - 128];
  }
}`,
    good: `__global__ void __launch_bounds__(256) k(float* out) {
  __shared__ float tile[128];
  if (threadIdx.x < 128) {
    tile[threadIdx.x] = out[threadIdx.x];
    asm volatile("bar.arrive 1, 256;");
  } else {
    asm volatile("bar.sync 1, 256;");
    out[threadIdx.x] = tile[threadIdx.x - 128];
  }
}`,
    references: ['PTX ISA, "barrier / bar" (thread count a multiple of the warp size; 16 barriers per CTA)', 'CUTLASS include/cutlass/arch/barrier.h (NamedBarrier, ReservedNamedBarriers)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const named: NamedSync[] = [];
      let blockSync = false;
      visit(k.kernel.body, (s) => {
        if (s.kind !== 'sync') return;
        if (s.scope === 'block') blockSync = true;
        if (s.named) named.push(s as NamedSync);
      });
      if (!named.length) continue;
      const constants = k.kernel.constants ?? ctx.module.constants;
      const fold = (e: Expr | undefined): number | undefined => evaluate(e, (n) => constants.get(n));
      const block = blockSizeKnown(k.kernel) ? analysedBlockSizes(k.kernel).sizes : [];
      const blockSize = block.length === 1 ? block[0] : undefined;
      const flagged = new Set<Stmt>();
      for (const s of named) {
        const id = fold(s.named.id);
        const threads = fold(s.named.threads);
        const what = describe(s);
        if (id !== undefined && (id < 0 || id >= HARDWARE_NAMED_BARRIERS)) {
          flagged.add(s);
          ctx.report({ range: s.range, message: `${what} uses barrier id ${id} (${exprText(s.named.id)}), but a block has 16 named barriers, 0..15: undefined behaviour at run time (an illegal instruction or a barrier shared with another id). Use an id below 16.` });
        } else if (threads !== undefined && (threads <= 0 || threads % WARP !== 0)) {
          flagged.add(s);
          ctx.report({ range: s.range, message: `${what} gives a thread count of ${threads}, which is not a positive multiple of 32: PTX leaves this undefined (barriers count whole warps, so the barrier completes early or never and its threads race or hang). Round the count to whole warps.` });
        } else if (blockSize !== undefined && threads !== undefined && threads > blockSize) {
          flagged.add(s);
          ctx.report({ range: s.range, message: `${what} waits for ${threads} threads, but the block has only ${blockSize}: the barrier never completes and every thread that syncs on it hangs.` });
        } else if (id === 0 && blockSync && blockSize !== undefined && threads !== undefined && threads < blockSize) {
          flagged.add(s);
          const other = firstBlockSync(k.kernel.body);
          ctx.report({
            range: s.range,
            message: `${what} uses barrier 0 for ${threads} of the ${blockSize} threads, but barrier 0 is also the one \`__syncthreads\` uses for the whole block${other ? ` (line ${line1(other)})` : ''}: arrivals of the two mix, so threads pass the wrong sync or hang. Use an id from 1 to 15.`,
            related: other ? [{ range: other, message: 'block-wide sync on barrier 0' }] : undefined,
          });
        }
      }
      if (blockSize !== undefined) checkParticipants(ctx, k.kernel, named.filter((s) => !flagged.has(s)), blockSize, constants, k.derived);
    }
  },
};

/** What a message calls a named-barrier statement. */
function describe(s: NamedSync): string {
  return `\`${s.api.replace(/^asm /, '')}\` (line ${line1(s.range)})`;
}

interface Reach {
  stmt: NamedSync;
  id: number;
  threads: number;
}

/**
 * Per id, the threads that reach a sync or arrive on it against the thread count it gives. Any named
 * barrier reached under a condition that does not fold, or with operands that do not fold, keeps the
 * whole kernel silent: it may use any id.
 */
function checkParticipants(ctx: RuleContext, kernel: Kernel, candidates: NamedSync[], blockSize: number, constants: Map<string, number>, derived: Map<string, Expr>): void {
  if (!candidates.length) return;
  const byId = new Map<number, { tids: Set<number>; reaches: Reach[]; byCount: Map<number, Set<number>> }>();
  for (let tid = 0; tid < blockSize; tid++) {
    const walk = new ThreadWalk({ tid, blockSize }, constants, derived);
    walk.run(kernel.body, true);
    if (walk.unknown) return;
    for (const r of walk.reaches) {
      const entry = byId.get(r.id) ?? { tids: new Set<number>(), reaches: [] as Reach[], byCount: new Map<number, Set<number>>() };
      entry.tids.add(tid);
      entry.reaches.push(r);
      entry.byCount.set(r.threads, (entry.byCount.get(r.threads) ?? new Set()).add(tid));
      byId.set(r.id, entry);
    }
  }
  for (const [id, { tids, reaches, byCount }] of byId) {
    // Named barriers count whole warps: a warp that reaches them in part is beyond this check.
    const warps = new Set([...tids].map((t) => Math.floor(t / WARP)));
    if (warps.size * WARP !== tids.size) continue;
    const stmts = [...new Set(reaches.map((r) => r.stmt))].sort((a, b) => a.range.start.line - b.range.start.line);
    if (!stmts.every((s) => candidates.includes(s))) continue;
    const counts = new Map<number, NamedSync>();
    for (const r of reaches) if (!counts.has(r.threads)) counts.set(r.threads, r.stmt);
    const lines = stmts.map((s) => line1(s.range)).join(', ');
    const related = stmts.slice(1).map((s) => ({ range: s.range, message: `${s.named.arrive ? 'arrive' : 'sync'} on barrier ${id}` }));
    if (counts.size > 1) {
      // Threads that use the id with one count and then another take part in both uses in turn, which is
      // legal; only groups with no thread in common can meet on the id at the same time.
      const groups = [...byCount.values()];
      const disjoint = groups.every((g, i) => groups.slice(i + 1).every((h) => [...g].every((t) => !h.has(t))));
      if (!disjoint) continue;
      const [[a, sa], [b, sb]] = [...counts];
      ctx.report({
        range: sb.range,
        message: `Barrier ${id} is used with ${a} threads (line ${line1(sa.range)}) and with ${b} threads (line ${line1(sb.range)}): two handshakes of different threads share one id, and when they overlap the hardware counts their arrivals together, so one completes early (a race) and the other hangs. Give each handshake its own id.`,
        related: [{ range: sa.range, message: `barrier ${id} with ${a} threads` }],
      });
      continue;
    }
    const count = [...counts.keys()][0];
    const reaching = tids.size;
    if (reaching === count) continue;
    const who = threadRanges([...tids].sort((x, y) => x - y));
    const message =
      reaching < count
        ? `Barrier ${id} waits for ${count} threads, but only ${reaching} reach it (threads ${who}, lines ${lines}): the barrier never completes and the threads that sync on it hang. Give it a count of ${reaching}, or let the missing warps arrive.`
        : `Barrier ${id} completes after ${count} threads, but ${reaching} reach it (threads ${who}, lines ${lines}): it completes once per ${count} arrivals, so the threads pass in groups that do not wait for each other (a race)${reaching % count ? ', and the last group never completes and hangs' : ''}. Give it a count of ${reaching}, or give each group its own id.`;
    ctx.report({ range: stmts[0].range, message, related: related.length ? related : undefined });
  }
}

/** `0-127, 256-383`: a sorted thread list as ranges. */
function threadRanges(tids: number[]): string {
  const out: string[] = [];
  let start = tids[0];
  for (let i = 1; i <= tids.length; i++) {
    if (i < tids.length && tids[i] === tids[i - 1] + 1) continue;
    out.push(start === tids[i - 1] ? `${start}` : `${start}-${tids[i - 1]}`);
    start = tids[i];
  }
  return out.join(', ');
}

/**
 * One thread's walk through the kernel: which named barriers it reaches, with which id and count.
 * `unknown` is set as soon as a named barrier might be reached under a condition that does not fold,
 * or its operands do not fold; loops are walked once (their first iteration decides whether the body runs).
 */
class ThreadWalk {
  readonly reaches: Reach[] = [];
  unknown = false;
  private readonly memo = new Map<string, number | undefined>();
  private readonly depth = new Set<string>();

  constructor(
    private readonly p: ThreadPoint,
    private readonly constants: Map<string, number>,
    private readonly derived: Map<string, Expr>,
    private readonly loopVars = new Map<string, number | undefined>(),
  ) {}

  private value(e: Expr | undefined): number | undefined {
    return evalForThread(e, this.p, (n) => this.variable(n), this.constants);
  }

  private variable(name: string): number | undefined {
    if (this.loopVars.has(name)) return this.loopVars.get(name);
    if (this.memo.has(name)) return this.memo.get(name);
    const d = this.derived.get(name);
    if (!d || this.depth.has(name) || this.depth.size > 8) return undefined;
    this.depth.add(name);
    const v = this.value(d);
    this.depth.delete(name);
    this.memo.set(name, v);
    return v;
  }

  /** Walks a statement list; returns how it leaves: 'exit' (return, break, continue) or 'maybe' (some threads leave). */
  run(list: Stmt[], certain: boolean): 'exit' | 'maybe' | undefined {
    let sure = certain;
    for (const s of list) {
      if (this.unknown) return 'exit';
      const how = this.stmt(s, sure);
      if (how === 'exit') return 'exit';
      if (how === 'maybe') sure = false;
    }
    return sure === certain ? undefined : 'maybe';
  }

  private stmt(s: Stmt, certain: boolean): 'exit' | 'maybe' | undefined {
    switch (s.kind) {
      case 'sync':
        if (s.named) this.reach(s as NamedSync, certain);
        return undefined;
      case 'return':
      case 'break':
      case 'continue':
        return 'exit';
      case 'if': {
        const c = certain ? this.value(s.cond) : undefined;
        if (c !== undefined) return this.run(c ? s.then : s.else, true);
        const a = this.run(s.then, false);
        const b = this.run(s.else, false);
        return a || b ? 'maybe' : undefined;
      }
      case 'loop': {
        let enters: boolean | undefined = true;
        if (s.cond) {
          const first = new ThreadWalk(this.p, this.constants, this.derived, new Map(this.loopVars));
          if (s.var) first.loopVars.set(s.var, first.value(s.init));
          const c = certain ? first.value(s.cond) : undefined;
          enters = c === undefined ? undefined : c !== 0;
        }
        if (enters === false) return undefined;
        if (s.var) this.loopVars.set(s.var, undefined);
        const how = this.run(s.body, certain && enters === true);
        if (s.var) this.loopVars.delete(s.var);
        // A loop that a thread may leave early (a return inside) leaves the rest uncertain.
        return how || enters === undefined ? 'maybe' : undefined;
      }
      default:
        return undefined;
    }
  }

  private reach(s: NamedSync, certain: boolean): void {
    const id = this.value(s.named.id ?? { kind: 'num', value: 0, text: '0', range: s.range });
    const threads = s.named.threads ? this.value(s.named.threads) : this.p.blockSize;
    if (!certain || id === undefined || threads === undefined) {
      this.unknown = true;
      return;
    }
    this.reaches.push({ stmt: s, id, threads });
  }
}

function visit(list: Stmt[], f: (s: Stmt) => void): void {
  for (const s of list) {
    f(s);
    if (s.kind === 'if') (visit(s.then, f), visit(s.else, f));
    else if (s.kind === 'loop') (visit(s.body, f), visit(s.step ?? [], f));
  }
}

function firstBlockSync(list: Stmt[]): Range | undefined {
  let found: Range | undefined;
  visit(list, (s) => {
    if (!found && s.kind === 'sync' && s.scope === 'block') found = s.range;
  });
  return found;
}
