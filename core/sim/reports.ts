// The simulator's reports as text and data: deadlock (who waits on what, what each barrier still
// needs: the wait-for picture), barrier misuse, data races, faults (out of bounds, unsupported, internal
// errors, also inside async completions) and the step limit. Plain functions of the machine's state.
import { numberRanges, withCommas } from './format';
import type { MbarrierMisuse } from './mbarrier';
import { type Buffer, OutOfBounds } from './memory';
import { type AsyncOp, type BlockedThread, type RunStatus, type SimBarrier, type SimBlock, SimError, type SimReport, type SimThread, type SourceLoc } from './machine-types';

/** `line 12` in the launched file, `mbar.cuh:12` in a header of its translation unit. */
export function lineOf(loc: SourceLoc): string {
  if (loc.file === undefined) return `line ${loc.line + 1}`;
  const name = loc.file.split(/[\\/]/).pop() ?? loc.file;
  return `${name}:${loc.line + 1}`;
}

/**
 * Where thread `t` is at `loc` (a location in its current statement), with the call sites that led
 * there when it is inside a helper: `line 52 ← bar_wait line 23` (the kernel's line first, then each
 * helper's line with its name).
 */
export function whereOf(t: SimThread | undefined, loc: SourceLoc, known?: readonly SourceLoc[]): string {
  const sites = known ?? t?.callSites?.(loc) ?? [];
  if (!sites.length) return lineOf(loc);
  // The kernel's line as is; each helper's line with the helper's name.
  const named = (l: SourceLoc) => `${l.func ? `${l.func} ` : ''}${lineOf(l)}`;
  return [lineOf(sites[0]), ...sites.slice(1).map(named), named(loc)].join(' ← ');
}

/** A fault of thread `t` (thrown by its executor): named by the thread and its line. */
export function faultReport(t: SimThread, e: unknown): SimReport {
  if (e instanceof OutOfBounds) return { kind: 'oob', message: `${e.message} by ${t.label} at ${whereOf(t, t.loc)}`, loc: t.loc, threads: [t.index] };
  if (e instanceof SimError) {
    const loc = e.loc ?? t.loc;
    const where = whereOf(t, loc, e.callSites);
    const message = e.kind === 'unsupported' ? `not supported by the simulator: ${e.message} at ${where}` : `${e.message} (${t.label}, ${where})`;
    return { kind: e.kind, message, loc, threads: [t.index] };
  }
  const err = e instanceof Error ? e : new Error(String(e));
  return { kind: 'error', message: `internal simulator error at ${lineOf(t.loc)} (${t.label}): ${err.message}`, loc: t.loc, threads: [t.index] };
}

/** A fault inside an async op's completion: named by the op, the thread that issued it and the issuing line. */
export function asyncFaultReport(op: AsyncOp, issuer: SimThread, e: unknown): SimReport {
  const by = `${op.label} issued by ${issuer.label}`;
  if (e instanceof OutOfBounds) return { kind: 'oob', message: `${e.message} by ${by} at ${lineOf(op.loc)}`, loc: op.loc, threads: [issuer.index] };
  if (e instanceof SimError) {
    const loc = e.loc ?? op.loc;
    const message = e.kind === 'unsupported' ? `not supported by the simulator: ${e.message} at ${lineOf(loc)}` : `${op.label}: ${e.message} (issued by ${issuer.label}, ${lineOf(loc)})`;
    return { kind: e.kind, message, loc, threads: [issuer.index] };
  }
  const err = e instanceof Error ? e : new Error(String(e));
  return { kind: 'error', message: `internal simulator error in ${by} at ${lineOf(op.loc)}: ${err.message}`, loc: op.loc, threads: [issuer.index] };
}

/** The step budget ran out. */
export function stepLimitReport(maxSteps: number): SimReport {
  return { kind: 'step-limit', message: `step budget exhausted: ${withCommas(maxSteps)} thread-statements ran without the kernel finishing (raise --max-steps, or look for a spin loop)`, threads: [] };
}

/** A ready thread whose executor keeps running no statement (an executor bug, not the program's). */
export function stallReport(t: SimThread): SimReport {
  return { kind: 'error', message: `internal simulator error: the executor made no progress on ${t.label} at ${lineOf(t.loc)}`, loc: t.loc, threads: [t.index] };
}

