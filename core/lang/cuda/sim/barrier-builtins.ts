// The barrier APIs: cuda::barrier (init, placement construction lives with placement new, the
// native handle, arrive_tx/expect_tx and its member functions), the cuda::ptx::mbarrier_* functions
// and the __mbarrier_* primitives. Arrivals and waits go to the machine's mbarrier services through
// barrier-runtime.ts; waits are blocking instructions of their own.
import type { SimBarrier } from '../../../sim/machine';
import type { SyntaxNode } from '../parser';
import { args, asNum, barArg, type BuiltinCx, cases, type FreeBuiltin, type MethodBuiltin, modeOf, ptxForm, retryMode, V } from './builtin-operands';
import { arriveRow, barrierAt, completionRunner, type LaneBarrier, laneBarrier, markProducer, threadArrive, type WaitMode, waitParity, waitRow, waitToken } from './barrier-runtime';
import { rowIntoSlot } from './lanes';
import type { Ex, Fn } from './context';
import type { Closure, Frame } from './runtime';
import { effectFree, unsupported } from './syntax';
import { BOOL, ptr, U64, VOID } from './types';

/** cuda::barrier free functions, cuda::ptx::mbarrier_* and the __mbarrier_* primitives. */
export const BARRIER_BUILTINS: Record<string, FreeBuiltin> = {
  // cuda::barrier
  ...cases(['init'], (k, _name, ns, a) => {
    if (!((ns === '' || ns === 'cuda') && a.length >= 2)) return undefined;
    const { c, cx } = k;
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
  }),
  ...cases(['barrier_native_handle'], (k, _name, _ns, a) => {
    const { c, cx } = k;
    const e = c.expr(cx, a[0]);
    return V(c.addressOf(e, a[0]), ptr(U64));
  }),
  ...cases(['barrier_arrive_tx'], (k, _name, _ns, a) => {
    const bar = barArg(k, a[0], 'barrier_arrive_tx');
    const [cnt, tx] = args(k, a.slice(1)).map((e) => asNum(k, e));
    return V((f) => {
      const b = bar(f);
      markProducer(f.ts.t, b);
      return threadArrive(f, b, cnt(f), tx(f));
    }, U64);
  }),
  ...cases(['barrier_expect_tx'], (k, _name, _ns, a) => {
    const bar = barArg(k, a[0], 'barrier_expect_tx');
    const tx = asNum(k, args(k, [a[1]])[0]);
    return V((f) => {
      const b = bar(f);
      markProducer(f.ts.t, b);
      f.ts.m.mbExpectTx(f.ts.t, b, tx(f));
      return 0;
    });
  }),
  // cuda::ptx
  ...cases(['mbarrier_init'], ptxForm((k, _name, _ns, a) => {
    const bar = barArg(k, a[0], 'mbarrier_init');
    const cnt = asNum(k, args(k, [a[1]])[0]);
    return V((f) => (f.ts.m.mbInit(f.ts.t, bar(f), cnt(f)), 0));
  })),
  ...cases(['mbarrier_arrive', 'mbarrier_arrive_no_complete'], ptxForm((k, name, _ns, a) => {
    const bar = barArg(k, a[0], name);
    return arrival(k, bar, a[1], () => argBarrier(a[0], bar, name));
  })),
  ...cases(['mbarrier_arrive_expect_tx'], ptxForm((k, name, _ns, a) => {
    const bar = barArg(k, a[0], name);
    const tx = asNum(k, args(k, [a[1]])[0]);
    return V((f) => {
      const b = bar(f);
      markProducer(f.ts.t, b);
      return threadArrive(f, b, 1, tx(f));
    }, U64);
  })),
  ...cases(['mbarrier_expect_tx'], ptxForm((k, name, _ns, a) => {
    const bar = barArg(k, a[0], name);
    const tx = asNum(k, args(k, [a[1]])[0]);
    return V((f) => {
      const b = bar(f);
      markProducer(f.ts.t, b);
      f.ts.m.mbExpectTx(f.ts.t, b, tx(f));
      return 0;
    });
  })),
  ...cases(['mbarrier_try_wait', 'mbarrier_try_wait_parity', 'mbarrier_test_wait', 'mbarrier_test_wait_parity'], ptxForm((k, name, _ns, a) => {
    const bar = barArg(k, a[0], name);
    const v = asNum(k, args(k, [a[1]])[0]);
    const hint = a[2] ? asNum(k, args(k, [a[2]])[0]) : undefined;
    const probe = name.includes('test_wait');
    const mode = probe ? (retryMode(k, undefined) === 'block' && k.cx.retryProbe ? 'block' : 'probe') : retryMode(k, hint);
    return phaseWait(k, bar, v, mode, name.endsWith('parity'), name);
  })),
    // __mbarrier_* primitives
  ...cases(['__mbarrier_init'], (k, name, _ns, a) => {
    const bar = barArg(k, a[0], name);
    const cnt = asNum(k, args(k, [a[1]])[0]);
    return V((f) => (f.ts.m.mbInit(f.ts.t, bar(f), cnt(f)), 0));
  }),
  ...cases(['__mbarrier_inval'], (k, name, _ns, a) => {
    const bar = barArg(k, a[0], name);
    return V((f) => (bar(f).mb.inval(), 0));
  }),
  ...cases(['__mbarrier_arrive'], (k, name, _ns, a) => {
    const bar = barArg(k, a[0], name);
    return arrival(k, bar, undefined, () => argBarrier(a[0], bar, name));
  }),
  ...cases(['__mbarrier_arrive_and_drop'], (k, name, _ns, a) => {
    const bar = barArg(k, a[0], name);
    return V((f) => threadArrive(f, bar(f), 1, 0, true), U64);
  }),
  ...cases(['__mbarrier_arrive_no_complete'], (k, name, _ns, a) => {
    const bar = barArg(k, a[0], name);
    return V((f) => threadArrive(f, bar(f), 1), U64);
  }),
  ...cases(['__mbarrier_test_wait', '__mbarrier_test_wait_parity', '__mbarrier_try_wait', '__mbarrier_try_wait_parity'], (k, name, _ns, a) => {
    const { n } = k;
    const bar = barArg(k, a[0], name);
    const v = asNum(k, args(k, [a[1]])[0]);
    const probe = name.includes('test_wait');
    const hint = a[2] ? asNum(k, args(k, [a[2]])[0]) : undefined;
    const retried = !!k.cx.retryProbe && k.cx.retryProbe.startIndex === n.startIndex && k.cx.retryProbe.endIndex === n.endIndex;
    const mode: WaitMode | ((f: Frame) => WaitMode) = retried ? 'block' : probe ? 'probe' : retryMode(k, hint);
    return phaseWait(k, bar, v, mode, name.endsWith('parity'), name);
  }),
};

