// PF110: futures that are waited together but rotated separately.
import type { Stmt } from '../../ir/types';
import { forEachLoop } from '../../analysis/facts';
import type { RuleDef } from '../types';
import { CO_SOURCES } from '../croqtile-sources';
import { line1 } from '../naming';

export const futureRotationMismatch: RuleDef = {
  meta: {
    id: 'future-rotation-mismatch',
    code: 'PF110',
    family: 'phase',
    defaultSeverity: 'warning',
    summary: 'Two futures waited together are not rotated together (swap/rotate one without its partner).',
    languages: ['croqtile'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'In a loop that waits several futures together (`wait lf0, rf0;`) and rotates buffer handles with `swap`/`rotate`, reports a rotated future whose partner is not rotated in the same iteration.',
    whyIsThisBad: 'After the iteration the two names describe different tiles: the next wait covers one buffer that is in flight and one that is not, and the compute pairs operands from different K steps: silently wrong results or a read of a buffer still being filled (data race).',
    bad: `__co__ auto k(s32 [M, K] lhs, s32 [K, N] rhs) {
  s32 [lhs.span(0), rhs.span(1)] out;
  parallel {px} by [8] : block
    parallel {qx} by [16] : thread {
      with tk in 16 {
        lf0 = dma.copy.async lhs.chunkat(px, tk) => shared;
        rf0 = dma.copy.async rhs.chunkat(tk, 0) => shared;
        lf1 = dma.any;
        rf1 = dma.any;
        foreach tk(1:) {
          lf1 = dma.copy.async lhs.chunkat(px, tk) => shared;
          rf1 = dma.copy.async rhs.chunkat(tk, 0) => shared;
          wait lf0, rf0;
          swap(lf0, lf1);
        }
      }
    }
  return out;
}`,
    good: `__co__ auto k(s32 [M, K] lhs, s32 [K, N] rhs) {
  s32 [lhs.span(0), rhs.span(1)] out;
  parallel {px} by [8] : block
    parallel {qx} by [16] : thread {
      with tk in 16 {
        lf0 = dma.copy.async lhs.chunkat(px, tk) => shared;
        rf0 = dma.copy.async rhs.chunkat(tk, 0) => shared;
        lf1 = dma.any;
        rf1 = dma.any;
        foreach tk(1:) {
          lf1 = dma.copy.async lhs.chunkat(px, tk) => shared;
          rf1 = dma.copy.async rhs.chunkat(tk, 0) => shared;
          wait lf0, rf0;
          swap(lf0, lf1);
          swap(rf0, rf1);
        }
      }
    }
  return out;
}`,
    references: [...CO_SOURCES, 'Croqtile tutorial ch06, double buffering with swap'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const visitLoop = (body: Stmt[]): void => {
        const waits: { range: import('../../api').Range; futures: string[] }[] = [];
        const rotated = new Map<string, Stmt>();
        const issued = new Set<string>();
        const walk = (list: Stmt[]): void => {
          for (const s of list) {
            if (s.kind === 'op' && s.op.kind === 'future-wait' && s.op.futures?.[0]) {
              const same = waits.find((w) => w.range.start.line === s.op.range.start.line && w.range.start.character === s.op.range.start.character);
              if (same) same.futures.push(s.op.futures[0]);
              else waits.push({ range: s.op.range, futures: [s.op.futures[0]] });
            } else if (s.kind === 'op' && s.op.kind === 'future-rotate') s.op.futures?.forEach((f) => rotated.set(f, s));
            else if (s.kind === 'op' && s.op.kind === 'future-issue' && s.op.futures?.[0]) issued.add(s.op.futures[0]);
            else if (s.kind === 'if') {
              walk(s.then);
              walk(s.else);
            }
          }
        };
        walk(body);
        for (const w of waits) {
          if (w.futures.length < 2) continue;
          const moved = w.futures.filter((f) => rotated.has(f));
          // Only a double-buffered partner counts: its sibling handle (rf1 for rf0) is refilled in this loop.
          const sibling = (f: string): boolean => [...issued].some((g) => g !== f && g.slice(0, -1) === f.slice(0, -1));
          const still = w.futures.filter((f) => !rotated.has(f) && sibling(f));
          if (!moved.length || !still.length) continue;
          const rot = rotated.get(moved[0])!;
          ctx.report({
            range: rot.range,
            message: `\`${moved[0]}\` is rotated here but \`${still[0]}\`, waited together with it on line ${line1(w.range)}, is not: from the next iteration on the two handles name tiles of different steps (wrong pairing, or a read of a buffer still in flight). Rotate both.`,
            related: [{ range: w.range, message: 'waited together here' }],
          });
        }
      };
      forEachLoop(k.kernel.body, (loop) => visitLoop(loop.body));
    }
  },
};
