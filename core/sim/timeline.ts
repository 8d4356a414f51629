// The barrier timeline's model: the machine's trace (machine-types.ts `TraceEvent`s) regrouped as
// rows over simulated time — one per barrier slot (its phases with their parity, every arrival,
// expect_tx and complete_tx, every flip) and one per warp (the stretches its lanes were blocked, on
// which barrier) — plus deadlock, race and misuse markers. Plain values: the debugger sends it to the
// editor's timeline panel, `phaseflip sim --timeline` embeds it in an HTML file, and the same
// renderer (timeline-view.ts) draws both. Lines are zero-based like the rest of the engine.
import type { ReportKind, SourceLoc, TraceEvent } from './machine-types';
import type { TraceThread } from './trace';
import { overlappingRuns, waitName } from './trace';

/** Where something happened: zero-based line, and the header when it is not the launched file. */
export interface TimelineSource {
  line: number;
  file?: string;
}

/** One phase of a barrier: [start, end) in cycles; `open` when it had not completed at the end. */
export interface TimelinePhase {
  start: number;
  end: number;
  phase: number;
  parity: number;
  open: boolean;
}

export interface TimelineArrival {
  time: number;
  /** Short label drawn at the tick (`w1·l0`, `async`). */
  who: string;
  /** Full label for the tooltip (`block 0 · warp 1 · lane 0 · producer`). */
  by: string;
  count: number;
  /** Bytes the arrival announced (arrive.expect_tx). */
  tx: number;
  /** The phase the arrival counted towards. */
  phase: number;
  at?: TimelineSource;
}

/** expect_tx on its own, or complete_tx by an asynchronous copy. */
export interface TimelineTx {
  time: number;
  kind: 'expect-tx' | 'complete-tx';
  bytes: number;
  by: string;
  at?: TimelineSource;
}

export interface TimelineFlip {
  time: number;
  completed: number;
  lastArriver?: string;
  at?: TimelineSource;
}

export interface TimelineBarrierRow {
  /** `${block}:${label}`, the debugger's barrier id. */
  key: string;
  label: string;
  block: number;
  /** The arrival count of its (last) init. */
  count?: number;
  phases: TimelinePhase[];
  arrivals: TimelineArrival[];
  tx: TimelineTx[];
  flips: TimelineFlip[];
}

/** A stretch during which lanes of a warp were blocked (their waits merged). */
export interface TimelineWait {
  start: number;
  end: number;
  /** The barrier row (`TimelineBarrierRow.key`) the first of the waits is on, when it is an mbarrier. */
  barrier?: string;
  /** What the waits were on (`full[1] (parity 0)`, `__syncthreads`). */
  what: string;
  lanes: number;
  at?: TimelineSource;
  /** Still blocked when the trace ends (a deadlock, or the stop the debugger is at). */
  unfinished: boolean;
}

export interface TimelineWarpRow {
  /** `${block}:${warp}` */
  key: string;
  label: string;
  block: number;
  warp: number;
  waits: TimelineWait[];
}

export interface TimelineMarker {
  kind: ReportKind;
  time: number;
  /** The report's first line. */
  message: string;
  at?: TimelineSource;
  /** Rows the report concerns (barrier and warp keys). */
  rows: string[];
}

export interface TimelineModel {
  title?: string;
  /** The last cycle the trace reaches. */
  end: number;
  /** Trace events the model was built from. */
  events: number;
  barriers: TimelineBarrierRow[];
  warps: TimelineWarpRow[];
  markers: TimelineMarker[];
  /** Where the debugger stands (cycles), when it does; events after it are its recorded future. */
  cursor?: number;
  /** The text of every source line the model names, by `sourceKey` (the tooltips show it). */
  lines?: Record<string, string>;
}

/** The key of a source line in `TimelineModel.lines`. */
export function sourceKey(at: TimelineSource): string {
  return `${at.file ?? ''}:${at.line}`;
}

export interface TimelineOptions {
  /** Where machine thread `index` lives (the trace's placement). */
  thread?: (index: number) => TraceThread | undefined;
  title?: string;
  cursor?: number;
  /** The text of a source line (the launched file's when `file` is absent). */
  sourceLine?: (at: TimelineSource) => string | undefined;
}

