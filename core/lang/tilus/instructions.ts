// What each tilus instruction of the `mbarrier`, `tma`, `tcgen05`, `wgmma`, `clc`, `cluster` and `fence` groups
// lowers to, for the Script lowering (lower.ts): who executes it (every thread of the group, or one elected
// lane) and which barrier operation it is.
import type { Range } from '../../api';
import type { BarrierDecl, BarrierOp, BarrierRef, Expr, OpKind, Stmt } from '../../ir/types';
import { type PyNode, rangeOf } from './parser';
import { type Group, tidEquals } from './thread-branches';
import { type Value, asExpr, numExpr, sharedBytes } from './trace-values';

/** A call's arguments by keyword or position, evaluated on demand. */
export interface CallArgs {
  get(name: string, position: number): Value | undefined;
  node(name: string, position: number): PyNode | undefined;
}

/** What an instruction may add to the kernel being lowered. */
export interface InstructionContext {
  readonly decls: Map<string, BarrierDecl>;
  /** Barrier initialisations, hoisted to the kernel's start. */
  readonly inits: Stmt[];
  readonly notUnderstood: { what: string; range: Range }[];
  op(kind: OpKind, api: string, range: Range, extra: Partial<BarrierOp>): BarrierOp;
  uniqueDecl(name: string): string;
}

/** Reads of shared-tensor stages (`sa[stage]`) by an instruction's operands `names` (positional in that order). */
function reads(args: CallArgs, names: string[], out: Stmt[]): void {
  names.forEach((name, i) => {
    const v = args.get(name, i);
    const node = args.node(name, i);
    if (v?.kind !== 'shared' || !v.slot || !node) return;
    out.push({ kind: 'access', array: v.slot.array, index: v.slot.index, write: false, range: rangeOf(node) });
  });
}

