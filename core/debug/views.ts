// The debug runtime's views of a stopped machine as plain values: barriers with their waiting
// threads, async operations in flight, futures, deadlocked threads, shared and global buffers with
// their elements decoded by dtype, and the trace of every launch laid end to end.
import { type DType, load, sizeOf } from '../sim/dtypes';
import type { Machine, SimReport, TraceEvent } from '../sim/machine';
import type { Buffer } from '../sim/memory';
import type { TraceThread } from '../sim/trace';
import type { DebugBuffer, DebugTarget } from './target';
import type { ThreadMap } from './threads';
import type { AsyncOpView, BarrierView, BufferView, DebugStop, DebugTrace, FutureView, SharedBufferView } from './types';

/** Elements a buffer preview shows. */
const PREVIEW = 16;

export function barrierViews(m: Machine, threads: ThreadMap): BarrierView[] {
  return m.barrierStates().map((b) => {
    const byThread = new Map<number, BarrierView['waiting'][number]>();
    for (const w of b.waiting) {
      const t = m.threads[w.thread];
      const id = threads.id(t);
      const v = byThread.get(id);
      if (v) v.lanes++;
      else byThread.set(id, { thread: id, label: threads.label(t), lanes: 1, parity: w.parity, token: w.token });
    }
    const s = b.state;
    return { id: `${b.block}:${b.label}`, label: b.label, block: b.block, initialized: s.initialized, phase: s.phase, parity: s.phase & 1, pending: s.pending, expected: s.expected, tx: s.tx, waiting: [...byThread.values()] };
  });
}

export function asyncOpViews(m: Machine, threads: ThreadMap): AsyncOpView[] {
  return m.asyncInFlight.map((op) => ({ id: op.id, engine: op.engine, label: op.label, issuer: threads.arriver(m.threads[op.issuer]), issuedAt: op.issuedAt, doneAt: op.doneAt, line: op.loc.line }));
}

/** Futures every live thread holds (in flight, landed, or waited). */
export function futureViews(m: Machine, target: DebugTarget, threads: ThreadMap): FutureView[] {
  const out: FutureView[] = [];
  for (const t of m.threads) {
    if (t.status === 'done' || t.status === 'faulted') continue;
    for (const f of target.futures(t)) out.push({ name: f.name, block: t.block, thread: threads.id(t), state: f.state, what: f.what, line: f.line });
  }
  return out;
}

/** A deadlock report's blocked machine threads, one entry per debugger thread and wait. */
export function blockedThreads(m: Machine, report: SimReport | undefined, threads: ThreadMap): DebugStop['blocked'] {
  const byThread = new Map<string, NonNullable<DebugStop['blocked']>[number]>();
  for (const b of report?.blocked ?? []) {
    const t = m.threads[b.thread];
    const id = threads.id(t);
    const key = `${id}\u0000${b.waitsOn}\u0000${b.where}`;
    const v = byThread.get(key);
    if (v) v.lanes++;
    else byThread.set(key, { thread: id, label: threads.label(t), lanes: 1, waitsOn: b.waitsOn, barrier: b.barrier, line: b.loc.line, where: b.where });
  }
  return [...byThread.values()];
}

/** The dtype elements are shown by (`bool` and untyped buffers show bytes). */
function shownType(dtype: DType | undefined): DType | undefined {
  return dtype && dtype !== 'bool' ? dtype : undefined;
}

function bufferView(key: string, name: string, buffer: Buffer, dtype: DType | undefined, shape: number[] | undefined): BufferView {
  const typed = shownType(dtype);
  const count = typed ? Math.floor(buffer.size / sizeOf(typed)) : buffer.size;
  const head = decode(buffer, typed, 0, Math.min(count, PREVIEW));
  return {
    key,
    name,
    bytes: buffer.size,
    dtype,
    shape,
    count,
    type: typed ? `${typed}[${(shape ?? [count]).join(',')}]` : `${buffer.size} bytes`,
    elements: `[${head.join(', ')}${count > head.length ? ', …' : ''}]`,
    buffer,
  };
}

