// PF411 (tilus): a barrier allocated for more arrivals than the thread groups that arrive on it make.
import type { RuleDef } from '../types';
import { arrivalBalance } from '../arrival-balance';
import { barrierName, line1 } from '../naming';

export const threadGroupUnderArrival: RuleDef = {
  meta: {
    id: 'thread-group-under-arrival',
    code: 'PF411',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'A tilus barrier is allocated for more arrivals per phase than its thread groups make (e.g. 128 when one warp arrives).',
    languages: ['tilus'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Replays the Script per thread at its block size (`self.attrs.warps`) and adds up, per phase, the arrivals on each waited barrier from every thread group (`arrive` counts once per thread of the group, `single_thread()` once, `tcgen05.commit` once). Reports the `self.mbarrier.alloc` whose count is larger than that: a barrier allocated for a warp group (128) that only one warp (32 threads) or one thread arrives on.',
    whyIsThisBad: 'The phase completes only when the allocated number of arrivals has come: with fewer, every `wait` on it hangs (the kernel never finishes).',
    bad: `import tilus
from tilus import uint32


class Bad(tilus.Script):
    def __call__(self, n: int):
        self.attrs.blocks = 1
        self.attrs.warps = 5
        done = self.mbarrier.alloc(counts=[128])
        phase: uint32 = 0
        with self.thread_group(thread_begin=0, num_threads=32):
            for i in self.range(n):
                self.mbarrier.arrive(done[0])
        with self.thread_group(thread_begin=32, num_threads=128):
            for i in self.range(n):
                self.mbarrier.wait(done[0], phase=phase)
                phase ^= 1
`,
    good: `import tilus
from tilus import uint32


class Good(tilus.Script):
    def __call__(self, n: int):
        self.attrs.blocks = 1
        self.attrs.warps = 5
        done = self.mbarrier.alloc(counts=[32])
        phase: uint32 = 0
        with self.thread_group(thread_begin=0, num_threads=32):
            for i in self.range(n):
                self.mbarrier.arrive(done[0])
        with self.thread_group(thread_begin=32, num_threads=128):
            for i in self.range(n):
                self.mbarrier.wait(done[0], phase=phase)
                phase ^= 1
`,
    references: ['tilus documentation, Script.mbarrier.alloc (expected arrival counts)', 'PTX ISA, mbarrier phase completion'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const balance = arrivalBalance(k);
      if (!balance) continue;
      for (const [op, v] of balance.under) {
        ctx.report({
          range: op.range,
          message: `\`${barrierName(op)}\` is allocated for ${v.expected} arrivals per phase, but its thread groups make at most ${v.max}: the phase never completes and every wait on it hangs. Allocate it with the number of threads that arrive (line ${line1(op.range)}).`,
        });
      }
    }
  },
};