/** The barrier a cuda::barrier member function is called on. */
function barrierOf(self: Fn, name: string): (f: Frame) => SimBarrier {
  const what = `cuda::barrier::${name}`;
  return (f: Frame) => barrierAt(f.ts.m, self(f), what);
}

/**
 * An arrival of `countNode` (or 1) on `bar`, giving its token. A converged warp's lanes arrive in one
 * update (a row, which `find` says how to aim, if it can) where the count is a constant.
 */
function arrival(k: BuiltinCx, bar: (f: Frame) => SimBarrier, countNode: SyntaxNode | undefined, find: () => LaneBarrier | undefined): Ex {
  const count = countNode ? args(k, [countNode])[0] : undefined;
  const cnt = count ? asNum(k, count) : () => 1;
  const fixed = count ? count.cv : 1;
  const lanes = fixed !== undefined && Number.isInteger(fixed) && fixed > 0 ? find() : undefined;
  return { ...V((f) => threadArrive(f, bar(f), cnt(f)), U64), row: lanes && arriveRow(lanes, fixed!) };
}

/**
 * A parity (`parity`) or token wait on `bar` in `mode` (blocking, probing, or with a time limit), as a
 * blocking instruction giving whether it passed. A wait that blocks until done (try_wait without a
 * time limit, a probe retried by a loop) has a row.
 */
