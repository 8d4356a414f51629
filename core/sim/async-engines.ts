// The machine's asynchronous engines: timed copies and MMAs (issued by a thread, completing at issue
// time + latency, in completion order), commit groups and their waits per engine, "after all prior
// ops" arrivals (cp.async.mbarrier.arrive, tcgen05.commit), futures, and the delivery of completions.
import type { AsyncGroups, AsyncOp, SimBlock, SimReport, SimThread, TraceEvent, Wait } from './machine-types';
import type { RaceDetector } from './races';
import { asyncFaultReport, inFlightTeardownReport } from './reports';

/** What the engines need from the machine that owns them. */
export interface AsyncHost {
  readonly races?: RaceDetector;
  readonly tracing: boolean;
  readonly trace: TraceEvent[];
  readonly threads: readonly SimThread[];
  /** Blocks launched and not finished. */
  readonly live: readonly SimBlock[];
  /** Simulated time of what is happening now: a completion happens at its op's time. */
  eventTime: number;
  /** The furthest simulated time reached. */
  maxTime: number;
  blockOn(t: SimThread, wait: Wait): boolean;
  notify(on: object): void;
  raise(r: SimReport): void;
  /** A block whose threads are done finishes once its last async op completed. */
  checkBlockDone(block: number): void;
}

/** The in-flight asynchronous work of one machine. `M` is the machine, which completions receive. */
export class AsyncEngines<M extends AsyncHost> {
  /** The op whose completion is running now (arrivals inside it carry its ordering). */
  completingOp?: AsyncOp;
  /** In flight, by completion time (then issue order). */
  readonly queue: AsyncOp[] = [];
  private nextOpId = 0;
  /** Per live block: async ops in flight (a block finishes only when they have completed). */
  private readonly inFlight = new Map<number, number>();
  private readonly races?: RaceDetector;
  /** Blocks whose exit before an async write into them landed was reported (once each). */
  private readonly exitReported = new Set<number>();

  constructor(private readonly m: M) {
    this.races = m.races;
  }

  /** Ops of `block` still in flight. */
  inFlightOf(block: number): number {
    return this.inFlight.get(block) ?? 0;
  }

  /** Forgets a finished block's count. */
  releaseBlock(block: number): void {
    this.inFlight.delete(block);
  }