/** Builds the model. Every list is sorted by time, so a renderer can find a window by bisection. */
export function buildTimeline(events: readonly TraceEvent[], options: TimelineOptions = {}): TimelineModel {
  const place = (i: number): TraceThread | undefined => (i >= 0 ? options.thread?.(i) : undefined);
  let multiBlock = false;
  let end = 0;
  for (const e of events) {
    end = Math.max(end, e.time);
    if ('block' in e && e.block !== undefined && e.block > 0) multiBlock = true;
  }
  if (options.cursor !== undefined) end = Math.max(end, options.cursor);
  const who = (i: number): { short: string; full: string } => {
    if (i < 0) return { short: 'async', full: 'an asynchronous engine' };
    const p = place(i);
    if (!p) return { short: `t${i}`, full: `thread ${i}` };
    const block = multiBlock ? `b${p.block}·` : '';
    const short = p.lane !== undefined ? `${block}w${p.warp}·l${p.lane}` : `${block}t${p.warp}`;
    const full = `block ${p.block} · ${p.lane !== undefined ? `warp ${p.warp} · lane ${p.lane}` : `thread ${p.warp}`}${p.role ? ` · ${p.role}` : ''}`;
    return { short, full };
  };
  const at = (loc?: SourceLoc): TimelineSource | undefined => (loc ? (loc.file ? { line: loc.line, file: loc.file } : { line: loc.line }) : undefined);

  const barriers = new Map<string, TimelineBarrierRow & { phaseStart: number; phaseNow: number }>();
  const barrier = (label: string, block: number, time: number) => {
    const key = `${block}:${label}`;
    let b = barriers.get(key);
    if (!b) barriers.set(key, (b = { key, label, block, phases: [], arrivals: [], tx: [], flips: [], phaseStart: time, phaseNow: 0 }));
    return b;
  };
  const warps = new Map<string, TimelineWarpRow & { spans: Span[] }>();
  const warpOf = (i: number) => {
    const p = place(i);
    const block = p?.block ?? 0;
    const warp = p ? p.warp : i;
    const key = `${block}:${warp}`;
    let w = warps.get(key);
    if (!w) {
      const unit = p?.lane !== undefined ? 'warp' : 'thread';
      warps.set(key, (w = { key, label: `${multiBlock ? `block ${block} · ` : ''}${unit} ${warp}${p?.role ? ` · ${p.role}` : ''}`, block, warp, waits: [], spans: [] }));
    }
    return w;
  };
  const open = new Map<number, Extract<TraceEvent, { kind: 'wait-start' | 'wait-end' }>>();
  const markers: TimelineMarker[] = [];

  for (const e of events) {
    switch (e.kind) {
      case 'init': {
        const b = barrier(e.barrier, e.block, e.time);
        // A re-init (after inval) starts again at phase 0: the phase before it ends here.
        if (b.count !== undefined) closePhase(b, e.time, false);
        b.count = e.count;
        b.phaseStart = e.time;
        b.phaseNow = 0;
        break;
      }
      case 'arrive': {
        const b = barrier(e.barrier, e.block, e.time);
        const w = who(e.thread);
        b.arrivals.push({ time: e.time, who: w.short, by: w.full, count: e.count, tx: e.tx, phase: e.phase, at: at(e.loc) });
        break;
      }
      case 'expect-tx':
      case 'complete-tx': {
        const b = barrier(e.barrier, e.block, e.time);
        b.tx.push({ time: e.time, kind: e.kind, bytes: e.bytes, by: e.kind === 'complete-tx' && e.thread >= 0 ? `a copy issued by ${who(e.thread).full}` : who(e.thread).full, at: at(e.loc) });
        break;
      }
      case 'phase': {
        const b = barrier(e.barrier, e.block, e.time);
        b.phaseNow = e.completed;
        closePhase(b, e.time, false);
        b.flips.push({ time: e.time, completed: e.completed, lastArriver: e.lastArriver !== undefined ? who(e.lastArriver).full : undefined, at: at(e.loc) });
        b.phaseStart = e.time;
        b.phaseNow = e.completed + 1;
        break;
      }
      case 'wait-start':
        open.set(e.thread, e);
        break;
      case 'wait-end': {
        const s = open.get(e.thread);
        if (!s) break;
        open.delete(e.thread);
        warpOf(s.thread).spans.push({ start: s.time, end: Math.max(s.time, e.time), s, unfinished: false, lane: place(s.thread)?.lane ?? s.thread });
        break;
      }
      case 'report': {
        const r = e.report;
        const rows = new Set<string>();
        if (r.barrier) rows.add(`${r.barrier.block}:${r.barrier.label}`);
        for (const t of r.threads) rows.add(warpOf(t).key);
        for (const b of r.blocked ?? []) {
          const w = warpOf(b.thread);
          rows.add(w.key);
          if (b.barrier) rows.add(`${w.block}:${b.barrier}`);
        }
        markers.push({ kind: r.kind, time: e.time, message: r.message.split('\n')[0], at: at(r.loc), rows: [...rows] });
        break;
      }
    }
  }
  for (const s of open.values()) warpOf(s.thread).spans.push({ start: s.time, end: Math.max(s.time, end), s, unfinished: true, lane: place(s.thread)?.lane ?? s.thread });
  for (const b of barriers.values()) closePhase(b, end, true);

  const barrierRows = [...barriers.values()]
    .sort((a, b) => a.block - b.block || compareLabels(a.label, b.label))
    .map(({ phaseStart: _s, phaseNow: _n, ...row }) => ({ ...row, arrivals: byTime(row.arrivals), tx: byTime(row.tx), flips: byTime(row.flips) }));
  const warpRows = [...warps.values()]
    .sort((a, b) => a.block - b.block || a.warp - b.warp)
    .map(({ spans, ...row }) => ({ ...row, waits: mergeSpans(spans, (label, block) => (barriers.has(`${block}:${label}`) ? `${block}:${label}` : undefined)) }));
  const lines: Record<string, string> = {};
  const source = options.sourceLine;
  const note = (a?: TimelineSource) => {
    if (!a || !source) return;
    const key = sourceKey(a);
    if (key in lines) return;
    const text = source(a);
    if (text !== undefined) lines[key] = text.trim();
  };
  if (source) {
    for (const b of barrierRows) for (const list of [b.arrivals, b.tx, b.flips]) for (const x of list) note(x.at);
    for (const w of warpRows) for (const x of w.waits) note(x.at);
    for (const m of markers) note(m.at);
  }
  return {
    ...(options.title ? { title: options.title } : {}),
    end,
    events: events.length,
    barriers: barrierRows,
    warps: warpRows,
    markers: markers.sort((a, b) => a.time - b.time),
    ...(options.cursor !== undefined ? { cursor: options.cursor } : {}),
    ...(source ? { lines } : {}),
  };
}

