// The CUDA runtime as the executor sees it: every builtin function (math, conversions, atomics,
// warp shuffles and votes, __syncthreads, printf, assert), the barrier APIs (cuda::barrier,
// cuda::ptx::mbarrier_*, __mbarrier_*, cooperative groups), asynchronous copies (TMA bulk copies,
// memcpy_async, cp.async pipelines) and the member functions of library objects. Each entry
// compiles its call into a closure, or into a blocking instruction for anything that waits.
// To add a builtin: add a case to `freeCall` (or `methodCall` for `obj.f()`), and list its name in
// BLOCKING when it can wait, so calls to it are hoisted into their own instruction.
import type { SyntaxNode } from '../parser';
import { coerce, toBf16Bits, toHalfBits } from '../../../sim/dtypes';
import { type Machine, type SimBarrier, type SimThread, SimError } from '../../../sim/machine';
import { type Buffer, copyBytes, type Pointer } from '../../../sim/memory';
import { type Compiler, type Ex, type Fn, type FnCx, fail, lastName, locOf, named, unsupported } from './compile';
import { compileAsm } from './ptx';
import { barrierLabel, type Closure, type Frame, fromSharedAddress, genericAddress, loader, sharedAddress, storer, type ThreadCtx } from './runtime';
import { BOOL, commonType, convFn, type CType, F32, F64, isFloatDt, isNum, num, promote, ptr, S32, sizeOfType, typeName, U32, U64, VOID } from './types';

/** Builtins that can block: a call to one gets its own instruction. */
const BLOCKING = new Set([
  '__syncthreads',
  '__syncwarp',
  '__shfl_sync',
  '__shfl_up_sync',
  '__shfl_down_sync',
  '__shfl_xor_sync',
  '__all_sync',
  '__any_sync',
  '__ballot_sync',
  '__reduce_add_sync',
  '__reduce_min_sync',
  '__reduce_max_sync',
  '__reduce_and_sync',
  '__reduce_or_sync',
  '__reduce_xor_sync',
  'mbarrier_try_wait',
  'mbarrier_try_wait_parity',
  'mbarrier_test_wait',
  'mbarrier_test_wait_parity',
  '__mbarrier_try_wait',
  '__mbarrier_try_wait_parity',
  '__mbarrier_test_wait',
  '__mbarrier_test_wait_parity',
  '__pipeline_wait_prior',
  'sync',
  'init',
]);

export function isKnownPure(name: string): boolean {
  return !BLOCKING.has(name) && KNOWN.has(name);
}

const KNOWN = new Set<string>();

// ------------------------------------------------------------------ barrier helpers

/** What the CUDA executor keeps per barrier (`SimBarrier.exec`). */
interface BarrierExt {
  /** Per arrive site (its instruction) and warp (`site * 32 + warp`): the group of the latest instance. */
  groups: (ArriveGroup | undefined)[];
  /** The barrier carries transaction bytes (a wait on it marks the waiter a consumer). */
  tx: boolean;
}

function extOf(b: SimBarrier): BarrierExt {
  return (b.exec ??= { groups: [], tx: false }) as BarrierExt;
}

export function barrierAt(m: Machine, p: Pointer | null, what: string): SimBarrier {
  if (!p) throw new SimError(`${what}: null barrier pointer`);
  // Found by 8-byte slot (a misaligned offset is no slot and takes the checking path below).
  const known = p.buf.slots?.[p.offset / 8] as SimBarrier | undefined;
  if (known) return known;
  if (p.buf.space !== 'shared') throw new SimError(`${what}: the mbarrier must live in shared memory, but '${p.buf.name}' is ${p.buf.space} memory`);
  if (p.offset % 8 !== 0) throw new SimError(`${what}: mbarrier address ${p.buf.name}+${p.offset} is not 8-byte aligned`);
  if (p.offset < 0 || p.offset + 8 > p.buf.size) throw new SimError(`${what}: mbarrier at byte ${p.offset} is outside '${p.buf.name}' (${p.buf.size} bytes)`, undefined, 'oob');
  const b = m.mbarrierAt(p.buf, p.offset, barrierLabel(p));
  (p.buf.slots ??= [])[p.offset / 8] = b;
  return b;
}

export function markProducer(t: SimThread, b?: SimBarrier): void {
  t.role ??= 'producer';
  if (b) extOf(b).tx = true;
}

function markWaiter(t: SimThread, b: SimBarrier): void {
  if (!t.role && (b.exec as BarrierExt | undefined)?.tx) t.role = 'consumer';
}

/** Runs a completion function (cuda::barrier CompletionF) synchronously on the last arriver. */
function completionRunner(ts: ThreadCtx, cl: Closure): (m: Machine) => void {
  return () => {
    ts.ex.runSync(ts.ex.current ?? ts, cl.fn, cl.env);
  };
}


// A converged warp executes an arrive once for all its active lanes: one update of N arrivals.
// Lanes run one at a time here, so the lanes of one dynamic instance of an arrive site (the k-th
// time each lane executes it) are grouped; if that group's arrivals straddle a phase boundary,
// the hardware's single N-count update would have overshot the phase (over-arrival).
interface ArriveGroup {
  instance: number;
  phase: number;
  pending: number;
  lanes: number;
}

export function threadArrive(f: Frame, b: SimBarrier, count = 1, tx = 0, drop = false): number {
  const ts = f.ts;
  const { m, t } = ts;
  const ins = f.fn.code[f.pc];
  let site = ins.site;
  if (site < 0) ins.site = site = ts.ex.newSite();
  const inst = (ts.siteCount[site] ?? 0) + 1;
  ts.siteCount[site] = inst;
  const g = extOf(b).groups;
  const key = site * 32 + t.warp;
  const e = g[key];
  const st = b.mb.state;
  if (e && e.instance === inst && st.initialized && e.phase !== st.phase && !drop) {
    e.lanes++;
    m.raise({
      kind: 'misuse',
      message:
        `barrier misuse: arrive on ${b.label} by ${t.label} at line ${t.loc.line + 1}: the lanes of warp ${t.warp} arrive together ` +
        `(a converged warp's arrive is one update of ${e.lanes} arrivals) but only ${e.pending} ${e.pending === 1 ? 'was' : 'were'} pending in that phase; the excess spills into the next phase`,
      loc: t.loc,
      threads: [t.index],
      misuse: { kind: 'over-arrival', arrivals: e.lanes, pending: e.pending },
    });
  } else if (!e) g[key] = { instance: inst, phase: st.phase, pending: st.pending, lanes: count };
  else if (e.instance !== inst) {
    e.instance = inst;
    e.phase = st.phase;
    e.pending = st.pending;
    e.lanes = count;
  } else e.lanes += count;
  return m.mbArrive(t, b, count, tx, drop);
}

export type WaitMode = 'block' | 'probe' | number;

/** Parity wait in one of three modes: block until done, probe once, or block up to a time limit. */
export function waitParity(f: Frame, key: object, b: SimBarrier, parity: number, mode: WaitMode): number | undefined {
  const { m, t } = f.ts;
  markWaiter(t, b);
  if (mode === 'block') return m.mbWaitParity(t, b, parity) ? 1 : undefined;
  if (mode === 'probe') {
    const ok = m.mbTestParity(t, b, parity);
    if (!ok) m.yieldNow = true; // let the others run before the next probe
    return ok ? 1 : 0;
  }
  return timed(f, key, b, () => b.mb.parityComplete(parity & 1), () => m.mbTestParity(t, b, parity), mode, `${b.label} (parity ${parity & 1}, try_wait with a time limit)`, parity & 1);
}

