// PF308: a thread-level barrier handshake that passes tensor memory between roles without the tcgen05 fences.
import type { Stmt } from '../../ir/types';
import type { RuleDef } from '../types';
import { isBlockingWait } from '../op-kinds';
import { barrierName, line1 } from '../naming';
import { opStatements, ProgramOrder, tensorCoreOp, touchesTmem } from '../tmem-order';

type OpStmt = Extract<Stmt, { kind: 'op' }>;

/** Thread arrivals (not tcgen05.commit, whose arrive carries its own before_thread_sync fence). */
const THREAD_ARRIVES = new Set(['arrive', 'arrive-drop', 'arrive-expect-tx']);

export const tcgen05HandoffWithoutFence: RuleDef = {
  meta: {
    id: 'tcgen05-handoff-without-fence',
    code: 'PF308',
    family: 'commit',
    defaultSeverity: 'warning',
    summary: 'Tensor memory changes hands through an mbarrier without tcgen05.fence::before_thread_sync / after_thread_sync.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Follows each mbarrier that one role arrives on after reading or writing tensor memory (tcgen05.ld/st/cp, tcgen05.wait::ld, tcgen05.mma) and that another role waits on before giving tensor memory to the tensor core (tcgen05.mma, tcgen05.cp): the accumulator and scale handoffs of a GEMM. The arriving thread needs `tcgen05.fence::before_thread_sync` between its last tcgen05 operation and the arrive; the waiting thread needs `tcgen05.fence::after_thread_sync` between the wait and its first tcgen05 operation. Wrappers are read through: CuTe `tcgen05_before_thread_sync()`/`tcgen05_after_thread_sync()`, ThunderKittens `tensor_before_thread_sync()`/`tensor_after_thread_sync()`, or any helper whose body holds the PTX. Barriers completed by `tcgen05.commit` are not checked: the commit fences its own arrive. Handoffs whose waiter only issues tcgen05.ld/st (between epilogue and correction warps) are not reported either: the PTX ISA asks for the fences there too, but no failure of that kind is on record and real kernels omit them.',
    whyIsThisBad:
      'tcgen05 operations are asynchronous and unordered with respect to thread synchronisation: an mbarrier arrive or wait orders the generic proxy, not the tensor core. Without the fences the MMA the waiter issues may overwrite the accumulator before the epilogue\'s tcgen05.ld has read it, or the epilogue may read values of the next tile: a race between the tensor core and the threads, with wrong results that come and go.',
    bad: `__global__ void k(uint32_t tmem, uint64_t adesc, uint64_t bdesc, uint32_t idesc) {
  __shared__ uint64_t empty;
  uint32_t bar = (uint32_t)__cvta_generic_to_shared(&empty);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" :: "r"(bar));
  __syncthreads();
  if (threadIdx.x < 32) {
    uint32_t v;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(tmem));
    asm volatile("tcgen05.wait::ld.sync.aligned;");
    asm volatile("tcgen05.fence::before_thread_sync;");
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar));
  } else if (threadIdx.x == 32) {
    asm volatile("{\\n.reg .pred p;\\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n@!p bra W;\\n}" :: "r"(bar));
    asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 0;" :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(idesc));
  }
}`,
    good: `__global__ void k(uint32_t tmem, uint64_t adesc, uint64_t bdesc, uint32_t idesc) {
  __shared__ uint64_t empty;
  uint32_t bar = (uint32_t)__cvta_generic_to_shared(&empty);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" :: "r"(bar));
  __syncthreads();
  if (threadIdx.x < 32) {
    uint32_t v;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(v) : "r"(tmem));
    asm volatile("tcgen05.wait::ld.sync.aligned;");
    asm volatile("tcgen05.fence::before_thread_sync;");
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar));
  } else if (threadIdx.x == 32) {
    asm volatile("{\\n.reg .pred p;\\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n@!p bra W;\\n}" :: "r"(bar));
    asm volatile("tcgen05.fence::after_thread_sync;");
    asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 0;" :: "r"(tmem), "l"(adesc), "l"(bdesc), "r"(idesc));
  }
}`,
    references: [
      'PTX ISA, tcgen05 memory consistency model: tcgen05.fence::before_thread_sync and tcgen05.fence::after_thread_sync',
      'DeepGEMM #285 (MQA logits) and ThunderKittens 9df1476 (B200 GEMMs) added exactly these fences',
    ],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const ops = opStatements(k.kernel);
      if (!ops.some((s) => touchesTmem(s.op))) continue;
      const order = new ProgramOrder(k.kernel, (e) => k.value(e));
      // The first of `stop` or `hit` a walk meets: what decides a fence question.
      const first = (walk: Iterable<Stmt>, stop: string, hit: (s: OpStmt) => boolean): OpStmt | undefined => {
        for (const s of walk) {
          if (s.kind !== 'op') continue;
          if (s.op.kind === stop) return undefined;
          if (hit(s)) return s;
        }
        return undefined;
      };
      const lastTmemBefore = (s: Stmt): OpStmt | undefined => {
        for (const p of order.before(s)) if (p.kind === 'op' && touchesTmem(p.op)) return p;
        return undefined;
      };
      const tensorCoreAfter = (s: Stmt): OpStmt | undefined => {
        for (const p of order.after(s)) if (p.kind === 'op' && tensorCoreOp(p.op)) return p;
        return undefined;
      };
      const bases = new Set(ops.map((s) => s.op.barrier?.base).filter((b): b is string => !!b));
      for (const base of bases) {
        const on = ops.filter((s) => s.op.barrier?.base === base);
        if (on.some((s) => s.op.kind === 'mma-commit-arrive')) continue;
        // Arrivals made by threads that touched tensor memory, and waits after which the thread hands tensor memory
        // to the tensor core (MMA, tcgen05.cp): the asynchronous pipe that races with the other role's ld/st.
        const releases = on.filter((s) => THREAD_ARRIVES.has(s.op.kind) && lastTmemBefore(s));
        const acquires = on.filter((s) => isBlockingWait(s.op) && tensorCoreAfter(s));
        if (!releases.length || !acquires.length) continue;
        const lines = (list: OpStmt[]): string => [...new Set(list.map((s) => line1(s.op.range)))].join(', ');
        for (const a of releases) {
          const used = first(order.before(a), 'tcgen05-fence-before', (s) => touchesTmem(s.op));
          if (!used) continue;
          ctx.report({
            range: a.op.range,
            message: `This arrive on \`${barrierName(a.op)}\` hands tensor memory to the role waiting at line ${lines(acquires)}, but no tcgen05.fence::before_thread_sync separates it from the tcgen05 operation at line ${line1(used.op.range)}: the arrive is not ordered after that operation, so the waiter's tcgen05 work may overwrite the tensor memory before it has been read.`,
            related: [
              { range: used.op.range, message: 'tcgen05 operation the arrive is not ordered after' },
              ...acquires.map((w) => ({ range: w.op.range, message: 'waits for the tensor memory' })),
            ],
          });
        }
        for (const w of acquires) {
          const use = first(order.after(w), 'tcgen05-fence-after', (s) => tensorCoreOp(s.op));
          if (!use) continue;
          ctx.report({
            range: w.op.range,
            message: `This wait on \`${barrierName(w.op)}\` takes over tensor memory released by the arrive at line ${lines(releases)} (after tcgen05 operations at line ${lines(releases.map((r) => lastTmemBefore(r)!))}), but no tcgen05.fence::after_thread_sync follows it before the tcgen05 operation at line ${line1(use.op.range)}: that operation may run before the wait is satisfied and clobber tensor memory the other role is still reading.`,
            related: [
              { range: use.op.range, message: 'tcgen05 operation not ordered after the wait' },
              ...releases.map((r) => ({ range: r.op.range, message: 'arrive that releases the tensor memory' })),
            ],
          });
        }
      }
    }
  },
};
