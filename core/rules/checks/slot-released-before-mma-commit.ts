// PF305: a tutorial-era consumer releases a slot while its MMAs may still read it.
import type { Stmt } from '../../ir/types';
import { forEachLoop } from '../../analysis/facts';
import type { RuleDef } from '../types';
import { CO_SOURCES } from '../croqtile-sources';
import { isEvent } from '../event-roles';
import { insertLineBefore } from '../fix-edits';

export const slotReleasedBeforeMmaCommit: RuleDef = {
  meta: {
    id: 'slot-released-before-mma-commit',
    code: 'PF305',
    family: 'commit',
    defaultSeverity: 'warning',
    summary: 'A slot is released with `trigger` after MMA work without `mma.commit` in between (tutorial era).',
    languages: ['croqtile'],
    fix: 'safe',
  },
  docs: {
    whatItDoes: 'In tutorial-era (and mma.wait-era) files, reports a `trigger` inside a pipeline loop that follows MMA instructions of the same iteration with no `mma.commit` (or `mma.wait<N>`) between the last MMA and the trigger.',
    whyIsThisBad: 'WGMMA runs asynchronously: until it is committed and waited, it may still be reading the shared-memory stage. Releasing the stage lets the producer overwrite operands the tensor core has not read yet: silently wrong results, not a hang.',
    bad: `__co__ void k(global f16 [M, K] a, global f16 [N, K] b) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2], empty[2];
    shared f16 [64, 64] sa[2];
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] {
          wait empty[iv % 2];
          tma.copy.async<full[iv % 2]> a.chunkat(bm, iv) => sa[iv % 2];
          trigger full[iv % 2];
        }
      }
      inthreads.async (p == 1) {
        mc = mma.fill.f16 0.0f;
        foreach {s} in [2] trigger empty[s];
        foreach {iv} in [cdiv(K, 64)] {
          wait full[iv % 2];
          ma = mma.load sa[iv % 2];
          mma.row.row mc, ma, ma;
          trigger empty[iv % 2];
        }
      }
    }
  }
}`,
    good: `__co__ void k(global f16 [M, K] a, global f16 [N, K] b) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2], empty[2];
    shared f16 [64, 64] sa[2];
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] {
          wait empty[iv % 2];
          tma.copy.async<full[iv % 2]> a.chunkat(bm, iv) => sa[iv % 2];
          trigger full[iv % 2];
        }
      }
      inthreads.async (p == 1) {
        mc = mma.fill.f16 0.0f;
        foreach {s} in [2] trigger empty[s];
        foreach {iv} in [cdiv(K, 64)] {
          wait full[iv % 2];
          ma = mma.load sa[iv % 2];
          mma.row.row mc, ma, ma;
          mma.commit;
          trigger empty[iv % 2];
        }
      }
    }
  }
}`,
    fixSafety: '`mma.commit` before the release is what the tutorial prescribes; it only costs overlap.',
    references: CO_SOURCES,
  },
  check(ctx) {
    if (ctx.module.era !== 'A' && ctx.module.era !== 'B') return;
    for (const k of ctx.kernels) {
      const visitLoop = (body: Stmt[]): void => {
        // Walk the iteration in order: an MMA opens a window that a fence closes.
        let pending = false;
        const walk = (list: Stmt[]): void => {
          for (const s of list) {
            if (s.kind === 'op') {
              if (s.op.kind === 'mma') pending = true;
              else if (s.op.kind === 'mma-fence') pending = false;
              else if (pending && s.op.kind === 'arrive' && !s.op.api.startsWith('wait') && s.op.barrier && isEvent(k, s.op.barrier.base)) {
                ctx.report({
                  range: s.op.range,
                  message: `\`${s.op.barrier.text}\` is released while the MMAs issued above may still read the stage: without \`mma.commit\` before this trigger the producer can overwrite operands the tensor core has not consumed (silent corruption).`,
                  fixes: s.op.lines ? [{ title: 'Insert mma.commit before the release', preferred: true, edits: [insertLineBefore(s.op.lines, 'mma.commit;')] }] : [],
                });
                pending = false;
              }
            } else if (s.kind === 'if') {
              walk(s.then);
              walk(s.else);
            } else if (s.kind === 'loop') walk(s.body);
          }
        };
        walk(body);
      };
      forEachLoop(k.kernel.body, (loop) => visitLoop(loop.body));
    }
  },
};