/** A block's shared buffers; `preview` gives the byte count of untyped ones; `barriersIn` the barriers a buffer holds. */
export function sharedBufferViews(block: number, buffers: readonly Buffer[], barriersIn: (buf: Buffer) => BarrierView[] = () => []): SharedBufferView[] {
  return buffers.map((buf, i) => {
    const v = bufferView(`shared:${block}:${i}`, buf.name, buf, buf.dtype, buf.shape);
    const barriers = barriersIn(buf);
    return { ...v, block, preview: shownType(buf.dtype) ? v.elements : `${buf.size} bytes`, ...(barriers.length ? { barriers } : {}) };
  });
}

/** The barriers of `block` by the shared buffer they live in, in address order. */
export function barriersByBuffer(m: Machine, views: readonly BarrierView[], block: number): Map<Buffer, BarrierView[]> {
  const byLabel = new Map(views.filter((v) => v.block === block).map((v) => [v.label, v]));
  const placed = new Map<Buffer, { offset: number; view: BarrierView }[]>();
  for (const b of m.barriers) {
    const view = b.block === block && b.buf ? byLabel.get(b.label) : undefined;
    if (!view || !b.buf) continue;
    let list = placed.get(b.buf);
    if (!list) placed.set(b.buf, (list = []));
    list.push({ offset: b.offset ?? 0, view });
  }
  return new Map([...placed].map(([buf, list]) => [buf, list.sort((a, b) => a.offset - b.offset).map((x) => x.view)]));
}

export function globalBufferViews(buffers: readonly DebugBuffer[]): BufferView[] {
  return buffers.map((b, i) => bufferView(`global:${i}`, b.name, b.buffer, b.dtype, b.shape));
}

/** Elements `[start, start + count)` of a buffer view (at most 1,000 when no count is given). */
export function bufferElements(view: BufferView, start: number, count: number | undefined): { index: number; value: string }[] {
  const total = view.count;
  const from = Math.max(0, Math.min(start, total));
  const n = Math.max(0, Math.min(count ?? Math.min(total - from, 1000), total - from));
  return decode(view.buffer, shownType(view.dtype), from, n).map((value, k) => ({ index: from + k, value }));
}

function decode(buffer: Buffer, dtype: DType | undefined, start: number, count: number): string[] {
  const out: string[] = [];
  const es = dtype ? sizeOf(dtype) : 1;
  for (let i = start; i < start + count; i++) out.push(String(dtype ? load(buffer.view, i * es, dtype) : buffer.bytes[i]));
  return out;
}

/**
 * The trace of every launch so far. Launches after the first each number their threads and async
 * operations from 0 and start at cycle 0: they are renumbered and laid end to end, so one Chrome
 * trace shows the whole program.
 */
export function mergedTrace(machines: readonly Machine[], place: (t: Machine['threads'][number]) => TraceThread): DebugTrace {
  const placed: TraceThread[] = [];
  const events: TraceEvent[] = [];
  let threadBase = 0;
  let opBase = 0;
  let timeBase = 0;
  for (const m of machines) {
    for (const t of m.threads) placed.push(place(t));
    if (machines.length === 1) events.push(...m.trace);
    else {
      let ops = 0;
      for (const e of m.trace) {
        const time = e.time + timeBase;
        if (e.kind === 'phase') events.push({ ...e, time, lastArriver: e.lastArriver === undefined ? undefined : e.lastArriver + threadBase });
        else if (e.kind === 'async-issue' || e.kind === 'async-complete') {
          ops = Math.max(ops, e.op + 1);
          events.push({ ...e, time, thread: e.thread + threadBase, op: e.op + opBase });
        } else if (e.kind === 'report') {
          const r = e.report;
          events.push({ ...e, time, thread: e.thread < 0 ? -1 : e.thread + threadBase, report: { ...r, threads: r.threads.map((t) => t + threadBase) } });
        } else events.push({ ...e, time, thread: e.thread < 0 ? -1 : e.thread + threadBase });
      }
      opBase += ops;
    }
    threadBase += m.threads.length;
    timeBase += m.cycles;
  }
  return { events, thread: (i) => placed[i], launches: machines.length };
}