export function waitToken(f: Frame, key: object, b: SimBarrier, token: number, mode: WaitMode): number | undefined {
  const { m, t } = f.ts;
  markWaiter(t, b);
  if (mode === 'block') return m.mbWaitToken(t, b, token) ? 1 : undefined;
  if (mode === 'probe') {
    const ok = m.mbTestToken(t, b, token);
    if (!ok) m.yieldNow = true;
    return ok ? 1 : 0;
  }
  return timed(f, key, b, () => b.mb.tokenComplete(token).done, () => m.mbTestToken(t, b, token), mode, `${b.label} (token of phase ${token}, try_wait with a time limit)`, token & 1);
}

function timed(f: Frame, key: object, b: SimBarrier, done: () => boolean, take: () => boolean, limit: number, what: string, parity: number): number | undefined {
  const ts = f.ts;
  const { m, t } = ts;
  if (!b.mb.state.initialized) return m.mbTestParity(t, b, parity) ? 1 : 0; // reports the misuse
  if (done()) {
    ts.timer = undefined;
    return take() ? 1 : 0;
  }
  if (!ts.timer || ts.timer.key !== key) {
    const op = m.asyncIssue(t, 'try_wait-timer', 'try_wait time limit', Math.max(1, limit), () => {});
    t.asyncGroups.get('try_wait-timer')?.open.pop();
    ts.timer = { key, op };
  }
  const op = ts.timer.op;
  if (op.done) {
    ts.timer = undefined;
    return 0;
  }
  m.blockOn(t, { kind: 'mbarrier-parity', barrier: b, parity, ready: () => done() || op.done, describe: () => what });
  return undefined;
}

/** Issues a bulk (TMA-style) copy that completes `bytes` of transactions on `b` when it lands. */
export function bulkCopy(ts: ThreadCtx, dst: Pointer | null, src: Pointer | null, bytes: number, b: SimBarrier | undefined, what: string, latency?: number): void {
  const { m, t } = ts;
  if (!dst || !src) throw new SimError(`${what}: null pointer`);
  if (bytes < 0 || !Number.isInteger(bytes)) throw new SimError(`${what}: bad size ${bytes}`);
  if (bytes % 16 !== 0 && latency === undefined) throw new SimError(`${what}: size ${bytes} is not a multiple of 16 bytes`);
  if (dst.offset < 0 || dst.offset + bytes > dst.buf.size) throw new SimError(`${what}: destination byte ${dst.offset}..${dst.offset + bytes - 1} is outside '${dst.buf.name}' (${dst.buf.size} bytes)`, undefined, 'oob');
  if (src.offset < 0 || src.offset + bytes > src.buf.size) throw new SimError(`${what}: source byte ${src.offset}..${src.offset + bytes - 1} is outside '${src.buf.name}' (${src.buf.size} bytes)`, undefined, 'oob');
  markProducer(t, b);
  const label = `${what} ${bytes} B → ${dst.buf.name}${b ? ` (complete_tx on ${b.label})` : ''}`;
  const op = m.asyncIssue(t, b ? 'bulk' : 'cp.async', label, latency ?? m.lat.bulkCopy, (mm) => {
    copyBytes(dst, src, bytes);
    mm.accessAsync(op, dst.buf, dst.offset, bytes, true);
    if (src.buf.space === 'shared') mm.accessAsync(op, src.buf, src.offset, bytes, false);
    if (b) mm.mbCompleteTx(b, bytes, op);
  });
}

// ------------------------------------------------------------------ compile helpers

interface Cx {
  c: Compiler;
  cx: FnCx;
  n: SyntaxNode;
}

function args(k: Cx, nodes: SyntaxNode[]): Ex[] {
  return nodes.map((a) => k.c.rv(k.c.expr(k.cx, a)));
}

function asNum(k: Cx, e: Ex, dt: Parameters<typeof num>[0] = 's64'): Fn {
  return k.c.convertTo(e, num(dt), k.n).ev;
}

function asPtr(k: Cx, e: Ex): Fn {
  if (e.t.k === 'ptr' || (e.t.k === 'obj' && e.t.obj === 'nullptr')) return e.ev;
  if (e.t.k === 'barrier' || e.t.k === 'struct') return k.c.addressOf(e, k.n);
  if (isNum(e.t)) return k.c.convertTo(e, ptr(VOID), k.n).ev;
  fail(`expected a pointer, got ${typeName(e.t)}`, k.n);
}

/** A barrier operand: pointer to the mbarrier word, or a cuda::barrier object. */
function barArg(k: Cx, node: SyntaxNode, what: string): (f: Frame) => SimBarrier {
  const e = k.c.expr(k.cx, node);
  let p: Fn;
  if (e.t.k === 'barrier' || e.t.k === 'struct') p = k.c.addressOf(e, node);
  else p = asPtr(k, k.c.rv(e));
  return (f) => barrierAt(f.ts.m, p(f), what);
}

function noTags(k: Cx, nodes: SyntaxNode[]): SyntaxNode[] {
  return nodes.filter((a) => !/(^|::)(sem|scope|space|op|cta_group)_\w+$/.test(a.text.replace(/\s+/g, '')));
}

function unit(f: Frame): number {
  void f;
  return 0;
}

const V = (ev: Fn, t: CType = VOID): Ex => ({ t, ev });

function retryMode(k: Cx, hint: Fn | undefined): WaitMode | ((f: Frame) => WaitMode) {
  const retried = k.cx.retryProbe && k.cx.retryProbe.startIndex === k.n.startIndex && k.cx.retryProbe.endIndex === k.n.endIndex;
  if (retried) return 'block';
  // A lone try_wait may return false after a system-dependent time limit; an H100 returned before a
  // 256-byte bulk copy landed (test/fixtures/sim/gpu/bug_try_wait_unchecked.cu), so model the
  // limit as zero: one probe, and the program must check the result.
  if (!hint) return 'probe';
  return (f) => Math.max(1, Math.floor(hint(f)));
}

function modeOf(m: WaitMode | ((f: Frame) => WaitMode), f: Frame): WaitMode {
  return typeof m === 'function' ? m(f) : m;
}

// ------------------------------------------------------------------ free functions

export function compileBuiltinCall(c: Compiler, cx: FnCx, fullName: string, argNodes: SyntaxNode[], n: SyntaxNode, targs?: SyntaxNode[]): Ex | undefined {
  const k: Cx = { c, cx, n };
  if (fullName === 'operator new') return placementNew(k);
  if (fullName === 'asm') return compileAsm(c, cx, n);
  const name = lastName(fullName);
  const ns = fullName.slice(0, Math.max(0, fullName.length - name.length - 2));
  const r = freeCall(k, name, ns, argNodes, targs);
  return r;
}