/** The run status a report ends a run with. */
export function reportStatus(r: SimReport): RunStatus {
  return r.kind === 'oob' || r.kind === 'unsupported' ? 'error' : r.kind === 'deadlock' || r.kind === 'misuse' || r.kind === 'race' || r.kind === 'step-limit' ? r.kind : 'error';
}

/** Every live thread is blocked and no async work can unblock them: name who waits on what. */
export function deadlockReport(live: readonly SimBlock[], allBlocks: readonly SimBlock[], threads: readonly SimThread[], numBlocks: number): SimReport {
  const blocked: BlockedThread[] = [];
  const bars = new Set<SimBarrier>();
  const syncBlocks = new Map<number, string>();
  for (const blk of live) {
    for (const t of blk.threads) {
      if (t.status !== 'blocked' || !t.wait) continue;
      blocked.push({ thread: t.index, label: t.label, waitsOn: t.wait.describe(), barrier: t.wait.barrier?.label, parity: t.wait.parity, loc: t.loc, where: whereOf(t, t.loc) });
      if (t.wait.barrier) bars.add(t.wait.barrier);
      // Only __syncthreads needs every thread of the block; named barriers and warp syncs count a subset.
      if (t.wait.kind === 'block-sync' && t.wait.describe().startsWith('__syncthreads')) syncBlocks.set(t.block, '__syncthreads');
    }
  }
  const missing = [...bars].map((b) => ({ barrier: b.label, pending: b.mb.state.pending, expected: b.mb.state.expected, tx: b.mb.state.tx, arrivedThisPhase: b.arrivedThisPhase.toArray() }));
  const lines: string[] = [];
  for (const g of groupBlocked(blocked, threads)) lines.push(`  ${g.who} wait${g.count > 1 ? '' : 's'} on ${g.waitsOn} at ${g.where}`);
  // One line per barrier state, barriers of different blocks in the same state merged.
  const barLines = new Map<string, number[]>();
  for (const b of bars) {
    const key = `${b.label}\u0000${describeBarrierState(b, threads)}`;
    let blocks = barLines.get(key);
    if (!blocks) barLines.set(key, (blocks = []));
    blocks.push(b.block);
  }
  for (const [key, blocks] of barLines) {
    const [label, state] = key.split('\u0000');
    lines.push(`  ${label}${numBlocks > 1 ? ` (${plural(blocks, 'block')})` : ''} ${state}`);
  }
  // Threads that exited can never reach the __syncthreads the others wait at.
  for (const [block, what] of syncBlocks) {
    const exited = allBlocks[block].threads.filter((t) => t.status === 'done');
    if (!exited.length) continue;
    lines.push(`  ${exited.length} thread${exited.length === 1 ? ' has' : 's have'} already exited (${whoOf(exited.map((t) => ({ thread: t.index, label: t.label })), threads)}), so ${what} in block ${block} can never complete`);
  }
  const n = blocked.length;
  return {
    kind: 'deadlock',
    message: `deadlock: all ${n} live thread${n === 1 ? ' is' : 's are'} blocked and no asynchronous work is in flight\n${lines.join('\n')}`,
    loc: blocked[0]?.loc,
    threads: blocked.map((b) => b.thread),
    blocked,
    missing,
  };
}

/** "is in phase 3 (parity 1) and needs 1 more arrival of 2 (arrived so far: warp 0 · lane 0)" for the deadlock report. */
function describeBarrierState(b: SimBarrier, threads: readonly SimThread[]): string {
  const s = b.mb.state;
  if (!s.initialized) return 'was never initialised';
  const parts: string[] = [];
  if (s.pending > 0) {
    const arrived = b.arrivedThisPhase.length ? `arrived so far: ${localWho(b.arrivedThisPhase.toArray().map((i) => threads[i]))}` : 'nobody has arrived in this phase';
    parts.push(`needs ${s.pending} more arrival${s.pending === 1 ? '' : 's'} of ${s.expected} (${arrived})`);
  }
  if (s.tx > 0) parts.push(`${s.pending > 0 ? '' : 'has all its arrivals but '}waits for ${s.tx} transaction bytes that no copy in flight will deliver`);
  if (s.tx < 0) parts.push(`has received ${-s.tx} transaction bytes more than were announced`);
  if (!parts.length) parts.push('expects no more arrivals (every participant dropped out)');
  return `is in phase ${s.phase} (parity ${s.phase & 1}) and ${parts.join(' and ')}`;
}

