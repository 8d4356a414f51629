// PF205: an event declared `= ready` that also receives bootstrap triggers (double credit).
import type { RuleDef } from '../types';
import { deleteRange } from '../fix-edits';
import { CO_SOURCES } from '../croqtile-sources';
import { isBootstrapTrigger, isEvent, isReadyEvent } from '../event-roles';
import { line1 } from '../naming';

export const eventDoubleCredit: RuleDef = {
  meta: {
    id: 'event-double-credit',
    code: 'PF205',
    family: 'bootstrap',
    defaultSeverity: 'error',
    summary: 'A `= ready` event also gets bootstrap triggers: every slot starts with two credits.',
    languages: ['croqtile'],
    fix: 'unsafe',
  },
  docs: {
    whatItDoes: 'Reports bootstrap triggers (a role triggering an event before it waits on anything) on an event that is declared `= ready`, which already completes generation 0 of every slot.',
    whyIsThisBad: 'Each slot is credited twice: the producer may refill a slot while the consumer is still reading it (data race), and from then on every wait is one generation out of step, which ends in a hang or silently wrong results.',
    bad: `__co__ void k(global f16 [M, K] a) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2], empty[2] = ready;
    shared f16 [64, 64] buf[2];
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] {
          wait empty.at(iv);
          dma.copy a.chunkat(bm, iv) => buf[iv % 2];
          trigger full.at(iv);
        }
      }
      inthreads.async (p == 1) {
        foreach {s} in [2] { trigger empty.at(s); }
        foreach {iv} in [cdiv(K, 64)] {
          wait full.at(iv);
          trigger empty.at(iv);
        }
      }
    }
  }
}`,
    good: `__co__ void k(global f16 [M, K] a) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2], empty[2] = ready;
    shared f16 [64, 64] buf[2];
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] {
          wait empty.at(iv);
          dma.copy a.chunkat(bm, iv) => buf[iv % 2];
          trigger full.at(iv);
        }
      }
      inthreads.async (p == 1) {
        foreach {iv} in [cdiv(K, 64)] {
          wait full.at(iv);
          trigger empty.at(iv);
        }
      }
    }
  }
}`,
    fixSafety: 'Removing `= ready` keeps the explicit bootstrap; check that no other role relied on the ready state.',
    references: CO_SOURCES,
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const seen = new Set<string>();
      for (const s of k.sites) {
        const base = s.op.barrier?.base;
        if (!base || seen.has(base) || !isEvent(k, base) || !isReadyEvent(k, base) || !isBootstrapTrigger(k, s)) continue;
        seen.add(base);
        const decl = k.kernel.decls.get(base)!;
        // Drop the double credit: remove `= ready` from this event's declarator.
        const fixes = decl.initializerRange ? [{ title: `Remove \`= ready\` from \`${base}\` (keep the bootstrap triggers)`, edits: [deleteRange(decl.initializerRange)] }] : [];
        ctx.report({
          range: s.op.range,
          message: `\`${base}\` is declared \`= ready\` (line ${line1(decl.range)}), so generation 0 of every slot is already complete; this bootstrap trigger credits the slot a second time: the producer can overwrite a slot still in use (data race) and every later wait runs a generation out of step. Drop either \`= ready\` or the bootstrap loop.`,
          related: [{ range: decl.nameRange, message: 'declared ready here' }],
          fixes,
        });
      }
    }
  },
};
