// PF410 (tilus): a whole thread group arrives on a barrier allocated for fewer arrivals.
import type { RuleDef } from '../types';
import { arrivalBalance } from '../arrival-balance';
import { barrierName } from '../naming';

export const threadGroupOverArrival: RuleDef = {
  meta: {
    id: 'thread-group-over-arrival',
    code: 'PF410',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'Every thread of a tilus thread group arrives on a barrier allocated for fewer arrivals (no `single_thread()`).',
    languages: ['tilus'],
    fix: 'safe',
  },
  docs: {
    whatItDoes:
      'In tilus, `self.mbarrier.arrive` and `arrive_and_expect_tx` are executed by every thread of the current thread group. Replays the Script per thread at its block size (`self.attrs.warps`) and reports an arrive whose threads together arrive more often in one phase than the count the barrier was allocated with (`self.mbarrier.alloc(counts=[...])`). When the barrier expects one arrival, the quick fix wraps the arrive in `with self.single_thread():`.',
    whyIsThisBad:
      'A group of 32 threads arriving on a barrier allocated for 1 completes the phase with the first arrival; the other 31 complete the following phases early, so consumers read stages whose TMA data has not landed (data race), or the hardware traps with "unspecified launch failure" when an arrival underflows a phase.',
    bad: `import tilus
from tilus import uint32


class Bad(tilus.Script):
    def __call__(self, n: int):
        self.attrs.blocks = 1
        self.attrs.warps = 2
        ready = self.mbarrier.alloc(counts=[1])
        phase: uint32 = 0
        with self.thread_group(thread_begin=0, num_threads=32):
            for i in self.range(n):
                self.mbarrier.arrive(ready[0])
        with self.thread_group(thread_begin=32, num_threads=32):
            for i in self.range(n):
                self.mbarrier.wait(ready[0], phase=phase)
                phase ^= 1
`,
    good: `import tilus
from tilus import uint32


class Good(tilus.Script):
    def __call__(self, n: int):
        self.attrs.blocks = 1
        self.attrs.warps = 2
        ready = self.mbarrier.alloc(counts=[1])
        phase: uint32 = 0
        with self.thread_group(thread_begin=0, num_threads=32):
            for i in self.range(n):
                with self.single_thread():
                    self.mbarrier.arrive(ready[0])
        with self.thread_group(thread_begin=32, num_threads=32):
            for i in self.range(n):
                self.mbarrier.wait(ready[0], phase=phase)
                phase ^= 1
`,
    fixSafety: 'Safe when the barrier expects one arrival per phase: the arrive then runs on one thread of the group, which is what the count says. Offered only for a one-line arrive written in the kernel itself and a count of 1.',
    references: ['tilus documentation, Script.mbarrier: "every thread in the current thread group signals an arrival"', 'PTX ISA, mbarrier.arrive (pending arrival count)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const balance = arrivalBalance(k);
      if (!balance) continue;
      for (const [op, v] of balance.over) {
        const lines = op.lines;
        const oneLine = lines && op.text && op.via.length === 0 && lines.first.start.line === lines.last.start.line && !lines.before.trim() && !lines.after.trim();
        const fixes =
          oneLine && v.expected === 1
            ? [{ title: 'Wrap the arrive in `with self.single_thread():`', preferred: true, edits: [{ range: { start: { ...lines.first.start }, end: { ...lines.first.end } }, newText: `${lines.indent}with self.single_thread():\n${lines.indent}    ${op.text}` }] }]
            : [];
        ctx.report({
          range: op.range,
          message: `Every thread of the thread group executes this ${op.api.replace(/^self\./, '')}: ${v.threads} threads, ${v.total} arrivals in one phase on \`${barrierName(op)}\`, which was allocated for ${v.expected}. The surplus completes phases early (waiters read data that has not landed) or traps. ${v.expected === 1 ? 'Arrive from one thread with `with self.single_thread():`.' : `Allocate it with counts=${v.total}, or arrive from fewer threads.`}`,
          fixes,
        });
      }
    }
  },
};