/** What `self.<groupName>.<name>(...)` lowers to, appended to `out`; its value (barriers for `alloc`). */
export function lowerInstruction(ctx: InstructionContext, groupName: string, name: string, n: PyNode, args: CallArgs, group: Group, out: Stmt[]): Value {
  const range = rangeOf(n);
  const api = `self.${groupName}.${name}`;
  const none: Value = { kind: 'unknown', text: 'None' };
  const barrierArg = (kw: string, pos: number): { ref: BarrierRef; remote?: boolean } | undefined => {
    const v = args.get(kw, pos);
    if (v?.kind === 'barrier') return { ref: v.ref, remote: v.remote };
    if (v?.kind === 'barriers') return { ref: { base: v.base, ...(v.scalar ? {} : { index: numExpr(0, range) }), text: args.node(kw, pos)!.text } };
    if (v) ctx.notUnderstood.push({ what: `${api}: the barrier operand '${args.node(kw, pos)?.text ?? ''}' is not a barrier allocated with self.mbarrier.alloc`, range });
    return undefined;
  };
  const push = (kind: OpKind, extra: Partial<BarrierOp>, elected: boolean): void => {
    const op = ctx.op(kind, api, range, extra);
    const stmt: Stmt = { kind: 'op', op, range: op.range };
    // Elected-lane instructions: one thread of the group issues them.
    if (elected && group.size !== 1 && group.begin !== undefined) out.push({ kind: 'if', cond: tidEquals(group.begin, range), then: [stmt], else: [], range });
    else out.push(stmt);
  };
  // An operand as an expression placed on its own source (a quick fix may rewrite it).
  const arg = (kw: string, pos: number): Expr | undefined => {
    const v = args.get(kw, pos);
    const node = args.node(kw, pos);
    return v && node ? asExpr(v, rangeOf(node.type === 'keyword_argument' ? (node.childForFieldName('value') ?? node) : node)) : undefined;
  };
  switch (`${groupName}.${name}`) {
    case 'mbarrier.alloc': {
      const counts = args.get('counts', 0);
      const list = counts?.kind === 'list' ? counts.items : counts ? [counts] : [];
      const scalar = counts?.kind !== 'list';
      const base = ctx.uniqueDecl(`mbarrier@${range.start.line + 1}`);
      ctx.decls.set(base, { name: base, type: 'mbarrier', space: 'shared', ...(scalar ? {} : { length: list.length }), range, nameRange: range });
      list.forEach((c, i) => {
        const count = c.kind === 'unknown' && c.text === 'None' ? (group.size !== undefined ? numExpr(group.size, range) : undefined) : asExpr(c, range);
        const ref: BarrierRef = scalar ? { base, text: base } : { base, index: numExpr(i, range), text: `${base}[${i}]` };
        const op = ctx.op('init', api, range, { barrier: ref, ...(count ? { count } : {}) });
        ctx.inits.push({ kind: 'op', op, range: op.range });
      });
      return { kind: 'barriers', base, length: list.length, scalar };
    }
    case 'mbarrier.arrive': {
      const b = barrierArg('barrier', 0);
      if (b) push('arrive', { barrier: b.ref, count: arg('count', 1) ?? numExpr(1, range), ...(b.remote ? { remote: true } : {}) }, false);
      return none;
    }
    case 'mbarrier.arrive_and_expect_tx':
    case 'mbarrier.arrive_and_expect_tx_remote': {
      const b = barrierArg('barrier', 0);
      const remote = name.endsWith('remote') || b?.remote;
      if (b) push('arrive-expect-tx', { barrier: b.ref, count: numExpr(1, range), bytes: arg('transaction_bytes', 1), ...(remote ? { remote: true } : {}) }, false);
      return none;
    }
    case 'mbarrier.arrive_and_expect_tx_multicast': {
      const b = barrierArg('barrier', 0);
      // One elected thread per CTA of the mask arrives on that CTA's barrier.
      if (b) push('arrive-expect-tx', { barrier: b.ref, count: numExpr(1, range), bytes: arg('transaction_bytes', 1), remote: true, ctaMask: arg('multicast_mask', 2) }, true);
      return none;
    }
    case 'mbarrier.wait': {
      const b = barrierArg('barrier', 0);
      if (b) push('wait-parity', { barrier: b.ref, parity: arg('phase', 1), result: 'blocking', ...(b.remote ? { remote: true } : {}) }, false);
      return none;
    }
    case 'tma.global_to_shared': {
      const b = barrierArg('mbarrier', 4);
      const dst = args.get('dst', 1);
      const bytes = dst?.kind === 'shared' ? sharedBytes(dst) : undefined;
      const cg = args.get('cta_group', 5);
      const mask = args.get('multicast_mask', 6);
      const remote = (cg?.kind === 'int' && cg.value === 2) || b?.remote;
      if (b) push('bulk-copy', { barrier: b.ref, ...(bytes !== undefined ? { bytes: numExpr(bytes, range) } : {}), ...(remote ? { remote: true } : {}), ...(mask && !(mask.kind === 'unknown' && mask.text === 'None') ? { ctaMask: arg('multicast_mask', 6) } : {}) }, true);
      return none;
    }
    case 'tma.shared_to_global':
      push('bulk-store', {}, true);
      return none;
    case 'tma.wait_group':
      push('bulk-wait', { count: arg('n', 0) ?? numExpr(0, range) }, false);
      return none;
    case 'tcgen05.mma':
      reads(args, ['a', 'b'], out);
      push('mma', {}, true);
      return none;
    case 'wgmma.mma':
      // wgmma completes through wgmma.wait_group, not a barrier: only its reads of shared stages are lowered.
      reads(args, ['a', 'b'], out);
      return none;
    case 'tcgen05.commit': {
      const b = barrierArg('mbarrier', 0);
      const cg = args.get('cta_group', 1);
      const mask = args.get('multicast_mask', 2);
      const remote = (cg?.kind === 'int' && cg.value === 2) || (mask !== undefined && !(mask.kind === 'unknown' && mask.text === 'None')) || b?.remote;
      if (b) push('mma-commit-arrive', { barrier: b.ref, count: numExpr(1, range), ...(remote ? { remote: true } : {}) }, true);
      return none;
    }
    case 'clc.try_cancel': {
      // The 16-byte response completes its bytes on the barrier, like a copy (the arrive is the caller's).
      const b = barrierArg('mbarrier', 1);
      const multicast = args.get('multicast', 2);
      if (b) push('bulk-copy', { barrier: b.ref, bytes: numExpr(16, range), ...(multicast?.kind === 'int' && multicast.value ? { remote: true } : {}) }, true);
      return none;
    }
    case 'cluster.map_shared_addr': {
      const v = args.get('addr', 0);
      if (v?.kind === 'barrier') return { ...v, remote: true };
      if (v?.kind === 'barriers') return { kind: 'barrier', ref: { base: v.base, ...(v.scalar ? {} : { index: numExpr(0, range) }), text: n.text }, remote: true };
      return { kind: 'unknown', text: n.text };
    }
    case 'cluster.sync':
      out.push({ kind: 'sync', scope: 'cluster', api, range });
      return none;
    case 'fence.proxy_async':
      push('fence-proxy-async', {}, false);
      return none;
    default:
      if (groupName === 'mbarrier') ctx.notUnderstood.push({ what: `${api} is not a tilus mbarrier instruction this analysis knows`, range });
      return none;
  }
}
