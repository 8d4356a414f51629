// PF306: tutorial-era synchronisation syntax in a file written for the current compiler.
import type { RuleDef } from '../types';
import { CO_SOURCES } from '../croqtile-sources';

const WHY: Record<string, string> = {
  'mma.commit': 'the compiler now inserts the WGMMA commit/wait itself',
  'mma.wait': 'MMA completion is expressed with `q = mma.….async …; wait q;`',
};

export const removedSyncSyntax: RuleDef = {
  meta: {
    id: 'removed-sync-syntax',
    code: 'PF306',
    family: 'commit',
    defaultSeverity: 'error',
    summary: '`mma.commit`, `mma.wait<N>` or `tma.copy.async<event>` in a current-era Croqtile file.',
    languages: ['croqtile'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'In files that use current synchronisation syntax (`= ready`, `.at(order)`, `trigger … after`, `event<N>`), reports the tutorial-era forms the compiler removed: `mma.commit`, `mma.wait<N>` and the inline event of `tma.copy.async<e>`.',
    whyIsThisBad: 'The current compiler rejects these forms with a bare "syntax error"; mixing eras also mixes event semantics (in the tutorial era a wait also arrived), so the pipeline would not behave as written even if it compiled (a hang or race in disguise).',
    bad: `__co__ void k(global f16 [M, K] a) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2], empty[2] = ready;
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] { wait empty.at(iv); trigger full.at(iv); }
      }
      inthreads.async (p == 1) {
        foreach {iv} in [cdiv(K, 64)] {
          wait full.at(iv);
          mma.commit;
          trigger empty.at(iv);
        }
      }
    }
  }
}`,
    good: `__co__ void k(global f16 [M, K] a) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2], empty[2] = ready;
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] { wait empty.at(iv); trigger full.at(iv); }
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
    references: [...CO_SOURCES, 'Croqtile tests/parse/removed_*.co'],
  },
  check(ctx) {
    if (ctx.module.era !== 'C') return;
    for (const k of ctx.kernels) {
      for (const s of k.sites) {
        if (!s.op.legacy) continue;
        const form = s.op.api.startsWith('mma.commit') ? 'mma.commit' : s.op.api.startsWith('mma.wait') ? 'mma.wait' : 'tma.copy.async<event>';
        ctx.report({
          range: s.op.range,
          message: `\`${form}\` is ${s.op.legacy === 'A' ? 'tutorial-era' : 'mma.wait-era'} syntax that the current compiler rejects (syntax error), and this file otherwise uses current event syntax; ${WHY[form] ?? 'bind the copy with `f = tma.copy.async …; trigger e after f;`'}.`,
        });
      }
    }
  },
};
