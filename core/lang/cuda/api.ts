// Library API recognition for the front end: which C++ calls are barrier operations and where their
// operands sit, read from the one catalogue (catalogue.ts), plus the CTA/warp/cluster syncs whose scope
// depends on the receiver. Functions defined in the file being linted are inlined instead and never
// reach these lookups.
import type { Expr, NamedBarrierUse } from '../../ir/types';
import { type CallInfo, type CallShape, functionEntry, methodEntry, type SyncScope, TAG_ARGUMENT } from './catalogue';

export type { CallInfo } from './catalogue';

/** One recognised call: the catalogue's operand layout resolved to this call's argument indices. */
export interface ApiOp extends CallShape {
  name: string;
}

export function isBarrierType(type: string): boolean {
  return /barrier|semaphore|__mbarrier_t|\bmbar|Barrier/.test(type) && !/arrival_token|token_t/.test(type);
}

export function apiOpForCall(c: CallInfo): ApiOp | undefined {
  if (c.isMember) {
    const m = methodEntry(c.method)?.resolve(c);
    return m ? { name: `.${c.method}`, ...m } : undefined;
  }
  const name = c.callee.slice(c.callee.lastIndexOf('::') + 2 > 1 ? c.callee.lastIndexOf('::') + 2 : 0);
  const entry = functionEntry(name);
  if (!entry) return undefined;
  // Special shapes first (bulk copies: the barrier's position depends on the overload).
  if (entry.shape) {
    const shape = entry.shape(c);
    return shape ? { name: c.callee, ...shape } : undefined;
  }
  const e = entry.op;
  if (!e) return undefined;
  // Map non-tag argument positions back to real argument indices.
  const real = c.args.map((a, i) => (TAG_ARGUMENT.test(a.trim()) ? -1 : i)).filter((i) => i >= 0);
  const at = (k: number | undefined): number | undefined => (k === undefined ? undefined : real[k]);
  const op: ApiOp = {
    name: c.callee,
    ...e,
    barrierArg: typeof e.barrierArg === 'number' ? at(e.barrierArg) : e.barrierArg,
    count: at(e.count),
    bytes: at(e.bytes),
    src: at(e.src),
    parity: at(e.parity),
    token: at(e.token),
    thenFlip: at(e.thenFlip),
  };
  if (name === 'init_semaphore' && c.args.length === 3 && c.args[2].trim() !== '0') op.count = undefined;
  if (name === 'barrier_arrive_tx' && op.count === undefined) op.defaultCount = 1;
  return op;
}

/** Block/warp/cluster-wide syncs. `receiver` is the object text for member calls (`block.sync()`). */
export function syncForCall(callee: string, receiver: string): SyncScope | undefined {
  const name = callee.slice(callee.lastIndexOf('::') >= 0 ? callee.lastIndexOf('::') + 2 : 0).replace(/^\./, '');
  // `__`-prefixed syncs are recognised even when written as a member (`obj.__syncthreads()` is still one).
  if (name.startsWith('__')) {
    const sync = functionEntry(name)?.sync;
    if (sync) return sync;
  }
  if (receiver) {
    const method = callee.slice(callee.lastIndexOf('.') + 1);
    if (method === 'sync' || method === 'barrier_wait') {
      if (/cluster/i.test(receiver)) return 'cluster';
      if (/grid/i.test(receiver)) return undefined;
      if (/warp|tile|tiled_partition|coalesced/i.test(receiver)) return 'warp';
      if (/block|cta|\btb\b|this_thread_block|group|g\b/i.test(receiver)) return 'block';
      if (/NamedBarrier|named/i.test(receiver)) return 'named';
    }
    if (method === 'barrier_arrive' && /cluster/i.test(receiver)) return 'cluster-arrive';
    if (method === 'arrive_and_wait' && /NamedBarrier|named/i.test(receiver)) return 'named';
    return undefined;
  }
  if (callee.includes('.')) {
    const [obj, method] = [callee.slice(0, callee.lastIndexOf('.')), callee.slice(callee.lastIndexOf('.') + 1)];
    if (method === 'sync') return syncForCall(`.${method}`, obj);
  }
  if (name === 'sync' && /cluster/.test(callee)) return 'cluster';
  const sync = functionEntry(name)?.sync;
  if (sync) return sync;
  if (name === 'sync' && /NamedBarrier|warpgroup|everyone|group/.test(callee)) return 'named';
  if (name === 'arrive' && /NamedBarrier/.test(callee)) return 'named';
  if (name === 'sync' && /^(cg|cooperative_groups)::/.test(callee)) return 'block';
  return undefined;
}

/** CUTLASS reserves hardware barriers 0..7 for itself: `NamedBarrier::sync(n, id)` uses hardware id `id + 8`. */
const CUTLASS_RESERVED_NAMED_BARRIERS = 8;

/**
 * The operands of a named-barrier call the front end lowers to a `named` sync: `__barrier_sync(id)` and
 * CUTLASS's static `NamedBarrier::sync/arrive(num_threads, id)` (a `ReservedNamedBarriers` id is the
 * hardware id itself, any other is offset past the reserved ones). Undefined for other forms.
 */
export function namedBarrierCall(callee: string, args: Expr[]): NamedBarrierUse | undefined {
  const sep = callee.lastIndexOf('::');
  const name = sep >= 0 ? callee.slice(sep + 2) : callee;
  if (name === '__barrier_sync' && args.length === 1) return { id: args[0], arrive: false };
  if (!/\bNamedBarrier::(sync|arrive)$/.test(callee) || args.length !== 2) return undefined;
  const [threads, written] = args;
  const id: Expr = /ReservedNamedBarriers/.test(written.text)
    ? written
    : { kind: 'binary', op: '+', left: written, right: { kind: 'num', value: CUTLASS_RESERVED_NAMED_BARRIERS, text: '8', range: written.range }, text: `${written.text} + 8`, range: written.range };
  return { id, threads, arrive: name === 'arrive' };
}