function freeCall(k: Cx, name: string, ns: string, a: SyntaxNode[], targs?: SyntaxNode[]): Ex | undefined {
  const { c, cx, n } = k;
  const m1 = mathCall(k, name, a);
  if (m1) return m1;
  switch (name) {
    // ---------------------------------------------------------------- sync
    case '__syncthreads':
      return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.syncBlock(f.ts.t) ? 0 : undefined));
    case '__syncwarp': {
      const mask = a.length ? asNum(k, args(k, a)[0], 'u32') : () => 0xffffffff;
      return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.syncWarp(f.ts.t, mask(f)) ? 0 : undefined));
    }
    case '__threadfence':
    case '__threadfence_block':
    case '__threadfence_system':
    case '__nanosleep':
    case 'fence_proxy_async':
    case 'fence_proxy_async_shared_cta':
    case 'fence_mbarrier_init':
    case 'fence_view_async_shared':
    case '__prefetch_global_l2':
    case 'prefetch':
      for (const x of noTags(k, a)) c.expr(cx, x);
      return V(unit, VOID);
    case 'clock':
    case 'clock64':
    case '__globaltimer':
      return V((f) => f.ts.t.time, name === 'clock' ? S32 : num('s64'));
    case '__trap':
    case 'abort':
      return V(() => {
        throw new SimError('__trap() was called: the kernel aborts');
      });
    case 'assert': {
      const cond = c.truth(c.rv(c.expr(cx, a[0])), a[0]);
      const text = a[0].text;
      return V((f) => {
        if (!cond(f)) throw new SimError(`assertion failed: ${text}`);
        return 0;
      });
    }
    case 'printf':
      return printfCall(k, a);
    case 'move':
    case 'forward':
      if (ns === 'std' || ns === 'cuda::std' || ns === '') return c.expr(cx, a[0]);
      return undefined;
    case 'aligned_size_t':
      return c.rv(c.expr(cx, a[0]));
    case '__cvta_generic_to_shared': {
      const p = asPtr(k, args(k, a)[0]);
      return V((f) => sharedAddress(f.ts.blk, p(f)), U64);
    }
    case '__cvta_shared_to_generic': {
      const x = asNum(k, args(k, a)[0], 'u64');
      return V((f) => fromSharedAddress(f.ts.blk, x(f)), ptr(VOID));
    }
    case '__isShared':
    case '__isGlobal': {
      const p = asPtr(k, args(k, a)[0]);
      const space = name === '__isShared' ? 'shared' : 'global';
      return V((f) => (p(f)?.buf.space === space ? 1 : 0), U32);
    }
    case '__ldg':
    case '__ldca':
    case '__ldcg':
    case '__ldcs':
    case '__ldlu':
    case '__ldcv': {
      const e = args(k, a)[0];
      if (e.t.k !== 'ptr' || !isNum(e.t.to)) unsupported(`${name} of a ${typeName(e.t)}`, n);
      const ld = loader(e.t.to.dt);
      const p = e.ev;
      return V((f) => {
        const q = p(f) as Pointer;
        if (!q) throw new SimError(`${name}: null pointer`);
        return ld(q.buf, q.offset);
      }, e.t.to);
    }
    case '__activemask':
      return V((f) => liveMask(f.ts), U32);
    case '__lanemask_lt':
      return V((f) => ((1 << f.ts.t.lane) - 1) >>> 0, U32);
    // ---------------------------------------------------------------- warp collectives
    case '__shfl_sync':
    case '__shfl_up_sync':
    case '__shfl_down_sync':
    case '__shfl_xor_sync':
      return shuffle(k, name, a);
    case '__all_sync':
    case '__any_sync':
    case '__ballot_sync':
    case '__reduce_add_sync':
    case '__reduce_min_sync':
    case '__reduce_max_sync':
    case '__reduce_and_sync':
    case '__reduce_or_sync':
    case '__reduce_xor_sync':
      return vote(k, name, a);
    // ---------------------------------------------------------------- atomics
    default:
      if (/^atomic(Add|Sub|Exch|Min|Max|Inc|Dec|And|Or|Xor|CAS)(_block|_system)?$/.test(name)) return atomic(k, name.replace(/_(block|system)$/, '').slice(6), a);
  }
  // ---------------------------------------------------------------- cooperative groups
  if (/^(cg|cooperative_groups)$/.test(ns) || ((name === 'this_thread_block' || name === 'this_grid' || name === 'tiled_partition') && ns === '')) {
    switch (name) {
      case 'this_thread_block':
        return V(() => 0, { k: 'obj', obj: 'thread_block' });
      case 'this_grid':
        return V(() => 0, { k: 'obj', obj: 'grid' });
      case 'tiled_partition': {
        const size = targs?.length ? c.constEval(cx, targs[0]) : a[1] ? c.constEval(cx, a[1]) : 32;
        if (![1, 2, 4, 8, 16, 32].includes(size)) unsupported(`tiled_partition<${size}>`, n);
        return V(() => 0, { k: 'obj', obj: 'tile', n: size });
      }
      case 'sync': {
        const g = c.expr(cx, a[0]);
        return compileMethodCall(c, cx, g.t, g.ev, 'sync', [], n) ?? undefined;
      }
    }
  }
  // ---------------------------------------------------------------- cuda::barrier
  if (name === 'init' && (ns === '' || ns === 'cuda') && a.length >= 2) {
    const bar = barArg(k, a[0], 'init');
    const count = asNum(k, args(k, [a[1]])[0]);
    const fn = a[2] ? c.expr(cx, a[2]) : undefined;
    if (fn && fn.t.k !== 'lambda') unsupported('a completion function that is not a lambda', a[2]);
    const fnv = fn?.ev;
    return V((f) => {
      const b = bar(f);
      f.ts.m.mbInit(f.ts.t, b, count(f));
      b.onComplete = fnv ? completionRunner(f.ts, fnv(f) as Closure) : undefined;
      return 0;
    });
  }
  if (name === 'barrier_native_handle') {
    const e = c.expr(cx, a[0]);
    return V(c.addressOf(e, a[0]), ptr(U64));
  }
  if (name === 'barrier_arrive_tx') {
    const bar = barArg(k, a[0], 'barrier_arrive_tx');
    const [cnt, tx] = args(k, a.slice(1)).map((e) => asNum(k, e));
    return V((f) => {
      const b = bar(f);
      markProducer(f.ts.t, b);
      return threadArrive(f, b, cnt(f), tx(f));
    }, U64);
  }
  if (name === 'barrier_expect_tx') {
    const bar = barArg(k, a[0], 'barrier_expect_tx');
    const tx = asNum(k, args(k, [a[1]])[0]);
    return V((f) => {
      const b = bar(f);
      markProducer(f.ts.t, b);
      f.ts.m.mbExpectTx(f.ts.t, b, tx(f));
      return 0;
    });
  }
  if (name === 'memcpy_async_tx') {
    const [dst, src, size] = args(k, a.slice(0, 3));
    const bar = barArg(k, a[3], 'memcpy_async_tx');
    const D = asPtr(k, dst);
    const S = asPtr(k, src);
    const N = asNum(k, size);
    return V((f) => {
      bulkCopy(f.ts, D(f), S(f), N(f), bar(f), 'memcpy_async_tx');
      return 0;
    });
  }
  if (name === 'memcpy_async' && (ns === 'cuda' || ns === '')) {
    let rest = a;
    let group: Ex | undefined;
    if (a.length === 5) {
      group = c.expr(cx, a[0]);
      rest = a.slice(1);
    }
    const last = c.expr(cx, rest[3]);
    if (last.t.k !== 'barrier') unsupported('cuda::memcpy_async with a pipeline (only the barrier form is modelled)', n);
    const bar = barArg(k, rest[3], 'memcpy_async');
    const [dst, src, size] = args(k, rest.slice(0, 3));
    const D = asPtr(k, dst);
    const S = asPtr(k, src);
    const N = asNum(k, size);
    const rank = group ? groupRank(group.t) : undefined;
    return V((f) => {
      if (rank && rank(f) !== 0) return 0; // a group-wide copy is issued once
      const b = bar(f);
      const bytes = N(f);
      f.ts.m.mbExpectTx(f.ts.t, b, bytes);
      bulkCopy(f.ts, D(f), S(f), bytes, b, 'cuda::memcpy_async', f.ts.m.lat.cpAsync);
      return 0;
    });
  }
  // ---------------------------------------------------------------- cuda::ptx
  if (ns === 'cuda::ptx' || ns === 'ptx' || /^mbarrier_|^cp_async_bulk/.test(name)) {
    const r = ptxCall(k, name, noTags(k, a));
    if (r) return r;
  }
  // ---------------------------------------------------------------- __mbarrier_* primitives
  if (name.startsWith('__mbarrier_')) return primitive(k, name, a);
  // ---------------------------------------------------------------- cp.async pipelines
  if (name === '__pipeline_memcpy_async') {
    const [dst, src, size] = args(k, a);
    const D = asPtr(k, dst);
    const S = asPtr(k, src);
    const N = asNum(k, size);
    return V((f) => {
      bulkCopy(f.ts, D(f), S(f), N(f), undefined, 'cp.async', f.ts.m.lat.cpAsync);
      return 0;
    });
  }
  if (name === '__pipeline_commit') return V((f) => (f.ts.m.asyncCommit(f.ts.t, 'cp.async'), 0));
  if (name === '__pipeline_wait_prior') {
    const N = asNum(k, args(k, a)[0]);
    return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.asyncWaitGroups(f.ts.t, 'cp.async', N(f), `cp.async wait_prior(${N(f)})`) ? 0 : undefined));
  }
  if (name === 'cp_async_bulk_tensor' || name.startsWith('cp_async_bulk_tensor')) unsupported(`cuda::ptx::${name} (tensor maps are not modelled; use a 1-D cp_async_bulk)`, n);
  return undefined;
}


