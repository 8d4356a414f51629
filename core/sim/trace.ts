// Turns the simulator's trace (core/sim/machine-types.ts `TraceEvent`s) into Chrome's Trace Event Format,
// the JSON that ui.perfetto.dev and chrome://tracing open (`phaseflip sim --trace FILE`). One process
// per block, one track per warp (its waits as slices, its arrives as instants), one track per barrier
// (its phase flips), and the asynchronous copies/MMAs as async slices from issue to completion.
//
// Timestamps are simulated cycles written as microseconds (1 µs in the viewer = 1 cycle): whole
// numbers, so no viewer rounds them, and the note in `otherData` says so.
import type { SourceLoc, TraceEvent } from './machine-types';
import { numberRanges } from './format';

/** Where a simulator thread lives. */
export interface TraceThread {
  block: number;
  warp: number;
  lane?: number;
  role?: string;
}

export interface ChromeTraceOptions {
  /** Block and warp of machine thread `index`; without it (or when it returns undefined) each thread gets its own track. */
  thread?: (index: number) => TraceThread | undefined;
  /** Shown in `otherData` (file and kernel). */
  title?: string;
}

/** One Trace Event Format record (the subset written here). */
export interface ChromeTraceEvent {
  name: string;
  /** M metadata, X complete, i instant, b/e async begin/end. */
  ph: 'M' | 'X' | 'i' | 'b' | 'e';
  cat?: string;
  ts?: number;
  dur?: number;
  pid: number;
  tid?: number;
  /** Instant scope: t thread, g global. */
  s?: 't' | 'g';
  id?: string;
  args?: Record<string, unknown>;
}

export interface ChromeTrace {
  traceEvents: ChromeTraceEvent[];
  otherData: Record<string, string>;
}

export const TIME_NOTE = 'ts and dur are simulated cycles written as microseconds: read 1 µs as 1 cycle';

/** Block b is process b + 1: trace viewers reserve pid 0 for the idle process. */
export function pidOfBlock(block: number): number {
  return block + 1;
}

/** Threads whose block is not known (the executor reported no geometry) share this process. */
const UNPLACED_PID = 0x7ffffff0;

interface Track {
  pid: number;
  tid: number;
  name: string;
  /** Warps first, then barriers; in order of first appearance within each. */
  sort: number;
}

type WaitEvent = Extract<TraceEvent, { kind: 'wait-start' | 'wait-end' }>;
type AsyncEvent = Extract<TraceEvent, { kind: 'async-issue' | 'async-complete' }>;

interface WaitSpan {
  start: number;
  end: number;
  what: string;
  thread: number;
  lane?: number;
  loc?: SourceLoc;
  unfinished: boolean;
}

export function toChromeTrace(events: readonly TraceEvent[], options: ChromeTraceOptions = {}): ChromeTrace {
  const out: ChromeTraceEvent[] = [];
  const tracks = new Map<string, Track>();
  const processes = new Map<number, string>();
  // Trace viewers key threads by tid across the whole trace, so tids are unique, not per block.
  let nextTid = 1;
  const track = (key: string, pid: number, name: string, sort: number): Track => {
    let t = tracks.get(key);
    if (!t) tracks.set(key, (t = { pid, tid: nextTid++, name, sort }));
    return t;
  };
  const info = (thread: number): TraceThread | undefined => (thread >= 0 ? options.thread?.(thread) : undefined);
  const threadTrack = (thread: number): Track => {
    const where = info(thread);
    if (!where) {
      processes.set(UNPLACED_PID, 'threads');
      return track(`t:${thread}`, UNPLACED_PID, `thread ${thread}`, thread);
    }
    const pid = pidOfBlock(where.block);
    processes.set(pid, `block ${where.block}`);
    const t = track(`w:${where.block}:${where.warp}`, pid, `warp ${where.warp}`, where.warp);
    // Name the warp after the first role any of its lanes reports (producer, consumer …).
    if (where.role && t.name === `warp ${where.warp}`) t.name = `warp ${where.warp} · ${where.role}`;
    return t;
  };
  const barrierTrack = (block: number, label: string): Track => {
    const pid = pidOfBlock(block);
    processes.set(pid, `block ${block}`);
    return track(`b:${block}:${label}`, pid, `barrier ${label}`, 1000 + tracks.size);
  };
  const line = (loc?: SourceLoc) => (loc ? { line: loc.line + 1 } : {});

  let end = 0;
  for (const e of events) end = Math.max(end, e.time);

  const openWaits = new Map<number, WaitEvent>();
  const spansByTrack = new Map<Track, WaitSpan[]>();
  const addSpan = (start: WaitEvent, endTime: number, unfinished: boolean) => {
    const t = threadTrack(start.thread);
    let list = spansByTrack.get(t);
    if (!list) spansByTrack.set(t, (list = []));
    list.push({ start: start.time, end: Math.max(start.time, endTime), what: start.what, thread: start.thread, lane: info(start.thread)?.lane, loc: start.loc, unfinished });
  };
  const openOps = new Map<number, AsyncEvent>();
  const asyncName = (e: { engine: string; label: string }) => e.label || e.engine;

  for (const e of events) {
    switch (e.kind) {
      case 'wait-start':
        openWaits.set(e.thread, e);
        break;
      case 'wait-end': {
        const start = openWaits.get(e.thread);
        if (!start) break; // an end without a start (the trace began mid-wait): nothing to draw
        openWaits.delete(e.thread);
        addSpan(start, e.time, false);
        break;
      }
      case 'arrive': {
        const args = { thread: e.thread, count: e.count, tx: e.tx, phase: e.phase, ...line(e.loc) };
        if (e.thread < 0) {
          // Arrivals on behalf of no thread (asynchronous arrive-on): a global marker.
          out.push({ name: `arrive ${e.barrier}`, ph: 'i', s: 'g', ts: e.time, pid: pidOfBlock(0), args });
        } else {
          const t = threadTrack(e.thread);
          out.push({ name: `arrive ${e.barrier}`, ph: 'i', s: 't', ts: e.time, pid: t.pid, tid: t.tid, args: { ...args, lane: info(e.thread)?.lane } });
        }
        break;
      }
      case 'phase': {
        const t = barrierTrack(e.block, e.barrier);
        out.push({
          name: `${e.barrier} phase ${e.completed} complete`,
          ph: 'i',
          s: 't',
          ts: e.time,
          pid: t.pid,
          tid: t.tid,
          args: { barrier: e.barrier, completedPhase: e.completed, parityNow: (e.completed + 1) & 1, lastArriver: e.lastArriver, ...line(e.loc) },
        });
        break;
      }
      case 'async-issue': {
        openOps.set(e.op, e);
        const t = threadTrack(e.thread);
        out.push({ name: asyncName(e), ph: 'b', cat: e.engine, id: `op${e.op}`, ts: e.time, pid: t.pid, args: { thread: e.thread, engine: e.engine, ...line(e.loc) } });
        break;
      }
      case 'async-complete': {
        const issue = openOps.get(e.op);
        if (!issue) break;
        openOps.delete(e.op);
        const t = threadTrack(issue.thread);
        out.push({ name: asyncName(issue), ph: 'e', cat: issue.engine, id: `op${e.op}`, ts: Math.max(e.time, issue.time), pid: t.pid });
        break;
      }
    }
  }
  // Waits and copies still open when the run stopped (a deadlock, a step limit) last to the end.
  for (const start of openWaits.values()) addSpan(start, end, true);
  for (const issue of openOps.values()) {
    const t = threadTrack(issue.thread);
    out.push({ name: asyncName(issue), ph: 'e', cat: issue.engine, id: `op${issue.op}`, ts: end, pid: t.pid, args: { unfinished: true } });
  }
  for (const [t, spans] of spansByTrack) out.push(...mergeWaits(t, spans));

  out.sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0));
  const meta: ChromeTraceEvent[] = [];
  for (const [pid, name] of [...processes].sort((a, b) => a[0] - b[0])) {
    meta.push({ name: 'process_name', ph: 'M', pid, args: { name } });
    meta.push({ name: 'process_sort_index', ph: 'M', pid, args: { sort_index: pid } });
  }
  for (const t of tracks.values()) {
    meta.push({ name: 'thread_name', ph: 'M', pid: t.pid, tid: t.tid, args: { name: t.name } });
    meta.push({ name: 'thread_sort_index', ph: 'M', pid: t.pid, tid: t.tid, args: { sort_index: t.sort } });
  }
  const otherData: Record<string, string> = { generator: 'phaseflip sim', timeUnit: TIME_NOTE };
  if (options.title) otherData.title = options.title;
  return { traceEvents: [...meta, ...out], otherData };
}

