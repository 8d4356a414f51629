// PF404: an event that some role waits on but nobody ever triggers (or binds to a copy).
import type { RuleDef } from '../types';
import { CO_SOURCES } from '../croqtile-sources';
import { isEvent, isReadyEvent } from '../event-roles';

export const eventWaitedNeverTriggered: RuleDef = {
  meta: {
    id: 'event-waited-never-triggered',
    code: 'PF404',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'An event is waited on but never triggered: its waits can never complete.',
    languages: ['croqtile'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'Reports events with at least one `wait` but no `trigger` (plain, `.cluster` or `after`) and no copy bound to them, anywhere in the function.',
    whyIsThisBad: 'No arrival ever reaches the event, so the first wait blocks forever (only a `= ready` event lets one generation through): the kernel hangs without an error.',
    bad: `__co__ void k(global f16 [M, K] a) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2];
    parallel p by 2 : group-4 {
      inthreads.async (p == 1) {
        foreach {iv} in [cdiv(K, 64)] { wait full.at(iv); }
      }
    }
  }
}`,
    good: `__co__ void k(global f16 [M, K] a) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2];
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] { trigger full.at(iv); }
      }
      inthreads.async (p == 1) {
        foreach {iv} in [cdiv(K, 64)] { wait full.at(iv); }
      }
    }
  }
}`,
    references: CO_SOURCES,
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const bases = new Set(k.sites.map((s) => s.op.barrier?.base).filter((b): b is string => !!b && isEvent(k, b)));
      for (const base of bases) {
        const ops = k.opsOn(base);
        const waits = ops.filter((s) => s.op.api === 'wait');
        const credits = ops.filter((s) => s.op.api.startsWith('trigger') || s.op.kind === 'bulk-copy' || (s.op.kind === 'arrive' && !s.op.api.startsWith('wait')));
        if (!waits.length || credits.length) continue;
        const ready = isReadyEvent(k, base);
        // A ready event lets its first generation through: only repeated waits must hang.
        if (ready && !waits.some((w) => k.loops(w).length > 0)) continue;
        ctx.report({
          range: waits[0].op.range,
          message: `\`${base}\` is waited on here but never triggered anywhere in \`${k.kernel.name}\`: ${ready ? 'after its ready generation, ' : ''}the wait blocks forever (hang). Trigger it in the producing role, or bind a copy to it with \`trigger ${base}… after f\`.`,
        });
      }
    }
  },
};