function liveMask(ts: ThreadCtx): number {
  const { m, t } = ts;
  const first = t.index - t.lane;
  let mask = 0;
  for (let l = 0; l < 32; l++) {
    const th = m.threads[first + l];
    if (th && th.block === t.block && th.warp === t.warp && th.status !== 'done') mask |= 1 << l;
  }
  return mask >>> 0;
}

function groupRank(t: CType): ((f: Frame) => number) | undefined {
  if (t.k !== 'obj') return undefined;
  if (t.obj === 'thread_block') return (f) => f.ts.t.tid;
  if (t.obj === 'tile') {
    const size = t.n ?? 32;
    return (f) => f.ts.t.tid % size;
  }
  return undefined;
}

// ------------------------------------------------------------------ cuda::ptx

function ptxCall(k: Cx, name: string, a: SyntaxNode[]): Ex | undefined {
  const { c, cx, n } = k;
  switch (name) {
    case 'mbarrier_init': {
      const bar = barArg(k, a[0], 'mbarrier_init');
      const cnt = asNum(k, args(k, [a[1]])[0]);
      return V((f) => (f.ts.m.mbInit(f.ts.t, bar(f), cnt(f)), 0));
    }
    case 'mbarrier_arrive':
    case 'mbarrier_arrive_no_complete': {
      const bar = barArg(k, a[0], name);
      const cnt = a[1] ? asNum(k, args(k, [a[1]])[0]) : () => 1;
      return V((f) => threadArrive(f, bar(f), cnt(f)), U64);
    }
    case 'mbarrier_arrive_expect_tx': {
      const bar = barArg(k, a[0], name);
      const tx = asNum(k, args(k, [a[1]])[0]);
      return V((f) => {
        const b = bar(f);
        markProducer(f.ts.t, b);
        return threadArrive(f, b, 1, tx(f));
      }, U64);
    }
    case 'mbarrier_expect_tx': {
      const bar = barArg(k, a[0], name);
      const tx = asNum(k, args(k, [a[1]])[0]);
      return V((f) => {
        const b = bar(f);
        markProducer(f.ts.t, b);
        f.ts.m.mbExpectTx(f.ts.t, b, tx(f));
        return 0;
      });
    }
    case 'mbarrier_try_wait':
    case 'mbarrier_try_wait_parity':
    case 'mbarrier_test_wait':
    case 'mbarrier_test_wait_parity': {
      const bar = barArg(k, a[0], name);
      const v = asNum(k, args(k, [a[1]])[0]);
      const hint = a[2] ? asNum(k, args(k, [a[2]])[0]) : undefined;
      const probe = name.includes('test_wait');
      const mode = probe ? (retryMode(k, undefined) === 'block' && k.cx.retryProbe ? 'block' : 'probe') : retryMode(k, hint);
      const parity = name.endsWith('parity');
      const key = {};
      const barT = c.toTemp(cx, n, V(bar));
      const vT = c.toTemp(cx, n, V(v));
      return c.emitBlocking(cx, n, BOOL, (f) => {
        const md = probe ? (mode as WaitMode) : modeOf(mode, f);
        return parity ? waitParity(f, key, barT.ev(f), vT.ev(f), md) : waitToken(f, key, barT.ev(f), vT.ev(f), md);
      });
    }
    case 'cp_async_bulk': {
      // (dst, src, size, mbar) for global→shared; (dst, src, size) for shared→global.
      const [dst, src, size] = args(k, a.slice(0, 3));
      const D = asPtr(k, dst);
      const S = asPtr(k, src);
      const N = asNum(k, size);
      const bar = a[3] ? barArg(k, a[3], 'cp_async_bulk') : undefined;
      return V((f) => {
        bulkCopy(f.ts, D(f), S(f), N(f), bar?.(f), 'cp.async.bulk');
        return 0;
      });
    }
    case 'cp_async_bulk_commit_group':
      return V((f) => (f.ts.m.asyncCommit(f.ts.t, 'cp.async'), 0));
    case 'cp_async_bulk_wait_group':
    case 'cp_async_bulk_wait_group_read': {
      const N = targs0(k, a);
      return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.asyncWaitGroups(f.ts.t, 'cp.async', N(f)) ? 0 : undefined));
    }
  }
  if (name.startsWith('mbarrier_') || name.startsWith('cp_')) unsupported(`cuda::ptx::${name}`, n);
  return undefined;
}

function targs0(k: Cx, a: SyntaxNode[]): Fn {
  if (a[0]) return asNum(k, args(k, [a[0]])[0]);
  return () => 0;
}

// ------------------------------------------------------------------ __mbarrier_* primitives

function primitive(k: Cx, name: string, a: SyntaxNode[]): Ex {
  const { c, cx, n } = k;
  const bar = barArg(k, a[0], name);
  switch (name) {
    case '__mbarrier_init': {
      const cnt = asNum(k, args(k, [a[1]])[0]);
      return V((f) => (f.ts.m.mbInit(f.ts.t, bar(f), cnt(f)), 0));
    }
    case '__mbarrier_inval':
      return V((f) => (bar(f).mb.inval(), 0));
    case '__mbarrier_arrive':
      return V((f) => threadArrive(f, bar(f), 1), U64);
    case '__mbarrier_arrive_and_drop':
      return V((f) => threadArrive(f, bar(f), 1, 0, true), U64);
    case '__mbarrier_arrive_no_complete':
      return V((f) => threadArrive(f, bar(f), 1), U64);
    case '__mbarrier_test_wait':
    case '__mbarrier_test_wait_parity':
    case '__mbarrier_try_wait':
    case '__mbarrier_try_wait_parity': {
      const v = asNum(k, args(k, [a[1]])[0]);
      const probe = name.includes('test_wait');
      const hint = a[2] ? asNum(k, args(k, [a[2]])[0]) : undefined;
      const retried = !!k.cx.retryProbe && k.cx.retryProbe.startIndex === n.startIndex && k.cx.retryProbe.endIndex === n.endIndex;
      const mode: WaitMode | ((f: Frame) => WaitMode) = retried ? 'block' : probe ? 'probe' : retryMode(k, hint);
      const parity = name.endsWith('parity');
      const key = {};
      const barT = c.toTemp(cx, n, V(bar));
      const vT = c.toTemp(cx, n, V(v));
      return c.emitBlocking(cx, n, BOOL, (f) => {
        const md = modeOf(mode, f);
        return parity ? waitParity(f, key, barT.ev(f), vT.ev(f), md) : waitToken(f, key, barT.ev(f), vT.ev(f), md);
      });
    }
    case '__mbarrier_pending_count':
      unsupported('__mbarrier_pending_count', n);
  }
  unsupported(name, n);
}

