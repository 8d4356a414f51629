// PF409: a thread that `bar.arrive`s on a named barrier and reaches the same id again (the same arrive in the
// next loop iteration, or a sync on it for another handshake) with nothing in between that waits for the other
// threads: its second arrival counts toward the barrier instance its first one is still part of.
import type { Range } from '../../api';
import { evaluate } from '../../ir/expr';
import type { Expr, Kernel, NamedBarrierUse, Stmt } from '../../ir/types';
import type { RuleDef } from '../types';
import { line1 } from '../naming';

type NamedSync = Extract<Stmt, { kind: 'sync' }> & { named: NamedBarrierUse };
type Loop = Extract<Stmt, { kind: 'loop' }>;

/** A statement list and, for a loop body, the loop (the end of the list then wraps to its start). */
interface Frame {
  list: Stmt[];
  index: number;
  loop?: Loop;
}

export const namedBarrierArriveRunAhead: RuleDef = {
  meta: {
    id: 'named-barrier-arrive-run-ahead',
    code: 'PF409',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'A thread arrives on a named barrier and reaches the same id again before anything waits for its partners.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Follows each `bar.arrive` / `barrier.cta.arrive` / CUTLASS `NamedBarrier::arrive` whose id folds to a number along the arriving thread\'s own path: through the rest of its block, out of enclosing branches, and around the back edge of the loop it sits in. It reports the arrive when the path reaches a use of the same id (the same arrive one iteration later, or a sync or arrive on the id that belongs to another handshake) with nothing in between that could wait for another thread: no `bar.sync`/`__syncthreads`/cluster barrier, no mbarrier wait, no call it could not read. Run-ahead around a loop is reported only when other threads `bar.sync` on the id outside the loop (a producer/consumer handshake). Ids that depend on the thread, branches that use the id on one side, and unread calls keep it silent.',
    whyIsThisBad:
      '`bar.arrive` does not wait: it adds the calling warp\'s threads to the barrier\'s current instance and returns. The hardware counts arrivals per instance, not per thread, so a producer that arrives again before the consumers have synced adds to the same instance: the barrier completes with the producer counted twice and some consumers not at all (they are released a round late, or hang on an instance nobody completes), and the producer goes on to overwrite shared memory the consumers have not read (a data race). One id shared by two handshakes that the same thread can reach back to back mixes their arrivals the same way.',
    bad: `__global__ void __launch_bounds__(256) k(const float* in, float* out, int n) {
  __shared__ float buf[128];
  if (threadIdx.x < 128) {
    for (int i = 0; i < n; ++i) {
      buf[threadIdx.x] = in[i * 128 + threadIdx.x];
      asm volatile("bar.arrive 1, 256;");
    }
  } else {
    for (int i = 0; i < n; ++i) {
      asm volatile("bar.sync 1, 256;");
      out[i * 128 + threadIdx.x - 128] = buf[threadIdx.x - 128];
    }
  }
}`,
    good: `__global__ void __launch_bounds__(256) k(const float* in, float* out, int n) {
  __shared__ float buf[128];
  if (threadIdx.x < 128) {
    for (int i = 0; i < n; ++i) {
      if (i > 0) asm volatile("bar.sync 2, 256;");
      buf[threadIdx.x] = in[i * 128 + threadIdx.x];
      asm volatile("bar.arrive 1, 256;");
    }
  } else {
    for (int i = 0; i < n; ++i) {
      asm volatile("bar.sync 1, 256;");
      out[i * 128 + threadIdx.x - 128] = buf[threadIdx.x - 128];
      if (i + 1 < n) asm volatile("bar.arrive 2, 256;");
    }
  }
}`,
    references: ['PTX ISA, "barrier / bar" (bar.arrive marks an arrival without waiting; a barrier completes when its thread count has arrived)', 'CUTLASS include/cutlass/arch/barrier.h (NamedBarrier::arrive, NamedBarrier::sync)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const constants = k.kernel.constants ?? ctx.module.constants;
      const fold = (e: Expr | undefined): number | undefined => evaluate(e ?? undefined, (n) => constants.get(n));
      const idOf = (s: NamedSync): number | undefined => (s.named.id ? fold(s.named.id) : 0);
      const named: { stmt: NamedSync; frames: Frame[] }[] = [];
      collect(k.kernel.body, [], named);
      const arrives = named.filter((x) => x.stmt.named.arrive && idOf(x.stmt) !== undefined);
      for (const a of arrives) {
        const id = idOf(a.stmt) as number;
        const scan = new PathScan(k.kernel, (s) => s.kind === 'sync' && !!s.named && idOf(s as NamedSync) === id, (s) => !!s.named && idOf(s as NamedSync) === undefined);
        const next = scan.after(a.frames, a.stmt);
        if (!next) continue;
        const what = `\`${a.stmt.api.replace(/^asm /, '')}\` (line ${line1(a.stmt.range)})`;
        if (next.stmt === a.stmt) {
          // Run-ahead around a loop: only a handshake with threads that sync on the id outside this loop.
          const loop = next.loop as Loop;
          const partners = named.filter((x) => !x.stmt.named.arrive && idOf(x.stmt) === id && !x.frames.some((f) => f.loop === loop)).map((x) => x.stmt);
          if (!partners.length) continue;
          const lines = partners.map((p) => line1(p.range)).join(', ');
          ctx.report({
            range: a.stmt.range,
            message: `${what} arrives on barrier ${id} once per iteration of the loop at line ${line1(loop.range)}, and nothing in the loop waits for the threads that \`bar.sync\` on barrier ${id} (line ${lines}): bar.arrive does not wait, so this thread can arrive again for the next iteration before those threads have synced, and that arrival counts toward the same barrier instance. The barrier then completes with this thread counted twice and syncing threads missing (they pass a round late or hang), and this thread overwrites data they have not read yet (a race). Make the arriving threads wait for the syncing ones every iteration (a second id they arrive on and these threads sync on, or an mbarrier).`,
            related: partners.map((p) => ({ range: p.range, message: `sync on barrier ${id}` })),
          });
        } else {
          ctx.report({
            range: next.stmt.range,
            message: `This ${next.stmt.named.arrive ? 'arrive' : 'sync'} on barrier ${id} (line ${line1(next.stmt.range)}) follows ${what} on the same id with nothing in between that waits for another thread: the earlier arrive may not have completed its barrier instance yet, so both count toward one instance. The two handshakes on barrier ${id} mix: the barrier completes with this thread counted twice and its partners missing (a race, or a hang for the threads left behind). Give each handshake its own barrier id.`,
            related: [{ range: a.stmt.range, message: `earlier arrive on barrier ${id}` }],
          });
        }
      }
    }
  },
};

