// PF405: producer and consumer loops over the same event ring run different numbers of iterations.
import { exprKey } from '../../ir/expr';
import type { Expr } from '../../ir/types';
import type { LoopStmt } from '../../analysis/facts';
import type { RuleDef } from '../types';
import { CO_SOURCES } from '../croqtile-sources';
import { isBootstrapTrigger, isEvent } from '../event-roles';
import { roleOf } from '../roles';
import { line1 } from '../naming';
import { WAIT_KINDS } from '../op-kinds';

export const tripCountMismatch: RuleDef = {
  meta: {
    id: 'trip-count-mismatch',
    code: 'PF405',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'The producer and consumer loops on one event ring have different trip counts.',
    languages: ['croqtile'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'For each event, compares the bounds of the loops that trigger it in one role and the loops that wait on it in another (bootstrap loops excluded).',
    whyIsThisBad: 'If the consumer runs more iterations than the producer, its last waits never complete (hang); if fewer, the producer blocks on slots nobody releases, or leaves stages unconsumed. The tutorial\'s debugging advice starts here: both sides must use the same `cdiv(K, TILE_K)`.',
    bad: `__co__ void k(global f16 [M, K] a) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2], empty[2] = ready;
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] { wait empty.at(iv); trigger full.at(iv); }
      }
      inthreads.async (p == 1) {
        foreach {iv} in [cdiv(K, 32)] { wait full.at(iv); trigger empty.at(iv); }
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
        foreach {iv} in [cdiv(K, 64)] { wait full.at(iv); trigger empty.at(iv); }
      }
    }
  }
}`,
    references: CO_SOURCES,
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const end = (l: LoopStmt): Expr | undefined => (l.cond && l.cond.kind === 'binary' ? l.cond.right : l.cond);
      const bound = (l: LoopStmt): string => `${exprKey(l.init && k.resolve(l.init))}..${exprKey(end(l) && k.resolve(end(l)!))}`;
      const reported = new Set<string>();
      const pairKey = (a: LoopStmt, b: LoopStmt): string => [a.range.start.line, b.range.start.line].sort((x, y) => x - y).join(':');
      const bases = new Set(k.sites.map((s) => s.op.barrier?.base).filter((b): b is string => !!b && isEvent(k, b)));
      for (const base of bases) {
        const ops = k.opsOn(base);
        const triggers = ops.filter((s) => s.op.api.startsWith('trigger') && !isBootstrapTrigger(k, s));
        const waits = ops.filter((s) => WAIT_KINDS.has(s.op.kind) && s.op.api === 'wait');
        for (const t of triggers) {
          const tl = k.loops(t)[0];
          if (!tl) continue;
          for (const w of waits) {
            const wl = k.loops(w)[0];
            if (!wl || wl === tl || roleOf(k, w) === roleOf(k, t) || reported.has(pairKey(tl, wl))) continue;
            const a = bound(tl);
            const b = bound(wl);
            const va = k.value(end(tl) && k.resolve(end(tl)!));
            const vb = k.value(end(wl) && k.resolve(end(wl)!));
            const differ = va !== undefined && vb !== undefined ? va !== vb || exprKey(tl.init) !== exprKey(wl.init) : a !== b;
            if (!differ) continue;
            reported.add(pairKey(tl, wl));
            ctx.report({
              range: wl.range,
              message: `This loop waits on \`${base}\` over \`${wl.cond?.text ?? '?'}\` iterations, but the loop that triggers it (line ${line1(tl.range)}) runs over \`${tl.cond?.text ?? '?'}\`: the sides fall out of step, so the extra waits hang or slots are never released. Use the same bound on both sides.`,
              related: [{ range: tl.range, message: 'the triggering loop' }],
            });
          }
        }
      }
    }
  },
};
