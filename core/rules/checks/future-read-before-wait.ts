// PF108: a future's data is read before the future is waited.
import { visitStmts } from '../../analysis/facts';
import type { Stmt } from '../../ir/types';
import type { RuleDef } from '../types';
import { CO_SOURCES } from '../croqtile-sources';
import { line1 } from '../naming';

export const futureReadBeforeWait: RuleDef = {
  meta: {
    id: 'future-read-before-wait',
    code: 'PF108',
    family: 'phase',
    defaultSeverity: 'error',
    summary: 'A future\'s `.data` is read before the future is waited.',
    languages: ['croqtile'],
    fix: 'safe',
  },
  docs: {
    whatItDoes: 'Follows each asynchronous copy future from its issue to its uses and reports a `.data`/`.span` read that comes before any `wait` on that future in the same block of code.',
    whyIsThisBad: 'The copy runs in the background; reading its destination before waiting reads whatever the buffer held before: a data race that usually produces plausible-looking wrong numbers.',
    bad: `__co__ auto k(s32 [M, K] lhs) {
  s32 [lhs.span(0)] out;
  parallel {px} by [8] : block
    parallel {qx} by [16] : thread {
      f = dma.copy.async lhs.chunkat(px, 0) => shared;
      out.at(px#qx) = f.data.at(qx, 0);
      wait f;
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
    fixSafety: 'Moving the wait before the read only removes overlap.',
    references: [...CO_SOURCES, 'Croqtile Documents/Documentation/futures-and-async.md'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      // Straight-line scan per statement list: an issue makes the future pending, a wait (or a rotation,
      // whose partner was waited) settles it.
      const rotatedInLoop = new Set<string>();
      const scan = (list: Stmt[], pending: Map<string, Stmt>): void => {
        for (const s of list) {
          if (s.kind === 'op') {
            const f = s.op.futures?.[0];
            if (s.op.kind === 'future-issue' && f && !s.op.api.endsWith('.any')) pending.set(f, s);
            else if (s.op.kind === 'future-wait' && f) pending.delete(f);
            else if (s.op.kind === 'future-rotate') s.op.futures?.forEach((x) => pending.delete(x));
            else if (s.op.kind === 'future-use' && s.op.api === 'select') s.op.futures?.forEach((x) => pending.delete(x));
            else if (s.op.kind === 'future-use' && f && pending.has(f)) {
              const issue = pending.get(f)!;
              const swapped = rotatedInLoop.has(f);
              ctx.report({
                range: s.op.range,
                message: swapped
                  ? `\`${f}.data\` is read here, but after the loop's swaps \`${f}\` names the copy started in the last iteration, which is never waited: the read races with that copy. \`wait ${f};\` first.`
                  : `\`${f}.data\` is read here, but the asynchronous copy that produces it (line ${line1(issue.range)}) has not been waited yet: the read races with the copy. \`wait ${f};\` first.`,
                related: swapped ? [] : [{ range: issue.range, message: 'the copy starts here' }],
              });
              pending.delete(f);
            }
          } else if (s.kind === 'if') {
            scan(s.then, new Map(pending));
            scan(s.else, new Map(pending));
          } else if (s.kind === 'loop') {
            scan(s.body, new Map(pending));
            visitStmts(s.body, (x) => {
              if (x.kind === 'op' && x.op.kind === 'future-rotate') x.op.futures?.forEach((f) => rotatedInLoop.add(f));
            });
          }
        }
      };
      scan(k.kernel.body, new Map());
    }
  },
};
