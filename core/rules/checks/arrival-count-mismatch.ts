// PF401: arrivals per phase that cannot equal the barrier's init count.
import { maxArrivalsPerPhase } from '../../analysis/protocol-run';
import type { BarrierOp } from '../../ir/types';
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';

export const arrivalCountMismatch: RuleDef = {
  meta: {
    id: 'arrival-count-mismatch',
    code: 'PF401',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'The threads that arrive on a barrier in one phase cannot add up to its init count.',
    languages: ['cuda', 'croqtile', 'tilus'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Replays the kernel per thread, counting who executes each arrive (elected threads, lane 0 of each warp, whole warps or blocks) and with what count. Reports one arrive instance that alone exceeds the init count (over-arrival), and barriers whose arrivals from all threads together stay below the init count (under-arrival). The replay runs at the kernel\'s block size, read from the translation unit ([launch shapes](../launch-shapes.md)); when nothing gives it, a finding that does not hold at every plausible size is reported as an information note instead.',
    whyIsThisBad: 'Over-arrival completes phases early, so waiters run ahead of producers (data race); when one warp-wide arrive crosses a phase boundary the hardware traps with "unspecified launch failure". Under-arrival means the phase never completes and every waiter hangs.',
    bad: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  (void)cuda::ptx::mbarrier_arrive(&bar);
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {}
}`,
    good: `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) (void)cuda::ptx::mbarrier_arrive(&bar);
  while (!cuda::ptx::mbarrier_try_wait_parity(&bar, 0)) {}
}`,
    references: ['CUDA C++ Programming Guide, 4.9.1 (expected arrival count)', 'compute-sanitizer synccheck "Barrier overflow"'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      if (k.sites.some((s) => s.op.remote)) continue;
      const runs = k.runs();
      if (!runs) continue;
      let over: Map<BarrierOp, { total: number; expected: number; threads: number }> | undefined;
      let under: Map<BarrierOp, { max: number; expected: number }> | undefined;
      for (const run of runs) {
        const o = new Map<BarrierOp, { total: number; expected: number; threads: number }>();
        const u = new Map<BarrierOp, { max: number; expected: number }>();
        const instance = new Map<string, { total: number; threads: number; op: BarrierOp; key: string }>();
        for (const a of run.actors) {
          for (const e of a.events) {
            if (e.kind !== 'arrive' || run.uncertain.has(e.key)) continue;
            const id = `${e.key}@${e.op.range.start.line}:${e.op.range.start.character}#${e.iter}`;
            const cur = instance.get(id) ?? { total: 0, threads: 0, op: e.op, key: e.key };
            cur.total += e.count * a.threads.length;
            cur.threads += a.threads.length;
            instance.set(id, cur);
          }
        }
        for (const inst of instance.values()) {
          // tcgen05.commit is issued per thread but warp-wide issue is common and its arrival count
          // per warp is not pinned down here: never treat it as over-arrival evidence.
          if (inst.op.kind === 'mma-commit-arrive') continue;
          const init = run.initializers.get(inst.key);
          if (!init || init.count === undefined || init.threads.length !== 1) continue;
          if (inst.total > init.count) o.set(inst.op, { total: inst.total, expected: init.count, threads: inst.threads });
        }
        for (const [key, init] of run.initializers) {
          // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
          if (init.count === undefined || init.threads.length !== 1 || run.uncertain.has(key) || k.escapes(key.replace(/\[[\s\S]*$/, ''))) continue;
          const waited = run.actors.some((a) => a.events.some((e) => e.kind === 'wait' && e.key === key));
          const max = maxArrivalsPerPhase(run, key);
          if (waited && max > 0 && max < init.count) u.set(init.op, { max, expected: init.count });
        }
        over = intersect(over, o);
        under = intersect(under, u);
      }
      for (const [op, v] of over ?? []) {
        ctx.report({
          range: op.range,
          message: `${v.threads} threads execute this arrive on \`${barrierName(op)}\`, ${v.total} arrivals in one phase, but the barrier was initialised for ${v.expected}: the surplus completes extra phases (waiters run ahead of the data) or traps with "unspecified launch failure". Let one elected thread arrive, or initialise with the real participant count.`,
        });
      }
      for (const [op, v] of under ?? []) {
        ctx.report({
          range: op.range,
          message: `\`${barrierName(op)}\` is initialised for ${v.expected} arrivals per phase, but at most ${v.max} can arrive: the phase never completes and every waiter hangs. Initialise it with the number of arriving threads (line ${line1(op.range)}).`,
        });
      }
    }
  },
};

function intersect<T>(acc: Map<BarrierOp, T> | undefined, next: Map<BarrierOp, T>): Map<BarrierOp, T> {
  if (!acc) return next;
  for (const key of [...acc.keys()]) if (!next.has(key)) acc.delete(key);
  return acc;
}