// ------------------------------------------------------------------ placement new

function placementNew(k: Cx): Ex {
  const { c, cx, n } = k;
  const placement = n.childForFieldName('placement');
  if (!placement) unsupported('new without placement (no device heap)', n);
  const where = named(placement)[0];
  const tn = n.childForFieldName('type')!;
  const t = c.baseType(cx, tn);
  const init = n.childForFieldName('arguments');
  const initArgs = init ? named(init) : [];
  const p = asPtr(k, c.rv(c.expr(cx, where)));
  if (t.k === 'barrier') {
    if (!initArgs.length) unsupported('a cuda::barrier constructed without an expected count', n);
    const cnt = asNum(k, c.rv(c.expr(cx, initArgs[0])));
    const fn = initArgs[1] ? c.expr(cx, initArgs[1]) : undefined;
    if (fn && fn.t.k !== 'lambda') unsupported('a completion function that is not a lambda', initArgs[1]);
    const fnv = fn?.ev;
    return V((f) => {
      const q = p(f);
      const b = barrierAt(f.ts.m, q, 'cuda::barrier constructor');
      f.ts.m.mbInit(f.ts.t, b, cnt(f));
      b.onComplete = fnv ? completionRunner(f.ts, fnv(f) as Closure) : undefined;
      return q;
    }, ptr(t));
  }
  if (isNum(t)) {
    const v = initArgs[0] ? c.convertTo(c.rv(c.expr(cx, initArgs[0])), t, n).ev : () => 0;
    const st = storer(t.dt);
    return V((f) => {
      const q = p(f);
      st(q.buf, q.offset, v(f));
      return q;
    }, ptr(t));
  }
  unsupported(`placement new of ${typeName(t)}`, n);
}

// ------------------------------------------------------------------ member functions of library objects

export function compileMethodCall(c: Compiler, cx: FnCx, t: CType, self: Fn, name: string, a: SyntaxNode[], n: SyntaxNode, _targs?: SyntaxNode[]): Ex | undefined {
  const k: Cx = { c, cx, n };
  if (t.k === 'barrier') return barrierMethod(k, self, name, a);
  if (t.k === 'obj') {
    switch (t.obj) {
      case 'thread_block':
        switch (name) {
          case 'sync':
          case 'barrier_sync':
            return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.syncBlock(f.ts.t) ? 0 : undefined));
          case 'thread_rank':
            return V((f) => f.ts.t.tid, U32);
          case 'size':
          case 'num_threads':
            return V((f) => f.ts.m.blockSize, U32);
        }
        break;
      case 'grid':
        switch (name) {
          case 'sync':
            return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.syncCluster(f.ts.t, f.ts.m.numBlocks) ? 0 : undefined));
          case 'thread_rank':
            return V((f) => f.ts.t.block * f.ts.m.blockSize + f.ts.t.tid, U64);
          case 'size':
          case 'num_threads':
            return V((f) => f.ts.m.numBlocks * f.ts.m.blockSize, U64);
          case 'block_rank':
            return V((f) => f.ts.t.block, U32);
        }
        break;
      case 'tile': {
        const size = t.n ?? 32;
        const maskOf = (f: Frame) => (size === 32 ? 0xffffffff : ((((1 << size) - 1) << (f.ts.t.lane & ~(size - 1))) >>> 0));
        switch (name) {
          case 'sync':
            return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.syncWarp(f.ts.t, maskOf(f)) ? 0 : undefined));
          case 'thread_rank':
            return V((f) => f.ts.t.tid % size, U32);
          case 'size':
          case 'num_threads':
            return V(() => size, U32);
          case 'meta_group_rank':
            return V((f) => Math.floor(f.ts.t.tid / size), U32);
          case 'meta_group_size':
            return V((f) => Math.ceil(f.ts.m.blockSize / size), U32);
          case 'shfl':
          case 'shfl_up':
          case 'shfl_down':
          case 'shfl_xor': {
            const fake = { ...k };
            return shuffle(fake, `__${name}_sync`, a, maskOf, size);
          }
          case 'any':
          case 'all':
          case 'ballot':
            return vote(k, `__${name}_sync`, a, maskOf);
        }
        break;
      }
    }
  }
  void typeName;
  return undefined;
}

function barrierMethod(k: Cx, self: Fn, name: string, a: SyntaxNode[]): Ex | undefined {
  const { c, cx, n } = k;
  const what = `cuda::barrier::${name}`;
  const bar = (f: Frame) => barrierAt(f.ts.m, self(f), what);
  switch (name) {
    case 'arrive': {
      const cnt = a[0] ? asNum(k, args(k, [a[0]])[0]) : () => 1;
      return V((f) => threadArrive(f, bar(f), cnt(f)), U64);
    }
    case 'arrive_and_drop':
      return V((f) => (threadArrive(f, bar(f), 1, 0, true), 0));
    case 'wait':
    case 'try_wait': {
      const tok = c.toTemp(cx, n, c.rv(c.expr(cx, a[0])));
      const T = asNum(k, tok);
      const key = {};
      return c.emitBlocking(cx, n, name === 'wait' ? VOID : BOOL, (f) => waitToken(f, key, bar(f), T(f), 'block'));
    }
    case 'wait_parity':
    case 'try_wait_parity': {
      const par = c.toTemp(cx, n, c.rv(c.expr(cx, a[0])));
      const P = asNum(k, par);
      const key = {};
      return c.emitBlocking(cx, n, name === 'wait_parity' ? VOID : BOOL, (f) => waitParity(f, key, bar(f), P(f), 'block'));
    }
    case 'arrive_and_wait': {
      const tok = cx.slot();
      c.emitExec(cx, n, (f) => (f.v[tok] = threadArrive(f, bar(f), 1)));
      const key = {};
      return c.emitBlocking(cx, n, VOID, (f) => waitToken(f, key, bar(f), f.v[tok], 'block'));
    }
  }
  unsupported(`cuda::barrier::${name}`, n);
}

// ------------------------------------------------------------------ warp collectives