interface Span {
  start: number;
  end: number;
  s: Extract<TraceEvent, { kind: 'wait-start' | 'wait-end' }>;
  unfinished: boolean;
  lane: number;
}

function closePhase(b: TimelineBarrierRow & { phaseStart: number; phaseNow: number }, time: number, atEnd: boolean): void {
  if (b.count === undefined && !b.flips.length && !b.arrivals.length && atEnd) return;
  const start = b.phaseStart;
  b.phases.push({ start, end: Math.max(start, time), phase: b.phaseNow, parity: b.phaseNow & 1, open: atEnd });
}

function byTime<T extends { time: number }>(list: T[]): T[] {
  return list.sort((a, b) => a.time - b.time);
}

/** `full[2]` before `full[10]`, then by name. */
function compareLabels(a: string, b: string): number {
  const x = /^(.*?)(?:\[(\d+)\])?$/.exec(a)!;
  const y = /^(.*?)(?:\[(\d+)\])?$/.exec(b)!;
  return x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : Number(x[2] ?? -1) - Number(y[2] ?? -1);
}

/**
 * The lanes of a warp block at slightly different times: a warp row shows the union, one stretch
 * for each run during which any of its lanes waited, named after the first wait. Waits that ended
 * at once (nothing to wait for) are left out.
 */
function mergeSpans(spans: Span[], barrierKey: (label: string, block: number) => string | undefined): TimelineWait[] {
  const out: TimelineWait[] = [];
  for (const { group, end: groupEnd } of overlappingRuns(spans)) {
    const first = group[0];
    const unfinished = group.some((g) => g.unfinished);
    if (groupEnd > first.start || unfinished) {
      const s = first.s;
      out.push({
        start: first.start,
        end: groupEnd,
        ...(s.barrier !== undefined ? { barrier: barrierKey(s.barrier, s.block ?? 0) } : {}),
        what: waitName(s.what),
        lanes: new Set(group.map((g) => g.lane)).size,
        ...(s.loc ? { at: s.loc.file ? { line: s.loc.line, file: s.loc.file } : { line: s.loc.line } } : {}),
        unfinished,
      });
    }
  }
  return out;
}
