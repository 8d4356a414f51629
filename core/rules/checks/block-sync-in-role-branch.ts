// PF408: a block-wide barrier (`__syncthreads()`) inside a branch that only some threads of the block take.
import type { Stmt } from '../../ir/types';
import { analysedBlockSizes, blockSizeKnown, visitStmts, type KernelFacts } from '../../analysis/facts';
import { describeThreads } from '../../analysis/barrier-protocol';
import { line1 } from '../naming';
import { threadsOnPath } from '../roles';
import type { RuleDef } from '../types';

type SyncStmt = Extract<Stmt, { kind: 'sync' }>;

/** Block syncs with the branches around each, outermost first (which side of each `if` holds it). */
function blockSyncs(body: Stmt[]): { sync: SyncStmt; path: { stmt: Extract<Stmt, { kind: 'if' }>; then: boolean }[] }[] {
  const out: { sync: SyncStmt; path: { stmt: Extract<Stmt, { kind: 'if' }>; then: boolean }[] }[] = [];
  const walk = (list: Stmt[], path: { stmt: Extract<Stmt, { kind: 'if' }>; then: boolean }[]): void => {
    for (const s of list) {
      if (s.kind === 'sync' && s.scope === 'block' && !s.named) out.push({ sync: s, path });
      else if (s.kind === 'if') {
        walk(s.then, [...path, { stmt: s, then: true }]);
        walk(s.else, [...path, { stmt: s, then: false }]);
      } else if (s.kind === 'loop') walk(s.body, path);
    }
  };
  walk(body, []);
  return out;
}

export const blockSyncInRoleBranch: RuleDef = {
  meta: {
    id: 'block-sync-in-role-branch',
    code: 'PF408',
    family: 'count',
    defaultSeverity: 'error',
    summary: 'A block-wide __syncthreads() sits in a branch that only some threads of the block take.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'For a kernel whose block size the source gives, evaluates the thread-identity branches (`warp_id < 4`, `threadIdx.x >= 128`, elected lanes) around each `__syncthreads()` / `bar.sync 0` for every thread of the block, and reports a block-wide barrier that only part of the block reaches while the rest keeps running (no early `return` in the kernel). Branches on data, unknown conditions and kernels that return early are left alone.',
    whyIsThisBad:
      '`__syncthreads()` waits for every thread of the block. When only one role reaches it (the compute warps, not the producer warps), it is undefined behaviour: depending on timing the barrier is satisfied by the wrong arrivals or waits for warps that never come, and the kernel hangs intermittently. A role that needs to sync among itself needs a named barrier with that role\'s thread count (`bar.sync id, N`).',
    bad: `__global__ void __launch_bounds__(256) k(float* out) {
  __shared__ float tile[128];
  const int warp = threadIdx.x / 32;
  if (warp < 4) {
    tile[threadIdx.x] = out[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[127 - threadIdx.x];
  } else {
    out[threadIdx.x] = 0.f;
  }
}`,
    good: `__global__ void __launch_bounds__(256) k(float* out) {
  __shared__ float tile[128];
  const int warp = threadIdx.x / 32;
  if (warp < 4) {
    tile[threadIdx.x] = out[threadIdx.x];
    asm volatile("bar.sync 1, 128;" ::: "memory");
    out[threadIdx.x] = tile[127 - threadIdx.x];
  } else {
    out[threadIdx.x] = 0.f;
  }
}`,
    references: ['CUDA C++ Programming Guide: __syncthreads() in conditional code must be reached by the whole block', 'PTX ISA: bar.sync without a thread count waits for all threads of the CTA', 'flashinfer #2996 (tinygemm2)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      if (!blockSizeKnown(k.kernel)) continue;
      let returns = false;
      visitStmts(k.kernel.body, (s) => {
        if (s.kind === 'return') returns = true;
      });
      if (returns) continue;
      for (const { sync, path } of blockSyncs(k.kernel.body)) {
        const roles = path.filter((p) => k.isThreadDependent(p.stmt.cond));
        if (!roles.length) continue;
        for (const blockSize of analysedBlockSizes(k.kernel).sizes) {
          const reach = threadsOnPath(k, roles.map((r) => ({ cond: r.stmt.cond, then: r.then })), blockSize);
          if (!reach || reach.length === 0 || reach.length === blockSize) continue;
          const role = roles[roles.length - 1];
          ctx.report({
            range: sync.range,
            message: `This ${sync.api} waits for all ${blockSize} threads of the block, but only ${describeThreads(reach)} reach it (the branch \`${role.stmt.cond.text.replace(/\s+/g, ' ')}\` on line ${line1(role.stmt.range)}); the other ${blockSize - reach.length} threads never arrive while they keep running, so the barrier is satisfied by the wrong arrivals or hangs, depending on timing. Use a named barrier with this role's thread count (bar.sync id, ${reach.length}) or move the sync out of the branch.`,
            related: [{ range: role.stmt.range, message: 'the branch only some threads take' }],
          });
          break;
        }
      }
    }
  },
};