function shuffle(k: Cx, name: string, a: SyntaxNode[], tileMask?: (f: Frame) => number, tileWidth?: number): Ex {
  const { c, cx, n } = k;
  const xs = args(k, a);
  let i = 0;
  const mask = tileMask ? undefined : c.toTemp(cx, n, V(asNum(k, xs[i++], 'u32'), U32));
  const val = c.toTemp(cx, n, xs[i++]);
  const arg = c.toTemp(cx, n, V(asNum(k, xs[i++], 's32'), S32));
  const width = xs[i] ? asNum(k, xs[i], 's32') : () => tileWidth ?? 32;
  const vt = val.t;
  if (!isNum(vt)) unsupported(`${name} of a ${typeName(vt)}`, n);
  const kind = name.replace(/^__shfl_?/, '').replace(/_?sync$/, '');
  return c.emitBlocking(cx, n, vt, (f) => {
    const m = mask ? mask.ev(f) : tileMask!(f);
    const v = val.ev(f);
    const vals = f.ts.m.warpExchange(f.ts.t, m, v);
    if (!vals) return undefined;
    const lane = f.ts.t.lane;
    const w = width(f);
    const seg = lane & ~(w - 1);
    const x = arg.ev(f);
    let src: number;
    switch (kind) {
      case 'up':
        src = lane - x;
        if (src < seg) return v;
        break;
      case 'down':
        src = lane + x;
        if (src >= seg + w) return v;
        break;
      case 'xor':
        src = lane ^ x;
        if (src >= seg + w) return v;
        break;
      default:
        src = seg + (((x % w) + w) % w);
    }
    const r = vals[src];
    return r === undefined ? v : r;
  });
}

function vote(k: Cx, name: string, a: SyntaxNode[], tileMask?: (f: Frame) => number): Ex {
  const { c, cx, n } = k;
  const xs = args(k, a);
  let i = 0;
  const mask = tileMask ? undefined : c.toTemp(cx, n, V(asNum(k, xs[i++], 'u32'), U32));
  const valEx = xs[i];
  const isReduce = name.startsWith('__reduce');
  const val = c.toTemp(cx, n, isReduce ? valEx : V(c.truth(valEx, n), S32));
  const op = name.replace(/^__(reduce_)?/, '').replace(/_sync$/, '');
  const rt: CType = isReduce ? (isNum(valEx.t) && valEx.t.dt === 's32' ? S32 : U32) : name === '__ballot_sync' ? U32 : S32;
  return c.emitBlocking(cx, n, rt, (f) => {
    const m = mask ? mask.ev(f) : tileMask!(f);
    const raw = val.ev(f);
    const vals = f.ts.m.warpExchange(f.ts.t, m, isReduce ? raw : raw ? 1 : 0);
    if (!vals) return undefined;
    let acc = op === 'all' || op === 'and' ? (op === 'and' ? -1 : 1) : op === 'min' ? Infinity : op === 'max' ? -Infinity : 0;
    for (let l = 0; l < 32; l++) {
      if (!((m >>> l) & 1)) continue;
      const v = vals[l];
      if (v === undefined) continue;
      switch (op) {
        case 'all':
          acc = acc && v ? 1 : 0;
          break;
        case 'any':
          acc = acc || v ? 1 : 0;
          break;
        case 'ballot':
          if (v) acc = (acc | (1 << l)) >>> 0;
          break;
        case 'add':
          acc += v;
          break;
        case 'min':
          acc = Math.min(acc, v);
          break;
        case 'max':
          acc = Math.max(acc, v);
          break;
        case 'and':
          acc &= v;
          break;
        case 'or':
          acc |= v;
          break;
        case 'xor':
          acc ^= v;
          break;
      }
    }
    return rt === S32 ? acc | 0 : acc >>> 0;
  });
}

// ------------------------------------------------------------------ atomics

function atomic(k: Cx, op: string, a: SyntaxNode[]): Ex {
  const { n } = k;
  const xs = args(k, a);
  const p = xs[0];
  if (p.t.k !== 'ptr' || !isNum(p.t.to)) fail(`atomic${op} needs a pointer to a number, got ${typeName(p.t)}`, n);
  const et = p.t.to;
  const dt = et.dt;
  const ld = loader(dt);
  const st = storer(dt);
  const P = p.ev;
  const val = k.c.convertTo(xs[op === 'CAS' ? 2 : 1], et, n).ev;
  const cmpv = op === 'CAS' ? k.c.convertTo(xs[1], et, n).ev : undefined;
  const wrap = convFn(dt === 'f32' || dt === 'f64' ? 'f64' : 'f64', dt) ?? ((x: number) => x);
  const isF = isFloatDt(dt);
  const size = sizeOfType(et);
  return V((f) => {
    const q = P(f) as Pointer;
    if (!q) throw new SimError(`atomic${op}: null pointer`);
    const old = ld(q.buf, q.offset);
    const v = val(f);
    let nv: number;
    switch (op) {
      case 'Add':
        nv = wrap(old + v);
        break;
      case 'Sub':
        nv = wrap(old - v);
        break;
      case 'Exch':
        nv = v;
        break;
      case 'Min':
        nv = Math.min(old, v);
        break;
      case 'Max':
        nv = Math.max(old, v);
        break;
      case 'Inc':
        nv = old >= v ? 0 : old + 1;
        break;
      case 'Dec':
        nv = old === 0 || old > v ? v : old - 1;
        break;
      case 'And':
        nv = wrap(old & v);
        break;
      case 'Or':
        nv = wrap(old | v);
        break;
      case 'Xor':
        nv = wrap(old ^ v);
        break;
      case 'CAS':
        nv = old === cmpv!(f) ? v : old;
        break;
      default:
        nv = old;
    }
    if (isF && (op === 'And' || op === 'Or' || op === 'Xor')) throw new SimError(`atomic${op} on ${dt}`);
    st(q.buf, q.offset, nv);
    void size;
    return old;
  }, et);
}

// ------------------------------------------------------------------ printf

function printfCall(k: Cx, a: SyntaxNode[]): Ex {
  const { c, cx, n } = k;
  const xs = args(k, a);
  const fmt = xs[0]?.str;
  if (fmt === undefined) unsupported('printf with a non-literal format', n);
  const vals = xs.slice(1).map((e) => ({ ev: e.ev, t: e.t }));
  return V((f) => {
    const values = vals.map((v) => v.ev(f));
    let i = 0;
    const text = fmt.replace(/%([-+ 0#]*)(\d+|\*)?(?:\.(\d+))?(hh|h|ll|l|z|j|t)?([diouxXfFeEgGcsp%])/g, (_m, flags: string, width: string | undefined, prec: string | undefined, _len, conv: string) => {
      if (conv === '%') return '%';
      let w = width === '*' ? Number(values[i++]) : width ? Number(width) : 0;
      const v = values[i];
      const t = vals[i]?.t;
      i++;
      let s: string;
      switch (conv) {
        case 'd':
        case 'i':
          s = String(Math.trunc(Number(v)));
          break;
        case 'u':
          s = String(Number(v) < 0 ? Number(v) + 4294967296 : Math.trunc(Number(v)));
          break;
        case 'x':
        case 'X':
          s = (Number(v) < 0 ? Number(v) + 4294967296 : Number(v)).toString(16);
          if (conv === 'X') s = s.toUpperCase();
          if (flags.includes('#') && Number(v) !== 0) s = `0x${s}`;
          break;
        case 'o':
          s = (Number(v) >>> 0).toString(8);
          break;
        case 'c':
          s = String.fromCharCode(Number(v));
          break;
        case 's':
          s = String(v);
          break;
        case 'p':
          s = `0x${genericAddress(f.ts.ex, v as Pointer | null).toString(16)}`;
          break;
        case 'e':
        case 'E':
          s = Number(v).toExponential(prec ? Number(prec) : 6).replace(/e([+-])(\d)$/, 'e$10$2');
          if (conv === 'E') s = s.toUpperCase();
          break;
        case 'g':
        case 'G':
          s = String(Number(Number(v).toPrecision(prec ? Number(prec) || 1 : 6)));
          break;
        default:
          s = Number(v).toFixed(prec ? Number(prec) : 6);
      }
      if (flags.includes('+') && /[dife]/.test(conv) && Number(v) >= 0) s = `+${s}`;
      void t;
      if (w && s.length < w) {
        const pad = flags.includes('0') && !flags.includes('-') ? '0' : ' ';
        s = flags.includes('-') ? s.padEnd(w, ' ') : pad === '0' && /^[+-]/.test(s) ? s[0] + s.slice(1).padStart(w - 1, '0') : s.padStart(w, pad);
      }
      w = 0;
      return s;
    });
    f.ts.m.print(text, f.ts.t);
    return text.length;
  }, S32);
  void c;
  void cx;
}

// ------------------------------------------------------------------ math and conversions

const F1: Record<string, (x: number) => number> = {
  sqrt: Math.sqrt,
  exp: Math.exp,
  exp2: (x) => 2 ** x,
  exp10: (x) => 10 ** x,
  log: Math.log,
  log2: Math.log2,
  log10: Math.log10,
  log1p: Math.log1p,
  expm1: Math.expm1,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  floor: Math.floor,
  ceil: Math.ceil,
  trunc: Math.trunc,
  round: (x) => (x < 0 ? -Math.round(-x) : Math.round(x)),
  rint: roundEven,
  nearbyint: roundEven,
  fabs: Math.abs,
  rsqrt: (x) => 1 / Math.sqrt(x),
  cbrt: Math.cbrt,
  erf: erf,
};

function roundEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function erf(x: number): number {
  // Abramowitz-Stegun 7.1.26 (enough for printing; kernels here do not depend on it).
  const s = Math.sign(x);
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  return s * (1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a));
}