  /**
   * Issues timed asynchronous work by `t` on `engine`; `complete` runs when simulated time reaches
   * issue time + latency (the copy happens or the MMA computes then). The op joins `t`'s open
   * commit group on that engine.
   */
  issue(t: SimThread, engine: string, label: string, latency: number, complete: (m: M) => void): AsyncOp {
    const lat = Number.isFinite(latency) && latency > 0 ? latency : 0;
    const op: AsyncOp = { id: this.nextOpId++, engine, label, issuer: t.index, issuedAt: t.time, doneAt: t.time + lat, done: false, loc: t.loc, complete };
    this.races?.asyncIssue(op.id, t.index);
    this.groups(t, engine).open.push(op);
    this.inFlight.set(t.block, (this.inFlight.get(t.block) ?? 0) + 1);
    // Keep the queue sorted by completion time (then issue order) for deterministic delivery.
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1].doneAt > op.doneAt) i--;
    this.queue.splice(i, 0, op);
    if (this.m.tracing) this.m.trace.push({ kind: 'async-issue', time: t.time, thread: t.index, op: op.id, engine, label, loc: t.loc });
    return op;
  }

  private groups(t: SimThread, engine: string): AsyncGroups {
    let g = t.asyncGroups.get(engine);
    if (!g) t.asyncGroups.set(engine, (g = { open: [], committed: [] }));
    return g;
  }

  /**
   * Adds an op another thread issued to `t`'s open group on its engine: one warpgroup-wide wgmma is one
   * op, and every thread of the warpgroup commits and waits for it.
   */
  join(t: SimThread, op: AsyncOp): void {
    this.groups(t, op.engine).open.push(op);
    (op.joined ??= []).push(t.index);
  }

  /** commit_group: closes the thread's open group on `engine`. */
  commit(t: SimThread, engine: string): void {
    const g = this.groups(t, engine);
    g.committed.push(g.open);
    g.open = [];
  }

  /**
   * wait_group N: blocks until every committed group of `t` on `engine` except the `n` most recent
   * has completed (groups may complete out of order; only the older ones are waited for).
   */
  waitGroups(t: SimThread, engine: string, n: number, what = `${engine} wait_group ${n}`): boolean {
    const g = this.groups(t, engine);
    const older = () => g.committed.slice(0, Math.max(0, g.committed.length - Math.max(0, n)));
    const ok = this.m.blockOn(t, { kind: 'async-group', on: g, ready: () => older().every((grp) => grp.every((op) => op.done)), describe: () => what });
    if (ok) {
      const done = older();
      for (const grp of done) for (const op of grp) this.races?.asyncAcquire(op.id, t.index);
      g.committed.splice(0, done.length);
    }
    return ok;
  }

  /** Blocks until every op of `t` on `engine` (open or committed) completed (cp.async.wait_all, wgmma wait 0). */
  waitAll(t: SimThread, engine: string, what = `${engine} wait_all`): boolean {
    const g = this.groups(t, engine);
    const all = () => [...g.open, ...g.committed.flat()];
    const ok = this.m.blockOn(t, { kind: 'async-group', on: g, ready: () => all().every((op) => op.done), describe: () => what });
    if (ok) {
      for (const op of all()) this.races?.asyncAcquire(op.id, t.index);
      g.open = [];
      g.committed = [];
    }
    return ok;
  }

  /**
   * Runs `fn` once every op `t` issued so far on `engine` has completed (cp.async.mbarrier.arrive,
   * tcgen05.commit). An `mbArrive(undefined, …)` inside `fn` carries the ordering of all those ops.
   */
  afterAll(t: SimThread, engine: string, label: string, fn: (m: M, op: AsyncOp) => void): AsyncOp {
    const g = this.groups(t, engine);
    const prior = [...g.open, ...g.committed.flat()].filter((op) => !op.done);
    let doneAt = t.time;
    for (const p of prior) doneAt = Math.max(doneAt, p.doneAt);
    const op = this.issue(t, `${engine}:after`, label, doneAt - t.time, (m) => fn(m, op));
    // Not part of the engine's commit groups.
    this.groups(t, `${engine}:after`).open.pop();
    this.races?.asyncJoin(
      op.id,
      [...g.open, ...g.committed.flat()].map((p) => p.id),
    );
    return op;
  }

  /** Waits for one op (Croqtile futures). */
  wait(t: SimThread, op: AsyncOp, what: string): boolean {
    const ok = this.m.blockOn(t, { kind: 'future', on: op, ready: () => op.done, describe: () => what });
    if (ok) this.races?.asyncAcquire(op.id, t.index);
    return ok;
  }

  /** Completes every op due by `time` (before a thread at that time runs). */
  deliverUpTo(time: number): void {
    while (this.queue.length && this.queue[0].doneAt <= time) this.completeOp(this.queue.shift()!);
  }

  /** Nothing can run: jump time to the next completion. */
  deliverNext(): boolean {
    const op = this.queue.shift();
    if (!op) return false;
    // Waiting threads catch up to the completion time.
    for (const b of this.m.live) for (const t of b.threads) if (t.status === 'blocked' && t.time < op.doneAt) t.time = op.doneAt;
    this.completeOp(op);
    return true;
  }

  /**
   * `op` wrote its block's shared or tensor memory after every thread of the block had exited: on
   * the GPU that memory is the next CTA's by then: a race of the write with the memory's release,
   * reported (with race detection on) at the exit (the last thread's line), after whatever the write
   * itself raised (a race on the data is the earlier root cause).
   */
  private checkExited(op: AsyncOp, issuer: SimThread): void {
    const blk = this.m.live.find((b) => b.index === issuer.block);
    if (!blk || this.exitReported.has(blk.index) || !blk.threads.every((t) => t.status === 'done')) return;
    this.exitReported.add(blk.index);
    let last = blk.threads[0];
    for (const t of blk.threads) if (t.time >= last.time) last = t;
    this.m.raise(inFlightTeardownReport(this.m.threads, last, `the exit of block ${blk.index} (its last thread)`, op, 'race'));
  }

  private completeOp(op: AsyncOp): void {
    op.done = true;
    this.m.eventTime = op.doneAt;
    if (op.doneAt > this.m.maxTime) this.m.maxTime = op.doneAt;
    const issuer = this.m.threads[op.issuer];
    this.m.notify(op);
    const g = issuer.asyncGroups.get(op.engine);
    if (g) this.m.notify(g);
    for (const j of op.joined ?? []) {
      const jg = this.m.threads[j].asyncGroups.get(op.engine);
      if (jg) this.m.notify(jg);
    }
    this.completingOp = op;
    try {
      op.complete(this.m);
    } catch (e) {
      this.m.raise(asyncFaultReport(op, issuer, e));
    } finally {
      this.completingOp = undefined;
    }
    if (this.races && (op.writesShared || op.writesTmem)) this.checkExited(op, issuer);
    if (this.m.tracing) this.m.trace.push({ kind: 'async-complete', time: op.doneAt, thread: op.issuer, op: op.id, engine: op.engine, label: op.label, loc: op.loc });
    const left = (this.inFlight.get(issuer.block) ?? 1) - 1;
    if (left > 0) this.inFlight.set(issuer.block, left);
    else this.inFlight.delete(issuer.block);
    if (issuer.status === 'done') this.m.checkBlockDone(issuer.block);
  }
}
