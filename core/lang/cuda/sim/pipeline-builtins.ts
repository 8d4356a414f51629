// cuda::pipeline (libcu++ <cuda/pipeline>) over the machine's mbarriers and cp.async groups, as CCCL
// implements it:
// - `pipeline_shared_state<scope, N>` holds N stages of two barriers (`produced`, `consumed`, 16 bytes
//   a stage) and a reference count, in shared memory.
// - `make_pipeline(group, &state)` (every thread both producer and consumer: both barriers count the
//   group), `make_pipeline(group, &state, producer_count)` and `make_pipeline(group, &state, role)`
//   (produced counts the producers, consumed the consumers): rank 0 initialises, with the group's
//   syncs in between as CCCL has them (the role form counts the producers between two syncs).
// - producer_acquire waits on consumed[head] with a parity that starts at 1 (the first pass through
//   the ring does not wait); producer_commit makes produced[head] wait for the thread's cp.async
//   copies (cp.async.mbarrier.arrive) and arrives on it; consumer_wait waits on produced[tail] (parity
//   from 0); consumer_release arrives on consumed[tail]; head and tail wrap and flip their parities.
// - `make_pipeline()` (thread scope) is the cp.async group machinery: producer_commit commits a group,
//   consumer_wait waits for the oldest uncommitted-to-consumer one; acquire and release do nothing.
// - `memcpy_async(…, pipeline)` is a cp.async copy (generic proxy) of the calling thread, or of rank 0
//   for a group-wide copy (whose completion the group's commits all wait for).
import type { SyntaxNode } from '../parser';
import { type Machine, type SimBarrier, SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { barrierAt, waitParity } from './barrier-runtime';
import { args, asNum, asPtr, type BuiltinCx, cases, type FreeBuiltin, type MethodBuiltin, V } from './builtin-operands';
import type { Ex } from './context';
import type { Frame, ThreadCtx } from './runtime';
import { fail, unsupported } from './syntax';
import { BOOL, type CType, layoutStruct, type StructDef, U32, VOID } from './types';

/** One thread's pipeline object (its head/tail cursors and parities); the stages live in shared memory. */
export interface PipelineObj {
  /** The shared state (null: a thread-scope pipeline over cp.async groups). */
  state: Pointer | null;
  stages: number;
  head: number;
  tail: number;
  consumedParity: number;
  producedParity: number;
  active: boolean;
}

export const PIPELINE_TYPE: CType = { k: 'obj', obj: 'pipeline' };
export const PIPELINE_ROLE_TYPE: CType = { k: 'obj', obj: 'pipeline_role' };

/** Bytes of one stage (two barriers) in a pipeline_shared_state. */
const STAGE_BYTES = 16;

const sharedStates = new Map<number, StructDef>();

/** `pipeline_shared_state<scope, stages>`: the stages' two barriers each (produced, consumed), then the reference count (libcu++'s layout). */
export function sharedStateDef(stages: number): StructDef {
  let d = sharedStates.get(stages);
  if (!d) sharedStates.set(stages, (d = layoutStruct('pipeline_shared_state', [{ name: '__stages', type: { k: 'arr', of: { k: 'barrier' }, n: 2 * stages } }, { name: '__refcount', type: U32 }])));
  return d;
}

/** `produced` or `consumed` barrier of `stage`, labelled by the state variable's name. */
function stageBarrier(m: Machine, p: PipelineObj, stage: number, which: 'produced' | 'consumed'): SimBarrier {
  const s = p.state!;
  const off = s.offset + stage * STAGE_BYTES + (which === 'consumed' ? 8 : 0);
  const slots = (s.buf.slots ??= []);
  const known = slots[off / 8] as SimBarrier | undefined;
  if (known) return known;
  const b = m.mbarrierAt(s.buf, off, `${s.buf.name}.${which}[${stage}]`);
  slots[off / 8] = b;
  return b;
}

/** The stage count of a `pipeline_shared_state` pointer's type (its struct has 2N barriers first). */
function stagesOf(t: CType, n: SyntaxNode): number {
  const st = t.k === 'ptr' ? t.to : undefined;
  const f0 = st?.k === 'struct' && st.def.name === 'pipeline_shared_state' ? st.def.fields[0] : undefined;
  if (!f0 || f0.type.k !== 'arr') fail(`make_pipeline: the second argument must point to a cuda::pipeline_shared_state, not '${n.text}'`, n);
  return f0.type.n / 2;
}

/** Rank of the calling thread in the group and the group's sync, for the groups make_pipeline accepts. */
function groupOf(k: BuiltinCx, g: Ex): { rank: (f: Frame) => number; size: (f: Frame) => number; sync: (f: Frame) => boolean } {
  if (g.t.k === 'obj' && g.t.obj === 'thread_block') return { rank: (f) => f.ts.t.tid, size: (f) => f.ts.m.blockSize, sync: (f) => f.ts.m.syncBlock(f.ts.t) };
  unsupported(`cuda::make_pipeline over a ${g.t.k === 'obj' ? g.t.obj : 'non-group'} (only cooperative_groups::thread_block is modelled)`, k.n);
}

/** Per thread and make_pipeline call: how far the call got (it blocks in the group's syncs and is re-run). */
const progress = new WeakMap<ThreadCtx, { key: object; step: number }>();

function initStages(m: Machine, t: Parameters<Machine['mbInit']>[0], p: PipelineObj, produced: number, consumed: number): void {
  for (let s = 0; s < p.stages; s++) {
    m.mbInit(t, stageBarrier(m, p, s, 'consumed'), consumed);
    m.mbInit(t, stageBarrier(m, p, s, 'produced'), produced);
  }
}

const refcount = (p: PipelineObj) => ({ buf: p.state!.buf, off: p.state!.offset + p.stages * STAGE_BYTES });

export const PIPELINE_BUILTINS: Record<string, FreeBuiltin> = {
  ...cases(['make_pipeline'], (k, _name, ns, a) => {
    if (ns !== 'cuda' && ns !== '') return undefined;
    const { c, cx, n } = k;
    if (a.length === 0) return V(() => ({ state: null, stages: 0, head: 0, tail: 0, consumedParity: 1, producedParity: 0, active: true }) satisfies PipelineObj, PIPELINE_TYPE);
    if (a.length < 2 || a.length > 3) fail('cuda::make_pipeline takes (group, &shared_state[, producer_count | role])', n);
    const g = c.expr(cx, a[0]);
    const grp = groupOf(k, g);
    const st = c.rv(c.expr(cx, a[1]));
    const stages = stagesOf(st.t, a[1]);
    const S = asPtr(k, st);
    const third = a[2] ? c.rv(c.expr(cx, a[2])) : undefined;
    const byRole = third?.t.k === 'obj' && third.t.obj === 'pipeline_role';
    const countOrRole = third ? (byRole ? third.ev : asNum(k, third, 'u32')) : undefined;
    const key = {};
    return c.emitBlocking(cx, n, PIPELINE_TYPE, (f) => {
      const { m, t } = f.ts;
      let pr = progress.get(f.ts);
      if (!pr || pr.key !== key) progress.set(f.ts, (pr = { key, step: 0 }));
      const state = S(f) as Pointer | null;
      if (!state) throw new SimError('make_pipeline: null shared state');
      const p: PipelineObj = { state, stages, head: 0, tail: 0, consumedParity: 1, producedParity: 0, active: true };
      const rc = refcount(p);
      const rank = grp.rank(f);
      const size = grp.size(f);
      // CCCL: [rank 0 sets up] sync [producers count themselves] sync [rank 0 initialises] sync.
      for (;;) {
        switch (pr.step) {
          case 0:
            if (rank === 0) {
              if (!byRole) initStages(m, t, p, third ? Number(countOrRole!(f)) : size, third ? size - Number(countOrRole!(f)) : size);
              rc.buf.view.setUint32(rc.off, byRole ? 0 : size, true);
            }
            pr.step = 1;
            break;
          case 1:
            if (!grp.sync(f)) return undefined;
            if (!byRole) {
              progress.delete(f.ts);
              return p;
            }
            pr.step = 2;
            break;
          case 2:
            if (Number(countOrRole!(f)) === 0) rc.buf.view.setUint32(rc.off, rc.buf.view.getUint32(rc.off, true) + 1, true);
            pr.step = 3;
            break;
          case 3:
            if (!grp.sync(f)) return undefined;
            if (rank === 0) {
              const producers = rc.buf.view.getUint32(rc.off, true);
              initStages(m, t, p, producers, size - producers);
              rc.buf.view.setUint32(rc.off, size, true);
            }
            pr.step = 4;
            break;
          default:
            if (!grp.sync(f)) return undefined;
            progress.delete(f.ts);
            return p;
        }
      }
    });
  }),
  // pipeline_consumer_wait_prior<N>(pipe): wait until at most N of the thread's committed stages are pending.
  ...cases(['pipeline_consumer_wait_prior'], (k, _name, _ns, a, targs) => {
    const { c, cx, n } = k;
    if (!targs?.length) fail('pipeline_consumer_wait_prior needs its template argument <N>', n);
    const prior = c.constEval(cx, targs[0]);
    const P = pipeArg(k, a[0]);
    return c.emitBlocking(cx, n, VOID, (f) => {
      const p = P(f);
      if (p.state) unsupported('pipeline_consumer_wait_prior on a block-scope pipeline (it takes a thread-scope one)', n);
      if (!f.ts.m.asyncWaitGroups(f.ts.t, 'cp.async', prior, `pipeline_consumer_wait_prior<${prior}>`)) return undefined;
      p.tail = Math.max(p.tail, p.head - prior);
      return 0;
    });
  }),
  // pipeline_producer_commit(pipe, bar): commit the thread's copies and make `bar` wait for them.
  ...cases(['pipeline_producer_commit'], (k, _name, _ns, a) => {
    const P = pipeArg(k, a[0]);
    const bar = k.c.expr(k.cx, a[1]);
    if (bar.t.k !== 'barrier') fail('pipeline_producer_commit takes a cuda::barrier as its second argument', k.n);
    const B = k.c.addressOf(bar, a[1]);
    return V((f) => {
      P(f);
      const b = barrierAt(f.ts.m, B(f) as Pointer, 'pipeline_producer_commit');
      arriveOnCopies(f, b);
      return 0;
    });
  }),
};

function pipeArg(k: BuiltinCx, node: SyntaxNode | undefined): (f: Frame) => PipelineObj {
  if (!node) fail('a cuda::pipeline argument is missing', k.n);
  const e = args(k, [node])[0];
  if (e.t.k !== 'obj' || e.t.obj !== 'pipeline') fail(`'${node.text}' is not a cuda::pipeline`, node);
  return e.ev as (f: Frame) => PipelineObj;
}

/** cp.async.mbarrier.arrive (not .noinc): one more pending arrival, made when the thread's cp.async copies so far have landed. */
function arriveOnCopies(f: Frame, b: SimBarrier): void {
  const { m, t } = f.ts;
  if (!b.mb.state.initialized) throw new SimError(`cp.async.mbarrier.arrive on ${b.label}, which is not initialised`);
  b.mb.state.pending++;
  const op = m.asyncAfterAll(t, 'cp.async', `cp.async.mbarrier.arrive → ${b.label}`, (mm) => {
    mm.mbArrive(undefined, b, 1);
  });
  m.asyncEffects(op, { signals: [b] });
}

/** The members of cuda::pipeline. */
export const PIPELINE_METHODS: Record<string, MethodBuiltin> = {
  ...cases(['producer_acquire'], (k, _t, self) => {
    const key = {};
    return k.c.emitBlocking(k.cx, k.n, VOID, (f) => {
      const p = self(f) as PipelineObj;
      if (!p.state) return 0;
      return waitParity(f, key, stageBarrier(f.ts.m, p, p.head, 'consumed'), p.consumedParity, 'block');
    });
  }),
  ...cases(['producer_commit'], (_k, _t, self) =>
    V((f) => {
      const p = self(f) as PipelineObj;
      const { m, t } = f.ts;
      if (!p.state) {
        m.asyncCommit(t, 'cp.async');
        p.head++;
        return 0;
      }
      const b = stageBarrier(m, p, p.head, 'produced');
      arriveOnCopies(f, b);
      m.mbArrive(t, b);
      if (++p.head === p.stages) {
        p.head = 0;
        p.consumedParity ^= 1;
      }
      return 0;
    }, VOID),
  ),
  ...cases(['consumer_wait'], (k, _t, self) => {
    const key = {};
    return k.c.emitBlocking(k.cx, k.n, VOID, (f) => {
      const p = self(f) as PipelineObj;
      if (!p.state) {
        if (p.head === p.tail) return 0;
        const prior = Math.min(8, p.head - p.tail - 1);
        if (!f.ts.m.asyncWaitGroups(f.ts.t, 'cp.async', prior, `pipeline consumer_wait (cp.async wait_group ${prior})`)) return undefined;
        p.tail++;
        return 0;
      }
      return waitParity(f, key, stageBarrier(f.ts.m, p, p.tail, 'produced'), p.producedParity, 'block');
    });
  }),
  ...cases(['consumer_release'], (_k, _t, self) =>
    V((f) => {
      const p = self(f) as PipelineObj;
      if (!p.state) return 0;
      f.ts.m.mbArrive(f.ts.t, stageBarrier(f.ts.m, p, p.tail, 'consumed'));
      if (++p.tail === p.stages) {
        p.tail = 0;
        p.producedParity ^= 1;
      }
      return 0;
    }, VOID),
  ),
  // quit(): leaves the pipeline; true for the last thread of the group to leave (it releases the stages).
  ...cases(['quit'], (_k, _t, self) =>
    V((f) => {
      const p = self(f) as PipelineObj;
      if (!p.state) return 1;
      if (!p.active) return 0;
      p.active = false;
      const rc = refcount(p);
      const left = rc.buf.view.getUint32(rc.off, true) - 1;
      rc.buf.view.setUint32(rc.off, left, true);
      return left === 0 ? 1 : 0;
    }, BOOL),
  ),
};

/** A cuda::pipeline object's type. */
export function isPipeline(t: CType): boolean {
  return t.k === 'obj' && t.obj === 'pipeline';
}