const bits = new DataView(new ArrayBuffer(8));

function mathCall(k: Cx, name: string, a: SyntaxNode[]): Ex | undefined {
  const { c, n } = k;
  // f32 variants: sqrtf, __expf, __fsqrt_rn …
  const base = name.replace(/^__/, '').replace(/_r[nzdu]$/, '');
  const fBase = base.endsWith('f') ? base.slice(0, -1) : undefined;
  if (fBase && F1[fBase] && a.length === 1) {
    const x = asNum(k, args(k, a)[0], 'f32');
    const fn = F1[fBase];
    return V((f) => Math.fround(fn(x(f))), F32);
  }
  if (F1[name] && a.length === 1) {
    const e = args(k, a)[0];
    const dt = isNum(e.t) && (e.t.dt === 'f32' || e.t.dt === 'f16' || e.t.dt === 'bf16') ? 'f32' : 'f64';
    const x = asNum(k, e, dt);
    const fn = F1[name];
    return V(dt === 'f32' ? (f) => Math.fround(fn(x(f))) : (f) => fn(x(f)), num(dt));
  }
  switch (name) {
    case 'min':
    case 'max':
    case 'fmin':
    case 'fmax':
    case 'fminf':
    case 'fmaxf':
    case 'umin':
    case 'umax':
    case 'llmin':
    case 'llmax': {
      const [x, y] = args(k, a);
      if (!isNum(x.t) || !isNum(y.t)) fail(`${name} of non-numbers`, n);
      const dt = name.endsWith('f') ? 'f32' : name.startsWith('f') ? 'f64' : name.startsWith('u') ? 'u32' : commonType(x.t.dt, y.t.dt);
      const X = asNum(k, x, dt);
      const Y = asNum(k, y, dt);
      const isMin = name.includes('min');
      const out: Ex = V(isMin ? (f) => Math.min(X(f), Y(f)) : (f) => Math.max(X(f), Y(f)), num(dt));
      if (x.cv !== undefined && y.cv !== undefined) {
        const v = out.ev(null as unknown as Frame);
        return { t: out.t, ev: () => v, cv: v };
      }
      return out;
    }
    case 'abs':
    case 'labs':
    case 'llabs': {
      const e = args(k, a)[0];
      if (!isNum(e.t)) fail('abs of a non-number', n);
      const dt = promote(e.t.dt);
      const X = asNum(k, e, dt);
      return V(dt === 's32' ? (f) => Math.abs(X(f)) | 0 : (f) => Math.abs(X(f)), num(dt));
    }
    case 'fmaf':
    case '__fmaf_rn':
    case 'fma': {
      const dt = name === 'fma' ? 'f64' : 'f32';
      const [x, y, z] = args(k, a).map((e) => asNum(k, e, dt));
      return V(dt === 'f32' ? (f) => Math.fround(x(f) * y(f) + z(f)) : (f) => x(f) * y(f) + z(f), num(dt));
    }
    case 'powf':
    case '__powf':
    case 'pow':
    case 'atan2f':
    case 'atan2':
    case 'fmodf':
    case 'fmod':
    case 'hypotf':
    case 'copysignf': {
      const dt = name.endsWith('f') ? 'f32' : 'f64';
      const [x, y] = args(k, a).map((e) => asNum(k, e, dt));
      const op = name.replace(/^__/, '').replace(/f$/, '');
      const fn: (p: number, q: number) => number = op === 'pow' ? Math.pow : op === 'atan2' ? Math.atan2 : op === 'fmod' ? (p, q) => p % q : op === 'hypot' ? Math.hypot : (p, q) => Math.abs(p) * (q < 0 || Object.is(q, -0) ? -1 : 1);
      return V(dt === 'f32' ? (f) => Math.fround(fn(x(f), y(f))) : (f) => fn(x(f), y(f)), num(dt));
    }
    case '__fdividef':
    case '__fdiv_rn':
    case 'fdividef': {
      const [x, y] = args(k, a).map((e) => asNum(k, e, 'f32'));
      return V((f) => Math.fround(x(f) / y(f)), F32);
    }
    case '__fadd_rn':
    case '__fsub_rn':
    case '__fmul_rn': {
      const [x, y] = args(k, a).map((e) => asNum(k, e, 'f32'));
      const o = name[3];
      return V(o === 'a' ? (f) => Math.fround(x(f) + y(f)) : o === 's' ? (f) => Math.fround(x(f) - y(f)) : (f) => Math.fround(x(f) * y(f)), F32);
    }
    case '__frcp_rn':
      return V(((x) => (f: Frame) => Math.fround(1 / x(f)))(asNum(k, args(k, a)[0], 'f32')), F32);
    case '__saturatef': {
      const x = asNum(k, args(k, a)[0], 'f32');
      return V((f) => {
        const v = x(f);
        return v > 1 ? 1 : v > 0 ? v : 0;
      }, F32);
    }
    case '__float2int_rn':
    case '__float2int_rz':
    case '__float2int_rd':
    case '__float2int_ru':
    case '__float2uint_rn':
    case '__float2uint_rz':
    case '__double2int_rn':
    case '__float2ll_rn': {
      const x = asNum(k, args(k, a)[0], 'f64');
      const mode = name.slice(-2);
      const rnd = mode === 'rn' ? roundEven : mode === 'rz' ? Math.trunc : mode === 'rd' ? Math.floor : Math.ceil;
      const dt = name.includes('uint') ? 'u32' : name.includes('ll') ? 's64' : 's32';
      const cv = convFn('f64', dt)!;
      return V((f) => cv(rnd(x(f))), num(dt));
    }
    case '__int2float_rn':
    case '__uint2float_rn':
    case '__ll2float_rn':
      return V(asNum(k, args(k, a)[0], 'f32'), F32);
    case '__int2double_rn':
      return V(asNum(k, args(k, a)[0], 'f64'), F64);
    case '__float_as_uint':
    case '__float_as_int': {
      const x = asNum(k, args(k, a)[0], 'f32');
      const signed = name.endsWith('int') && !name.endsWith('uint');
      return V((f) => {
        bits.setFloat32(0, x(f), true);
        return signed ? bits.getInt32(0, true) : bits.getUint32(0, true);
      }, signed ? S32 : U32);
    }
    case '__uint_as_float':
    case '__int_as_float': {
      const x = asNum(k, args(k, a)[0], 'u32');
      return V((f) => {
        bits.setUint32(0, x(f), true);
        return bits.getFloat32(0, true);
      }, F32);
    }
    case '__half2float':
    case '__bfloat162float':
    case '__low2float':
      return V(asNum(k, args(k, a)[0], 'f32'), F32);
    case '__float2half':
    case '__float2half_rn':
    case '__double2half':
    case '__int2half_rn':
      return V(asNum(k, args(k, a)[0], 'f16'), num('f16'));
    case '__float2bfloat16':
    case '__float2bfloat16_rn':
    case '__double2bfloat16':
      return V(asNum(k, args(k, a)[0], 'bf16'), num('bf16'));
    case '__half_as_ushort':
    case '__half_as_short': {
      const x = asNum(k, args(k, a)[0], 'f16');
      return V((f) => toHalfBits(x(f)), num('u16'));
    }
    case '__bfloat16_as_ushort': {
      const x = asNum(k, args(k, a)[0], 'bf16');
      return V((f) => toBf16Bits(x(f)), num('u16'));
    }
    case '__hadd':
    case '__hsub':
    case '__hmul':
    case '__hdiv':
    case '__hmax':
    case '__hmin': {
      const [x, y] = args(k, a);
      const dt = isNum(x.t) && x.t.dt === 'bf16' ? 'bf16' : 'f16';
      const X = asNum(k, x, dt);
      const Y = asNum(k, y, dt);
      const o = name.slice(2);
      const fn: (p: number, q: number) => number = o === 'hadd' ? (p, q) => p + q : o === 'hsub' ? (p, q) => p - q : o === 'hmul' ? (p, q) => p * q : o === 'hdiv' ? (p, q) => p / q : o === 'hmax' ? Math.max : Math.min;
      return V((f) => coerce(dt, fn(X(f), Y(f))), num(dt));
    }
    case '__hfma': {
      const xs = args(k, a);
      const dt = isNum(xs[0].t) && xs[0].t.dt === 'bf16' ? 'bf16' : 'f16';
      const [x, y, z] = xs.map((e) => asNum(k, e, dt));
      return V((f) => coerce(dt, x(f) * y(f) + z(f)), num(dt));
    }
    case '__hneg':
    case '__habs': {
      const e = args(k, a)[0];
      const dt = isNum(e.t) && e.t.dt === 'bf16' ? 'bf16' : 'f16';
      const x = asNum(k, e, dt);
      return V(name === '__hneg' ? (f) => -x(f) : (f) => Math.abs(x(f)), num(dt));
    }
    case '__popc':
    case '__popcll': {
      const x = asNum(k, args(k, a)[0], name === '__popc' ? 'u32' : 'u64');
      return V((f) => {
        let v = x(f);
        let cnt = 0;
        while (v > 0) {
          cnt += v % 2;
          v = Math.floor(v / 2);
        }
        return cnt;
      }, S32);
    }
    case '__clz': {
      const x = asNum(k, args(k, a)[0], 'u32');
      return V((f) => Math.clz32(x(f)), S32);
    }
    case '__ffs': {
      const x = asNum(k, args(k, a)[0], 'u32');
      return V((f) => {
        const v = x(f);
        return v === 0 ? 0 : 32 - Math.clz32(v & -v);
      }, S32);
    }
    case '__brev': {
      const x = asNum(k, args(k, a)[0], 'u32');
      return V((f) => {
        let v = x(f);
        let r = 0;
        for (let i = 0; i < 32; i++) {
          r = (r << 1) | (v & 1);
          v >>>= 1;
        }
        return r >>> 0;
      }, U32);
    }
    case '__umulhi':
    case '__mulhi': {
      const dt = name === '__umulhi' ? 'u32' : 's32';
      const [x, y] = args(k, a).map((e) => asNum(k, e, dt));
      return V((f) => {
        const r = BigInt(x(f)) * BigInt(y(f));
        return Number(dt === 'u32' ? BigInt.asUintN(32, r >> 32n) : BigInt.asIntN(32, r >> 32n));
      }, num(dt));
    }
    case '__mul24':
    case '__umul24': {
      const dt = name === '__umul24' ? 'u32' : 's32';
      const [x, y] = args(k, a).map((e) => asNum(k, e, dt));
      return V(dt === 'u32' ? (f) => Math.imul(x(f) & 0xffffff, y(f) & 0xffffff) >>> 0 : (f) => Math.imul((x(f) << 8) >> 8, (y(f) << 8) >> 8), num(dt));
    }
    case '__funnelshift_l':
    case '__funnelshift_r':
    case '__funnelshift_lc':
    case '__funnelshift_rc': {
      const [lo, hi, sh] = args(k, a).map((e) => asNum(k, e, 'u32'));
      const left = name.includes('_l');
      const clamp = name.endsWith('c');
      return V((f) => {
        const s = clamp ? Math.min(sh(f), 32) : sh(f) & 31;
        const v = (BigInt(hi(f)) << 32n) | BigInt(lo(f));
        return Number(left ? BigInt.asUintN(32, (v << BigInt(s)) >> 32n) : BigInt.asUintN(32, v >> BigInt(s)));
      }, U32);
    }
  }
  void c;
  return undefined;
}

