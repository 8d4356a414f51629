// PF102: a token waited twice (moved-from), or a token from before a loop waited in every iteration.
import type { Stmt } from '../../ir/types';
import { assignedIn } from '../../analysis/facts';
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';

function tokenName(t: import('../../ir/types').Expr | undefined): string | undefined {
  if (!t) return undefined;
  if (t.kind === 'var') return t.name;
  if (t.kind === 'call' && t.callee === 'move' && t.args[0]?.kind === 'var') return t.args[0].name;
  return undefined;
}

export const staleOrMovedToken: RuleDef = {
  meta: {
    id: 'stale-or-moved-token',
    code: 'PF102',
    family: 'phase',
    defaultSeverity: 'error',
    summary: 'A token is waited after it was already consumed, or names a phase from an earlier iteration.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes: 'Tracks each arrival token from its arrive to its waits. Reports a second wait with the same (moved-from) token, and a wait inside a loop whose token was produced once before the loop.',
    whyIsThisBad:
      'A wait is only defined for a token of the current or the immediately preceding phase. A token produced before a loop is two or more phases old from the second iteration on: the wait is undefined behaviour and in practice returns without waiting (data race) or hangs. A moved-from token has no value at all.',
    bad: `#include <cuda/barrier>
__global__ void k(int n) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  auto token = bar.arrive();
  for (int i = 0; i < n; ++i) {
    bar.wait(std::move(token));
  }
}`,
    good: `#include <cuda/barrier>
__global__ void k(int n) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  for (int i = 0; i < n; ++i) {
    auto token = bar.arrive();
    bar.wait(std::move(token));
  }
}`,
    references: ['CUDA C++ Programming Guide, 4.9.2 A Barrier\'s Phase (token of the current or immediately preceding phase)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      // Loop case: all definitions of the token lie outside the loop that waits on it.
      for (const s of k.sites) {
        if (s.op.kind !== 'wait-token') continue;
        const name = tokenName(s.op.token);
        if (!name || name.startsWith('<token')) continue;
        const loop = k.innermostLoop(s);
        if (!loop) continue;
        const defs = k.sites.filter((d) => d.op.tokenOut === name);
        if (!defs.length || assignedIn([...loop.body, ...(loop.step ?? [])]).has(name)) continue;
        const d = defs[0];
        ctx.report({
          range: s.op.range,
          message: `\`${name.replace(/#\d+$/, '')}\` is produced once, by the arrive on line ${line1(d.op.range)} before the loop at line ${line1(loop.range)}, but waited on \`${barrierName(s.op)}\` in every iteration: from the second iteration on it names a phase that is already over (undefined behaviour: early return or hang). Arrive again in each iteration.`,
          related: [{ range: d.op.range, message: 'the only arrive that produces this token' }],
        });
      }
      // Moved-from case: a second wait with the same token in straight-line code.
      const scan = (list: Stmt[], consumed: Map<string, Stmt>): void => {
        for (const st of list) {
          if (st.kind === 'assign') consumed.delete(st.target);
          else if (st.kind === 'op') {
            if (st.op.tokenOut) consumed.delete(st.op.tokenOut);
            if (st.op.kind === 'wait-token' && st.op.result === 'blocking') {
              const name = tokenName(st.op.token);
              if (!name || name.startsWith('<token')) continue;
              const prev = consumed.get(name);
              if (prev && prev.kind === 'op') {
                ctx.report({
                  range: st.op.range,
                  message: `\`${name.replace(/#\d+$/, '')}\` was already moved into the wait on line ${line1(prev.range)}: this second wait uses a moved-from token (undefined behaviour; typically it returns at once or hangs). Arrive again to get a fresh token.`,
                  related: [{ range: prev.range, message: 'the token is consumed here' }],
                });
              }
              if (st.op.token?.kind === 'call') consumed.set(name, st);
            }
          } else if (st.kind === 'if') {
            scan(st.then, new Map(consumed));
            scan(st.else, new Map(consumed));
          } else if (st.kind === 'loop') {
            scan(st.body, new Map());
          }
        }
      };
      scan(k.kernel.body, new Map());
    }
  },
};