/** Every named-barrier statement with the frames (lists and loops) around it, outermost first. */
function collect(list: Stmt[], frames: Frame[], out: { stmt: NamedSync; frames: Frame[] }[], loop?: Loop): void {
  list.forEach((s, index) => {
    const here = [...frames, { list, index, loop }];
    if (s.kind === 'sync' && s.named) out.push({ stmt: s as NamedSync, frames: here });
    else if (s.kind === 'if') (collect(s.then, here, out), collect(s.else, here, out));
    else if (s.kind === 'loop') collect(s.body, here, out, s);
  });
}

/**
 * The arriving thread's path after a statement: the rest of each enclosing list, the body of an enclosing loop
 * again from its start. It stops (no answer) at anything that may wait for another thread or that it cannot
 * follow, and answers the first use of the id it meets.
 */
class PathScan {
  constructor(
    private readonly kernel: Kernel,
    private readonly usesId: (s: Stmt) => boolean,
    private readonly unknownId: (s: Extract<Stmt, { kind: 'sync' }>) => boolean,
  ) {}

  after(frames: Frame[], from: NamedSync): { stmt: NamedSync; loop?: Loop } | undefined {
    for (let depth = frames.length - 1; depth >= 0; depth--) {
      const f = frames[depth];
      const rest = f.list.slice(f.index + 1);
      const hit = this.straight(rest);
      if (hit === 'stop') return undefined;
      if (hit) return this.unreadCallIn({ start: from.range.start, end: hit.range.end, file: from.range.file }) ? undefined : { stmt: hit };
      if (f.loop) {
        // The back edge: the loop's body again from its start, up to the statement that holds the arrive.
        if (this.unreadCallIn(f.loop.range)) return undefined;
        const again = this.straight(f.list.slice(0, f.index));
        if (again === 'stop') return undefined;
        if (again) return { stmt: again };
        const holder = f.list[f.index];
        return holder === from ? { stmt: from, loop: f.loop } : undefined;
      }
      // Out of a branch: the path continues after the `if`, in the enclosing list (the next frame up).
    }
    return undefined;
  }

  /** The first use of the id in a straight run of statements, 'stop' at anything else that matters. */
  private straight(list: Stmt[]): NamedSync | 'stop' | undefined {
    for (const s of list) {
      if (this.usesId(s)) return s as NamedSync;
      if (s.kind === 'return' || s.kind === 'break' || s.kind === 'continue') return 'stop';
      if (s.kind === 'if' || s.kind === 'loop') {
        if (this.mayBlockOrUse(s) || this.unreadCallIn(s.range)) return 'stop';
        continue;
      }
      if (this.mayBlockOrUse(s)) return 'stop';
    }
    return undefined;
  }

  /** A statement that may wait for another thread, uses the id, or uses a named barrier whose id is unknown. */
  private mayBlockOrUse(s: Stmt): boolean {
    switch (s.kind) {
      case 'sync':
        if (this.usesId(s) || this.unknownId(s)) return true;
        if (s.named) return !s.named.arrive;
        return s.scope !== 'warp' && s.scope !== 'cluster-arrive';
      case 'op':
        return /^(wait-|arrive-and-wait|future-wait)/.test(s.op.kind);
      case 'if':
        return [...s.then, ...s.else].some((x) => this.mayBlockOrUse(x));
      case 'loop':
        return s.body.some((x) => this.mayBlockOrUse(x));
      default:
        return false;
    }
  }

  /** A call the front end could not read lies in the range (it might wait). */
  private unreadCallIn(r: Range): boolean {
    return (this.kernel.notUnderstood ?? []).some((u) => u.range.file === r.file && u.range.start.line >= r.start.line && u.range.end.line <= r.end.line);
  }
}