for (const nm of [
  ...Object.keys(F1),
  ...Object.keys(F1).map((x) => `${x}f`),
  ...Object.keys(F1).map((x) => `__${x}f`),
  'min',
  'max',
  'fminf',
  'fmaxf',
  'fmin',
  'fmax',
  'umin',
  'umax',
  'abs',
  'labs',
  'llabs',
  'fmaf',
  'fma',
  'powf',
  'pow',
  '__powf',
  '__fdividef',
  '__saturatef',
  '__float2int_rn',
  '__float2int_rz',
  '__float2uint_rn',
  '__int2float_rn',
  '__float_as_uint',
  '__uint_as_float',
  '__float_as_int',
  '__int_as_float',
  '__half2float',
  '__float2half',
  '__float2half_rn',
  '__bfloat162float',
  '__float2bfloat16',
  '__float2bfloat16_rn',
  '__hadd',
  '__hsub',
  '__hmul',
  '__hdiv',
  '__hfma',
  '__popc',
  '__clz',
  '__ffs',
  '__brev',
  '__umulhi',
  '__mulhi',
  'clock',
  'clock64',
  '__threadfence',
  '__threadfence_block',
  '__nanosleep',
  '__cvta_generic_to_shared',
  '__ldg',
  'move',
  'forward',
  'aligned_size_t',
  '__activemask',
  'printf',
  'assert',
  'this_thread_block',
  'barrier_native_handle',
  'mbarrier_arrive',
  'mbarrier_arrive_expect_tx',
  'mbarrier_init',
  'mbarrier_expect_tx',
  '__mbarrier_arrive',
  '__mbarrier_init',
  'static_cast',
])
  KNOWN.add(nm);