/**
 * The lanes of a warp wait at slightly different times, and slices on one track must nest, so a
 * warp track shows the union: one slice for each stretch during which any of its lanes waited,
 * named after the first wait and listing every lane and every distinct wait in its args.
 */
function mergeWaits(t: Track, spans: WaitSpan[]): ChromeTraceEvent[] {
  return overlappingRuns(spans).map(({ group, end: groupEnd }) => {
    const first = group[0];
    const whats = [...new Set(group.map((s) => waitName(s.what)))];
    const lanes = group.map((s) => s.lane).filter((l): l is number => l !== undefined);
    const unfinished = group.some((s) => s.unfinished);
    return {
      name: `wait ${waitName(first.what)}${unfinished ? ' (never woke)' : ''}`,
      ph: 'X',
      cat: 'wait',
      ts: first.start,
      dur: groupEnd - first.start,
      pid: t.pid,
      tid: t.tid,
      args: {
        threads: numberRanges(group.map((s) => s.thread)),
        ...(lanes.length ? { lanes: numberRanges(lanes) } : {}),
        waits: whats.length > 8 ? [...whats.slice(0, 8), `… ${whats.length - 8} more`] : whats,
        ...(first.loc ? { line: first.loc.line + 1 } : {}),
        ...(unfinished ? { unfinished: true } : {}),
      },
    };
  });
}

/**
 * Spans sorted by start (longest first) and cut into runs that overlap: each run with the latest end
 * of its spans. Zero-length spans (woken at once) join only a run that strictly contains them.
 */
export function overlappingRuns<T extends { start: number; end: number }>(spans: T[]): { group: T[]; end: number }[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const runs: { group: T[]; end: number }[] = [];
  for (const s of spans) {
    const last = runs[runs.length - 1];
    if (last && s.start < last.end) {
      last.group.push(s);
      last.end = Math.max(last.end, s.end);
    } else runs.push({ group: [s], end: s.end });
  }
  return runs;
}

/**
 * A wait's description without the arrival count it had when it began ("__syncthreads (3 of 64
 * arrived)" → "__syncthreads"), so the lanes of one rendezvous read as one wait.
 */
export function waitName(what: string): string {
  return what
    // Each match starts at a comma or at the first blank or digit of its run (or right after the previous match):
    // `/,?\s*\d+ of \d+ (arrived|lanes)/g` and `/\s*\(\s*\)/g` rescanned a run from each of its characters.
    .replace(/,\s*\d+ of \d+ (?:arrived|lanes)|(?<![\s,])\s+\d+ of \d+ (?:arrived|lanes)|(?<![\s,\d])\d+ of \d+ (?:arrived|lanes)/g, '')
    .replace(/(?<!\s)\s*\(\s*\)|\(\s*\)/g, '')
    .trim();
}

