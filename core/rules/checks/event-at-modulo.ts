// PF107: `e.at(x % N)` throws away the generation that `.at` derives the phase from.
import type { RuleDef } from '../types';
import { CO_SOURCES } from '../croqtile-sources';

export const eventAtModulo: RuleDef = {
  meta: {
    id: 'event-at-modulo',
    code: 'PF107',
    family: 'phase',
    defaultSeverity: 'error',
    summary: '`e.at(x % N)` reduces the order modulo the ring size, losing the phase.',
    languages: ['croqtile'],
    fix: 'safe',
  },
  docs: {
    whatItDoes: 'Reports `wait`/`trigger` on `e.at(order)` where the order is already reduced modulo something (`.at(iv % 2)`).',
    whyIsThisBad: '`.at(order)` picks slot `order % N` and phase `(order / N) & 1`. With `order % N` the phase is always 0: from the second round on, waits pass at once (data race) or hang. Pass the running order (`.at(iv)`), or keep it modulo 2N.',
    bad: `__co__ void k(global f16 [M, K] a) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2], empty[2] = ready;
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] { wait empty.at(iv); trigger full.at(iv); }
      }
      inthreads.async (p == 1) {
        foreach {iv} in [cdiv(K, 64)] { wait full.at(iv % 2); trigger empty.at(iv); }
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
    fixSafety: 'Replacing `.at(x % N)` by `.at(x)` gives the slot the same index and restores the phase.',
    references: CO_SOURCES,
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      for (const s of k.sites) {
        const idx = s.op.barrier?.index;
        if (!s.op.atOrder || idx?.kind !== 'binary' || idx.op !== '%') continue;
        const n = k.value(idx.right);
        // The order itself, through a local set once per iteration (`stage = iv % S; .at(stage)`).
        const loop = k.innermostLoop(s);
        const written = idx.left;
        const order = written.kind === 'var' ? ((k.derived.get(written.name) ?? (loop ? k.loopDefs(loop).get(written.name) : undefined)) ?? written) : written;
        if (order.kind !== 'binary' || order.op !== '%') continue;
        // Reducing modulo a multiple of 2N keeps both the slot and the phase bit: that is allowed.
        const m = k.value(order.right);
        if (n === undefined || m === undefined || m % (2 * n) === 0) continue;
        const fix = written === order && order.left.text && order.range.start.line === order.range.end.line ? [{ title: `Use .at(${order.left.text})`, edits: [{ range: order.range, newText: order.left.text }], preferred: true }] : [];
        ctx.report({
          range: s.op.range,
          message: `\`.at(${written.text})\` reduces the order modulo ${order.right.text} first${written === order ? '' : ` (\`${written.text}\` is \`${order.text}\`)`}: the phase \`(order / N) & 1\` is then always 0, so from the second round on this ${s.op.kind.startsWith('wait') ? 'wait passes early (data race) or hangs' : 'trigger completes the wrong generation'}. Pass the running order instead.`,
          fixes: fix,
        });
      }
    }
  },
};
