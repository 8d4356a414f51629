// PF109: an asynchronous copy whose future nobody waits on (nor binds to an event).
import type { RuleDef } from '../types';
import { CO_SOURCES } from '../croqtile-sources';

export const futureNeverWaited: RuleDef = {
  meta: {
    id: 'future-never-waited',
    code: 'PF109',
    family: 'phase',
    defaultSeverity: 'warning',
    summary: 'An asynchronous copy\'s future is never waited or bound to an event.',
    languages: ['croqtile'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'Reports futures of `dma.copy.async` / `tma.copy.async` / `tma.load.async` / `mma….async` that no `wait`, `trigger … after`, swap/rotate partner or later read ever settles.',
    whyIsThisBad: 'Nothing orders the copy with the code that uses its destination, and the block may even exit while the copy is still writing: stale data or a race with the next user of the buffer.',
    bad: `__co__ auto k(s32 [M, K] lhs) {
  s32 [lhs.span(0)] out;
  parallel {px} by [8] : block
    parallel {qx} by [16] : thread {
      f = dma.copy.async lhs.chunkat(px, 0) => shared;
      out.at(px#qx) = 0;
    }
  return out;
}`,
    good: `__co__ auto k(s32 [M, K] lhs) {
  s32 [lhs.span(0)] out;
  parallel {px} by [8] : block
    parallel {qx} by [16] : thread {
      f = dma.copy.async lhs.chunkat(px, 0) => shared;
      wait f;
      out.at(px#qx) = f.data.at(qx, 0);
    }
  return out;
}`,
    references: [...CO_SOURCES, 'Croqtile tests/check/no_wait.co'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const settled = new Set<string>();
      for (const s of k.sites) {
        if (s.op.kind === 'future-wait' || s.op.kind === 'future-rotate' || s.op.kind === 'future-use') s.op.futures?.forEach((f) => settled.add(f));
      }
      const seen = new Set<string>();
      for (const s of k.sites) {
        const f = s.op.futures?.[0];
        if (s.op.kind !== 'future-issue' || !f || s.op.api.endsWith('.any') || settled.has(f) || seen.has(f)) continue;
        seen.add(f);
        ctx.report({
          range: s.op.range,
          message: `The future \`${f}\` of this asynchronous operation is never waited, bound with \`trigger … after\`, or read: nothing orders the copy with its users (race), and the block can finish while it is still in flight.`,
        });
      }
    }
  },
};