/** `what` (init, arrive, …) on `b` broke the mbarrier rules (`t`: the thread, if a thread did it). */
export function misuseReport(t: SimThread | undefined, b: SimBarrier, misuse: MbarrierMisuse, what: string): SimReport {
  const who = t ? ` by ${t.label}` : '';
  const line = t ? ` at ${whereOf(t, t.loc)}` : '';
  const detail = describeMisuse(misuse);
  return { kind: 'misuse', message: `barrier misuse: ${what} on ${b.label}${who}${line}: ${detail}`, loc: t?.loc, threads: t ? [t.index] : [], misuse, barrier: { label: b.label, block: b.block } };
}

/** A shared-memory access by `thread` (or an async op it issued: `asyncLabel`) unordered with the earlier `other`. */
export function raceReport(threads: readonly SimThread[], thread: number, loc: SourceLoc, buf: Buffer, offset: number, write: boolean, other: { thread: number; loc?: SourceLoc; write: boolean; async?: boolean; proxy?: boolean }, asyncLabel?: string): SimReport {
  const me = asyncLabel ? `${asyncLabel} issued by ${threads[thread].label}` : threads[thread].label;
  const them = other.thread >= 0 ? threads[other.thread].label : 'an asynchronous copy';
  if (other.proxy) {
    const msg =
      `data race on shared '${buf.name}' byte ${offset}: ${write ? 'write' : 'read'} through the async proxy by ${me} at ${lineOf(loc)} ` +
      `does not see the generic-proxy write by ${them}${other.loc ? ` at ${lineOf(other.loc)}` : ''}: no fence.proxy.async is ordered between them (the writer, or a thread ordered after it, must fence before the async operation is issued)`;
    return { kind: 'race', message: msg, loc, threads: [thread, other.thread], other };
  }
  const msg =
    `data race on shared '${buf.name}' byte ${offset}: ${write ? 'write' : 'read'} by ${me} at ${asyncLabel ? lineOf(loc) : whereOf(threads[thread], loc)} ` +
    `is not ordered by any barrier with the ${other.write ? 'write' : 'read'} by ${other.async ? `an async operation issued by ${them}` : them}${other.loc ? ` at ${lineOf(other.loc)}` : ''}`;
  return { kind: 'race', message: msg, loc, threads: other.thread >= 0 ? [thread, other.thread] : [thread], other };
}

/**
 * A use of mbarrier `b` (by `thread` at `loc`, or an async op it issued) not ordered after the
 * barrier's init: the init writes the barrier word, so the use races with it in every schedule.
 */
export function barrierInitRaceReport(threads: readonly SimThread[], b: SimBarrier, what: string, thread: number, loc: SourceLoc, init: { thread: number; loc?: SourceLoc }): SimReport {
  const msg =
    `data race on mbarrier ${b.label}${b.buf ? ` (shared '${b.buf.name}')` : ''}: ${what} by ${threads[thread].label} at ${lineOf(loc)} is not ordered after its init by ${threads[init.thread].label}` +
    `${init.loc ? ` at ${lineOf(init.loc)}` : ''} (the init writes the barrier word; a __syncthreads/bar.sync, or fence.mbarrier_init and a cluster barrier, must come between)`;
  return { kind: 'race', message: msg, loc, threads: [thread, init.thread], other: { thread: init.thread, loc: init.loc, write: true } };
}

/**
 * `what` (an inval, a TMEM dealloc: misuse; a CTA exit before an async write into its memory
 * landed: a race of that write with the memory's release) by `t` tears down what async op `op`
 * still uses.
 */
export function inFlightTeardownReport(threads: readonly SimThread[], t: SimThread, what: string, op: AsyncOp, kind: 'misuse' | 'race' = 'misuse'): SimReport {
  const msg = `${what} by ${t.label} at ${lineOf(t.loc)} while ${op.label} issued by ${threads[op.issuer].label} at ${lineOf(op.loc)} is still in flight`;
  return { kind, message: msg, loc: t.loc, threads: [t.index, op.issuer], other: { thread: op.issuer, loc: op.loc, write: true } };
}

/** An instruction used in a way the PTX ISA leaves undefined, at `t`'s line (`other`: the conflicting earlier use). */
export function instructionMisuseReport(t: SimThread, message: string, other?: { thread: number; loc?: SourceLoc }): SimReport {
  return { kind: 'misuse', message: `${message} (${t.label} at ${lineOf(t.loc)})`, loc: t.loc, threads: other ? [t.index, other.thread] : [t.index], other: other ? { ...other, write: false } : undefined };
}