function phaseWait(k: BuiltinCx, bar: (f: Frame) => SimBarrier, v: Fn, mode: WaitMode | ((f: Frame) => WaitMode), parity: boolean, name: string): Ex {
  const { c, cx, n } = k;
  const key = {};
  const barT = c.toTemp(cx, n, V(bar));
  const vT = c.toTemp(cx, n, V(v));
  const row = mode === 'block' ? waitRow(laneBarrier(barT.ev as (f: Frame) => SimBarrier, name), vT.ev as (f: Frame) => number, parity) : undefined;
  return c.emitBlocking(
    cx,
    n,
    BOOL,
    (f) => {
      const md = modeOf(mode, f);
      return parity ? waitParity(f, key, barT.ev(f), vT.ev(f), md) : waitToken(f, key, barT.ev(f), vT.ev(f), md);
    },
    row,
  );
}

/** How a warp-lockstep row finds the barrier operand `node` of a free function, where it is free of effects. */
function argBarrier(node: SyntaxNode, bar: (f: Frame) => SimBarrier, name: string): LaneBarrier | undefined {
  return effectFree(node) ? laneBarrier(bar, name) : undefined;
}

/**
 * How a warp-lockstep row finds the barrier of member call `k.n` (on object `obj`), where the object
 * is named without effects (a row may evaluate it again); undefined otherwise.
 */
function rowBarrier(k: BuiltinCx, bar: (f: Frame) => SimBarrier, name: string, obj: Ex | undefined): LaneBarrier | undefined {
  const callee = k.n.childForFieldName('function');
  const node = callee?.type === 'field_expression' ? callee.childForFieldName('argument') : null;
  if (!node || !effectFree(node)) return undefined;
  return laneBarrier(bar, `cuda::barrier::${name}`, obj?.lv?.k === 'mem' ? obj.lv.elem : undefined);
}

/** Members of cuda::barrier (any other member is unsupported). */
export const BARRIER_METHODS: Record<string, MethodBuiltin> = {
  ...cases(['arrive'], (k, _t, self, name, a, obj) => {
    const bar = barrierOf(self, name);
    return arrival(k, bar, a[0], () => rowBarrier(k, bar, name, obj));
  }),
  ...cases(['arrive_and_drop'], (_k, _t, self, name) => {
    const bar = barrierOf(self, name);
    return V((f) => (threadArrive(f, bar(f), 1, 0, true), 0));
  }),
  ...cases(['wait', 'try_wait'], (k, _t, self, name, a, obj) => {
    const { c, cx, n } = k;
    const bar = barrierOf(self, name);
    const tok = c.toTemp(cx, n, c.rv(c.expr(cx, a[0])));
    const T = asNum(k, tok);
    const key = {};
    const find = rowBarrier(k, bar, name, obj);
    return c.emitBlocking(cx, n, name === 'wait' ? VOID : BOOL, (f) => waitToken(f, key, bar(f), T(f), 'block'), find && waitRow(find, T, false));
  }),
  ...cases(['wait_parity', 'try_wait_parity'], (k, _t, self, name, a, obj) => {
    const { c, cx, n } = k;
    const bar = barrierOf(self, name);
    const par = c.toTemp(cx, n, c.rv(c.expr(cx, a[0])));
    const P = asNum(k, par);
    const key = {};
    const find = rowBarrier(k, bar, name, obj);
    return c.emitBlocking(cx, n, name === 'wait_parity' ? VOID : BOOL, (f) => waitParity(f, key, bar(f), P(f), 'block'), find && waitRow(find, P, true));
  }),
  ...cases(['arrive_and_wait'], (k, _t, self, name, _a, obj) => {
    const { c, cx, n } = k;
    const bar = barrierOf(self, name);
    const tok = cx.slot();
    // The wait is on the barrier the arrive found (one call: its operand is evaluated once).
    const at = cx.slot();
    const again = (f: Frame) => f.v[at] as SimBarrier;
    const find = rowBarrier(k, bar, name, obj);
    const found: LaneBarrier | undefined = find && ((fs, m) => {
      const b = find(fs, m);
      if (b) for (let j = 0; j < m; j++) fs[j].v[at] = b;
      return b;
    });
    c.emitExec(cx, n, (f) => (f.v[tok] = threadArrive(f, (f.v[at] = bar(f)), 1)), undefined, found && rowIntoSlot(arriveRow(found, 1), tok));
    const key = {};
    return c.emitBlocking(cx, n, VOID, (f) => waitToken(f, key, again(f), f.v[tok], 'block'), found && waitRow(laneBarrier(again, `cuda::barrier::${name}`), (f) => f.v[tok], false));
  }),
};
