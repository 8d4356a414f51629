// PF201: a producer's first wait on a "free/empty" barrier that nothing can ever complete.
import { maxArrivalsPerPhase, type BlockedWait } from '../../analysis/protocol-run';
import { visitStmts, type KernelFacts } from '../../analysis/facts';
import type { BarrierOp, Stmt } from '../../ir/types';
import type { RuleDef } from '../types';
import { ARRIVE_KINDS } from '../op-kinds';
import { barrierName, line1 } from '../naming';
import { insertLineBefore } from '../fix-edits';

const EMPTY_NAME = /empty|free|ready|consum|releas|avail|done|finish/i;
const FULL_NAME = /full|fill|produc|arriv|load|data|tma/i;

export const missingBootstrapArrival: RuleDef = {
  meta: {
    id: 'missing-bootstrap-arrival',
    code: 'PF201',
    family: 'bootstrap',
    defaultSeverity: 'error',
    summary: 'The first wait on a free/empty barrier waits for a phase that nothing can complete (deadlock).',
    languages: ['cuda', 'croqtile', 'tilus'],
    fix: 'unsafe',
  },
  docs: {
    whatItDoes:
      'Replays the kernel for every thread of a block and reports the wait that starts a circular wait: typically a producer waiting for "slot free" before any consumer could have released a slot. The three correct conventions are accepted: the producer starts at parity 1 (a fresh barrier\'s phase 1 counts as complete), consumers pre-arrive once per slot before their loop, or the producer fills all slots in a prologue and only waits from the second round on. The replay runs at the kernel\'s block size, read from the translation unit ([launch shapes](../launch-shapes.md)); when nothing gives it, a finding that does not hold at every plausible size is reported as an information note instead.',
    whyIsThisBad: 'Consumers release slots only after consuming data, which the producer writes only after its first wait passes. Nobody can arrive, the phase never completes and the whole block hangs with no error message.',
    bad: `#include <cuda/ptx>
#define S 2
__global__ void k(int n) {
  __shared__ uint64_t full[S], empty[S];
  if (threadIdx.x < S) {
    cuda::ptx::mbarrier_init(&full[threadIdx.x], 1);
    cuda::ptx::mbarrier_init(&empty[threadIdx.x], 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&empty[i % S], (i / S) & 1)) {}
      (void)cuda::ptx::mbarrier_arrive(&full[i % S]);
    }
  } else if (threadIdx.x == 32) {
    for (int i = 0; i < n; ++i) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&full[i % S], (i / S) & 1)) {}
      (void)cuda::ptx::mbarrier_arrive(&empty[i % S]);
    }
  }
}`,
    good: `#include <cuda/ptx>
#define S 2
__global__ void k(int n) {
  __shared__ uint64_t full[S], empty[S];
  if (threadIdx.x < S) {
    cuda::ptx::mbarrier_init(&full[threadIdx.x], 1);
    cuda::ptx::mbarrier_init(&empty[threadIdx.x], 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&empty[i % S], ((i / S) & 1) ^ 1)) {}
      (void)cuda::ptx::mbarrier_arrive(&full[i % S]);
    }
  } else if (threadIdx.x == 32) {
    for (int i = 0; i < n; ++i) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&full[i % S], (i / S) & 1)) {}
      (void)cuda::ptx::mbarrier_arrive(&empty[i % S]);
    }
  }
}`,
    fixSafety: 'Starting the producer\'s phase at 1 is one of the three correct conventions; it is only right when consumers do not also pre-arrive.',
    references: ['CUTLASS make_producer_start_state (producer starts at phase 1)', 'Croqtile tutorial, consumer bootstrap', 'tilus mbarrier: producer_initial_phase = 1'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const runs = k.runs();
      if (!runs) continue;
      let culprit: BarrierOp | undefined;
      let detail: BlockedWait | undefined;
      let lastRun: (typeof runs)[number] | undefined;
      let all = true;
      for (const run of runs) {
        // A bootstrap deadlock: every blocked thread sits at its first wait on a barrier that has
        // never completed a phase. Deadlocks later in the pipeline are other rules' business.
        const isFirst = (b: BlockedWait): boolean => {
          const actor = run.actors.find((a) => a.threads.includes(b.threads[0]));
          const first = actor?.events.find((e) => e.kind === 'wait' && e.key === b.event.key);
          return first === b.event;
        };
        const blocked = run.deadlock;
        // ...and the arrivals each of those barriers still needs sit behind a blocked wait of some
        // thread (a cycle). If all its arrivals already happened, the count is wrong (PF401), and a
        // barrier nothing ever arrives on is a missing commit; neither is a bootstrap problem.
        const arrivalPending = (b: BlockedWait): boolean =>
          (blocked ?? []).some((o) => {
            const actor = run.actors.find((a) => a.threads.includes(o.threads[0]));
            if (!actor) return false;
            const at = actor.events.indexOf(o.event);
            return actor.events.slice(at + 1).some((e) => e.kind === 'arrive' && e.key === b.event.key);
          });
        // A barrier whose count no phase can ever reach is an arrival-count problem (PF401).
        const reachable = (b: BlockedWait): boolean => b.expected === undefined || maxArrivalsPerPhase(run, b.event.key) >= b.expected;
        if (!blocked?.length || !blocked.every((b) => b.phase === 0 && (b.event.parity === undefined || b.event.parity === 0) && isFirst(b) && arrivalPending(b) && reachable(b))) {
          all = false;
          break;
        }
        // Among the waits in the cycle, the bootstrap belongs to the one guarding a free slot.
        const score = (b: BlockedWait): number => {
          const name = b.event.op.barrier?.text ?? '';
          let s = 0;
          if (EMPTY_NAME.test(name)) s += 2;
          if (FULL_NAME.test(name) && !EMPTY_NAME.test(name)) s -= 2;
          const actor = run.actors.find((a) => a.threads.includes(b.threads[0]));
          const idx = actor ? actor.events.indexOf(b.event) : -1;
          const later = actor ? actor.events.slice(idx + 1) : [];
          if (later.some((e) => e.kind === 'use' && (e.op.kind === 'bulk-copy' || e.op.kind === 'cp-async' || e.op.kind === 'memcpy-async'))) s += 1;
          if (later.some((e) => e.kind === 'arrive' && e.op.kind === 'arrive-expect-tx')) s += 1;
          return s;
        };
        const best = [...blocked].sort((a, b) => score(b) - score(a) || a.event.op.range.start.line - b.event.op.range.start.line)[0];
        if (culprit && culprit !== best.event.op) {
          all = false;
          break;
        }
        culprit = best.event.op;
        detail = best;
        lastRun = run;
      }
      if (!all || !culprit || !detail) continue;
      const op = culprit;
      const arrivals = k.sites.filter((s) => s.op.barrier?.base === op.barrier?.base && ARRIVE_KINDS.has(s.op.kind));
      const related = arrivals.slice(0, 3).map((s) => ({ range: s.op.range, message: `arrives on ${barrierName(s.op)} only after waiting on another barrier` }));
      const fixes = [];
      if (op.parity && op.parity.kind === 'var') {
        const decl = findDecl(op.parity.name, k);
        if (decl?.value && decl.value.kind === 'num' && decl.value.value === 0) {
          // tilus spells the producer's start `self.mbarrier.producer_initial_phase` (== 1).
          const start = ctx.module.language === 'tilus' ? 'self.mbarrier.producer_initial_phase' : '1';
          fixes.push({ title: `Start \`${op.parity.text}\` at ${start} (the producer's first wait on a free slot passes at once)`, edits: [{ range: decl.value.range, newText: start }] });
        }
      }
      const what = op.kind === 'wait-parity' ? 'parity 0 (phase 0 complete)' : 'the phase of its own arrival';
      // Other slots of the same ring did complete: the bootstrap covers only part of the ring.
      const blockedKey = detail.event.key;
      // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
      const partial = [...(lastRun?.completedPhases ?? [])].some(([key, n]) => n > 0 && key !== blockedKey && key.replace(/\[[\s\S]*$/, '') === blockedKey.replace(/\[[\s\S]*$/, ''));
      const croqtile = ctx.module.language === 'croqtile';
      const base = op.barrier?.base ?? 'empty';
      if (croqtile) {
        // Insert the tutorial's bootstrap loop before the loop that releases the slots.
        const release = arrivals.find((a) => k.loops(a).length > 0);
        const loop = release ? k.loops(release)[0] : undefined;
        const n = k.arrayLength(base);
        if (loop?.lines && n !== undefined) {
          fixes.push({ title: `Insert the bootstrap loop (one \`trigger ${base}[s]\` per slot)`, preferred: true, edits: [insertLineBefore(loop.lines, `foreach {s} in [${n}] { trigger ${base}[s]; }`)] });
        }
      }
      if (!croqtile) {
        // Convention C: the releasing threads pre-arrive once per slot before their loop.
        const release = arrivals.find((a) => k.loops(a).length > 0 && a.op.barrier?.index);
        const loop = release ? k.loops(release)[0] : undefined;
        const n = k.arrayLength(base);
        if (release?.op.text !== undefined && loop?.lines && n !== undefined && release.op.range.start.line === release.op.range.end.line) {
          const call = release.op.text;
          const shown = release.op.barrier!.text;
          // The last subscript becomes `[s]`; found by hand because `/\[[^\]]*\]\s*$/` rescanned from every `[`.
          const end = shown.trimEnd().length - 1;
          const open = shown[end] === ']' ? shown.indexOf('[', shown.lastIndexOf(']', end - 1) + 1) : -1;
          const slot = open >= 0 && open < end ? `${shown.slice(0, open)}[s]` : shown;
          if (slot !== shown && call.includes(shown)) {
            const guards = release.ancestors
              .slice(release.ancestors.findIndex((a) => a.stmt === loop) + 1)
              .filter((a) => a.stmt.kind === 'if' && a.branch === 'then')
              .map((a) => (a.stmt.kind === 'if' ? `(${a.stmt.cond.text})` : ''));
            const body = `${call.replace(shown, slot)};`;
            const stmt = guards.length ? `if (${guards.join(' && ')}) ${body}` : body;
            fixes.push({
              title: `Pre-arrive once per slot of \`${base.replace(/#\d+$/, '')}\` before the releasing loop`,
              edits: [insertLineBefore(loop.lines, `for (int s = 0; s < ${n}; ++s) ${stmt}`)],
            });
          }
        }
      }
      const remedy = croqtile
        ? `Give every slot its initial credit: \`foreach {s} in [N] { trigger ${base}[s]; }\` before the consumer's loop, or declare the event \`= ready\` (current syntax)`
        : 'Bootstrap the free slots: start the producer at parity 1, pre-arrive once per slot before the consumer loop, or fill all slots in a prologue';
      ctx.report({
        range: op.range,
        message: `${partial ? `Partial bootstrap: slot \`${blockedKey}\` gets no initial credit although other slots of the ring do. ` : ''}Deadlock: this first wait on \`${barrierName(op)}\` needs ${what}, but every arrival on it comes from threads that are themselves waiting for this one (${detail.threads.length} thread(s) blocked here, ${detail.pending ?? '?'} of ${detail.expected ?? '?'} arrivals missing). ${remedy} (line ${line1(op.range)}).`,
        related,
        fixes,
      });
    }
  },
};

/** The declaration (`int phase = 0;`) of a local, anywhere in the kernel. */
function findDecl(name: string, k: KernelFacts): Extract<Stmt, { kind: 'assign' }> | undefined {
  let found: Extract<Stmt, { kind: 'assign' }> | undefined;
  visitStmts(k.kernel.body, (s) => {
    if (s.kind === 'assign' && s.declared && s.target === name) found ??= s;
  });
  return found;
}