/** An async copy whose destination covers an initialised mbarrier (one it may signal): the data overwrites the barrier. */
export function copyOverBarrierReport(threads: readonly SimThread[], op: AsyncOp, b: SimBarrier): SimReport {
  const signals = op.signals?.includes(b);
  const msg = `${op.label} issued by ${threads[op.issuer].label} at ${lineOf(op.loc)} writes over mbarrier ${b.label}${signals ? ', which it signals' : ''}: the copy's destination covers the barrier's 8 bytes`;
  return { kind: 'misuse', message: msg, loc: op.loc, threads: [op.issuer] };
}

function describeMisuse(m: MbarrierMisuse): string {
  switch (m.kind) {
    case 'not-initialized':
      return `${m.operation} on a barrier that was never initialised (or was invalidated)`;
    case 'over-arrival':
      return `${m.arrivals} arrival(s) but only ${m.pending} pending in this phase; the excess spills into the next phase`;
    case 'tx-underflow':
      return `${m.bytes} transaction bytes completed in this phase but only ${m.outstanding} were announced (tx-count underflow), so the phase cannot complete`;
    case 'stale-token':
      return `the token is from phase ${m.tokenPhase} but the barrier is in phase ${m.phase}; only the current or the immediately preceding phase is valid`;
    case 'bad-count':
      return `arrival count ${m.count} is outside 1..${(1 << 20) - 1}`;
  }
}

/** "3", "0-3", "0-3, 7" */
function ranges(ns: number[]): string {
  return numberRanges(ns, ', ');
}

function plural(ns: number[], noun: string): string {
  return `${noun}${new Set(ns).size > 1 ? 's' : ''} ${ranges(ns)}`;
}

/**
 * Who a set of threads is, compactly: one thread by its label; otherwise "block 0 · warps 1-3" or
 * "blocks 0-31 · warp 1", with the role when they share one.
 */
function whoOf(members: { thread: number; label: string }[], threads: readonly SimThread[]): string {
  const ts = [...new Set(members.map((m) => m.thread))].map((i) => threads[i]);
  if (ts.length === 1) return ts[0].label;
  const warpsByBlock = new Map<number, number[]>();
  for (const t of ts) {
    let w = warpsByBlock.get(t.block);
    if (!w) warpsByBlock.set(t.block, (w = []));
    w.push(t.warp);
  }
  // Blocks with the same warps share one phrase.
  const byWarps = new Map<string, number[]>();
  for (const [block, warps] of warpsByBlock) {
    const key = ranges(warps);
    let bs = byWarps.get(key);
    if (!bs) byWarps.set(key, (bs = []));
    bs.push(block);
  }
  const roles = new Set(ts.map((t) => t.role));
  const role = roles.size === 1 && ts[0].role ? ` · ${ts[0].role}` : '';
  const parts = [...byWarps].map(([warps, blocks]) => `${plural(blocks, 'block')} · ${warps.includes(',') || warps.includes('-') ? 'warps' : 'warp'} ${warps}`);
  const who = parts.length <= 3 ? parts.join('; ') : `${parts.slice(0, 2).join('; ')} and ${parts.length - 2} more`;
  return `${who}${role}`;
}

/** Threads of one block without the block: "warp 0 · lane 3" or "warps 1-2 (48 threads)". */
function localWho(ts: SimThread[]): string {
  const uniq = [...new Set(ts)];
  if (uniq.length === 1) return uniq[0].label.replace(/^block \d+ · /, '');
  const warps = ranges(uniq.map((t) => t.warp));
  return `${/[-,]/.test(warps) ? 'warps' : 'warp'} ${warps} (${uniq.length} threads)`;
}

function groupBlocked(blocked: BlockedThread[], threads: readonly SimThread[]): { who: string; count: number; waitsOn: string; where: string }[] {
  // "block 0 · warps 1-3 (96 threads)" rather than 96 lines.
  const groups = new Map<string, BlockedThread[]>();
  for (const b of blocked) {
    const key = `${b.waitsOn}@${b.loc.file ?? ''}:${b.where}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(b);
  }
  return [...groups.values()].map((g) => ({
    who: g.length === 1 ? g[0].label : `${whoOf(g, threads)} (${g.length} threads)`,
    count: g.length,
    waitsOn: g[0].waitsOn,
    // A wait inside a header's helper is located there (`mbar.cuh:31`), not at that line of the kernel's file.
    where: g[0].where,
  }));
}
