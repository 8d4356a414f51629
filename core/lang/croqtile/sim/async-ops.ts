// The Croqtile interpreter's asynchronous engines: `dma`/`tma` copies (futures, era-A `tma.copy.async<event>`
// binding the event slot as the copy's mbarrier), MMA operations with their timing per era (`mma.commit`,
// `mma.wait<N>`, `.async` futures), and swap/rotate of futures. Statements live in ./interp.ts.
import type { CoExpr, CoStmt } from '../ast';
import { isFloat, sizeOf } from '../../../sim/dtypes';
import type { AsyncOp } from '../../../sim/machine';
import { type Ctx, Flow, newBuffer, viewOf } from './context';
import { acceptedIn } from '../sync-catalogue';
import { ExpressionEvaluator } from './expressions';
import {
  contiguousStrides,
  copyView,
  describeValue,
  dtypeOf,
  EventRef,
  forEachElement,
  Future,
  int,
  readAll,
  readElement,
  runsOf,
  Sc,
  scalarOf,
  type Value,
  View,
  writeAll,
  writeElement,
} from './values';

const STORAGE_WORDS = new Set(['shared', 'local', 'global']);

export abstract class AsyncOps extends ExpressionEvaluator {
  // ------------------------------------------------------------------ data movement

  protected dma(e: Extract<CoExpr, { kind: 'dma' }>, ctx: Ctx, target?: string): Value {
    const what = `${e.engine}.${e.op}${e.async ? '.async' : ''}`;
    if (e.op === 'any') return new Future(`${target ?? 'placeholder'} (${what})`, undefined, undefined, 0, true);
    if (e.op !== 'copy' && e.op !== 'load') throw this.err(what, e, ctx, 'unsupported');
    if (e.after.length) throw this.err(`${what} … after (DMA ordering edges)`, e, ctx, 'unsupported');
    for (const m of e.modifiers) if (!/^(swiz|swizzle|evict_first|evict_last|zfill)\b/.test(m)) throw this.err(`${what}.${m}`, e, ctx, 'unsupported');
    let src = this.ev(e.src!, ctx);
    if (src instanceof Future) src = this.futureData(src, e.src!, ctx);
    if (!(src instanceof View)) throw this.err(`${what} source ${this.text(e.src!)} is ${describeValue(src)}`, e, ctx);
    const dstExpr = e.dst!;
    const alloc = dstExpr.kind === 'id' && STORAGE_WORDS.has(dstExpr.name) && !ctx.env.lookup(dstExpr.name) ? dstExpr.name : undefined;
    const label = `${target ?? what} (${what} at line ${this.line(e.span) + 1})`;
    let dst: View | undefined;
    if (!alloc) {
      const d = this.ev(dstExpr, ctx);
      const dv = d instanceof Future ? this.futureData(d, dstExpr, ctx) : d;
      if (!(dv instanceof View)) throw this.err(`${what} destination ${this.text(dstExpr)} is ${describeValue(d)}`, e, ctx);
      if (dv.size !== src.size) throw this.err(`${what} copies ${src.size} elements [${src.shape.join(', ')}] into ${dv.size} [${dv.shape.join(', ')}]`, e, ctx);
      dst = dv;
    }
    const srcView = src;
    const makeDst = (block?: number): View => {
      const space = alloc === 'shared' ? 'shared' : alloc === 'global' ? 'global' : 'local';
      return viewOf(newBuffer(`${target ?? 'copy'}.data`, space, srcView.dtype, srcView.shape.slice(), space === 'shared' ? block : undefined), srcView.dtype, srcView.shape.slice(), srcView.declared);
    };
    const bytes = srcView.size * sizeOf(srcView.dtype);
    const d = ctx.dev;
    if (!d) {
      const out = dst ?? makeDst();
      if (e.async) {
        // Host code: the copy lands by the time it is waited (co-mock runs it on std::async).
        const f = new Future(label, undefined, out, bytes);
        f.run = () => copyView(srcView, out);
        return f;
      }
      copyView(srcView, out);
      return new Future(label, undefined, out, bytes);
    }
    if (!e.async) {
      const out = dst ?? makeDst(d.t.block);
      this.touchView(ctx, srcView, false);
      this.touchView(ctx, out, true);
      copyView(srcView, out);
      return new Future(label, undefined, out, bytes);
    }
    // Asynchronous: one copy per block for threads that issue the same copy (a cooperative DMA).
    const key = `dma:${e.span.start}:${this.occurrence(ctx, e.span.start)}:${srcView.buf.id}:${srcView.off}:${dst ? `${dst.buf.id}:${dst.off}` : alloc}`;
    const shared = d.blockState.get(key) as Future | undefined;
    if (shared) return new Future(label, shared.op, shared.data, bytes, false, undefined, shared.bound);
    const out = dst ?? makeDst(d.t.block);
    const f = new Future(label, undefined, out, bytes);
    const m = d.m;
    const op = m.asyncIssue(d.t, e.engine, label, m.lat.bulkCopy, (mm, ) => {
      // 'generic': Croqtile has no proxy fences of its own; its compiler places the ones its lowering needs.
      for (const [o, n] of runsOf(srcView)) if (srcView.buf.space === 'shared') mm.accessAsync(op, srcView.buf, o, n, false, 'generic');
      for (const [o, n] of runsOf(out)) if (out.buf.space === 'shared') mm.accessAsync(op, out.buf, o, n, true, 'generic');
      copyView(srcView, out);
      for (const b of f.bound) mm.mbCompleteTx(b, bytes, op);
    });
    (f as { op: AsyncOp | undefined }).op = op;
    d.blockState.set(key, f);
    if (e.event) {
      // Era A: `tma.copy.async<full[s]>` makes the event slot this copy's mbarrier.
      const ev = this.ev(e.event, ctx);
      if (!(ev instanceof EventRef) || ev.slot === undefined) throw this.err(`the event of ${what}<…> must be one event slot, e.g. full[stage]`, e, ctx);
      const b = ev.ev.slots[ev.slot];
      m.mbExpectTx(d.t, b, bytes);
      f.bound.push(b);
    }
    return f;
  }

  // ------------------------------------------------------------------ MMA

  protected fragment(v: Value, node: CoExpr, ctx: Ctx, what: string): View {
    if (v instanceof View) return v;
    if (v instanceof Future && v.data) return v.data;
    throw this.err(`${what}: ${this.text(node)} is ${describeValue(v)}, not a tensor or fragment`, node, ctx);
  }

  protected fill(v: View, x: number): void {
    writeAll(v, new Float64Array(v.size).fill(x));
  }

  /** `mma.fill/load/store` and MMA execution without timing (host code and the sync parts of device code). */
  protected mmaExpr(e: Extract<CoExpr, { kind: 'mma' }>, ctx: Ctx, target?: string): Value {
    switch (e.op) {
      case 'fill': {
        const typeMod = e.modifiers.find((m) => dtypeOf(m));
        if (e.args.length >= 2) {
          const acc = this.fragment(this.ev(e.args[0], ctx), e.args[0], ctx, 'mma.fill');
          this.fill(acc, scalarOf(this.ev(e.args[1], ctx), 'mma.fill value').v);
          return acc;
        }
        if (e.args.length !== 1) throw this.err('mma.fill needs a value', e, ctx);
        const x = scalarOf(this.ev(e.args[0], ctx), 'mma.fill value');
        const dt = typeMod ? dtypeOf(typeMod)!.dtype : isFloat(x.t) ? (x.t === 'f64' ? 'f32' : x.t) : 'f32';
        // No shape yet: the accumulator takes the MMA's [M, N] at its first use (as co-mock does).
        const v = viewOf(newBuffer(target ?? 'acc', 'local', dt, [1, 1]), dt, [1, 1]);
        this.fill(v, x.v);
        return v;
      }
      case 'load': {
        const src = this.fragment(this.ev(e.args[0], ctx), e.args[0], ctx, 'mma.load');
        // On the device a shared operand stays in shared memory (a WGMMA descriptor): the MMA reads it
        // when it executes, so a stage released before its MMAs retire is visibly overwritten.
        if (ctx.dev && src.buf.space === 'shared') return src;
        this.touchView(ctx, src, false);
        const v = viewOf(newBuffer(target ?? 'frag', 'local', src.dtype, src.shape.slice()), src.dtype, src.shape.slice(), src.declared);
        copyView(src, v);
        return v;
      }
      case 'store': {
        if (e.args.length !== 2) throw this.err('mma.store needs an accumulator and a destination', e, ctx);
        const acc = this.fragment(this.ev(e.args[0], ctx), e.args[0], ctx, 'mma.store');
        const dst = this.fragment(this.ev(e.args[1], ctx), e.args[1], ctx, 'mma.store');
        this.touchView(ctx, dst, true);
        if (e.modifiers.includes('transp')) {
          if (acc.shape.length !== 2) throw this.err('mma.store.transp of a non-2-D accumulator', e, ctx);
          const [M, N] = acc.shape;
          const data = readAll(acc);
          const t = new View(dst.buf, dst.dtype, dst.off, [N, M], dst.strides.length === 2 ? dst.strides : contiguousStrides([N, M]));
          if (dst.size !== acc.size) throw this.err(`mma.store of [${acc.shape.join(', ')}] into [${dst.shape.join(', ')}]`, e, ctx);
          forEachElement(t, (off, i) => writeElement(t, off, data[(i % M) * N + Math.floor(i / M)]));
          return int(0);
        }
        if (dst.size !== acc.size) throw this.err(`mma.store of a [${acc.shape.join(', ')}] accumulator into [${dst.shape.join(', ')}]`, e, ctx);
        copyView(acc, dst);
        return int(0);
      }
      case 'row.row':
      case 'row.col':
      case 'col.row':
      case 'col.col': {
        const ops = this.mmaOperands(e, ctx);
        if (e.async && ctx.dev) throw this.err(`mma.${e.op}.async`, e, ctx, 'unsupported'); // handled as a statement
        mmaCompute(e.op, ops.acc, ops.a, ops.b);
        return e.async ? new Future(`${target ?? 'mma'} (mma.${e.op}.async)`, undefined, undefined, 0) : int(0);
      }
      case 'scale': {
        if (e.args.length < 2) throw this.err('mma.scale needs an accumulator and scales', e, ctx);
        const acc = this.fragment(this.ev(e.args[0], ctx), e.args[0], ctx, 'mma.scale');
        const factors = e.args.slice(1).map((a) => this.ev(a, ctx));
        if (!factors.every((f) => f instanceof Sc)) throw this.err('mma.scale with tensor scale factors', e, ctx, 'unsupported');
        const k = factors.reduce((p, f) => p * (f as Sc).v, 1);
        forEachElement(acc, (off) => writeElement(acc, off, readElement(acc, off) * k));
        return int(0);
      }
      case 'commit':
      case 'wait':
        return int(0); // host code: nothing is in flight
    }
    throw this.err(`mma.${e.op}`, e, ctx, 'unsupported');
  }

  /** Operands of an MMA execution; an accumulator without a shape yet takes [M, N] (and is rebound). */
  mmaOperands(e: Extract<CoExpr, { kind: 'mma' }>, ctx: Ctx): { acc: View; a: View; b: View } {
    if (e.args.length < 3) throw this.err(`mma.${e.op} needs an accumulator and two operands`, e, ctx);
    let acc = this.fragment(this.ev(e.args[0], ctx), e.args[0], ctx, `mma.${e.op}`);
    const a = this.fragment(this.ev(e.args[1], ctx), e.args[1], ctx, `mma.${e.op}`);
    const b = this.fragment(this.ev(e.args[2], ctx), e.args[2], ctx, `mma.${e.op}`);
    for (const x of [a, b]) if (x.declared) throw this.err(`MMA on ${x.declared} operands`, e, ctx, 'unsupported');
    if (a.shape.length !== 2 || b.shape.length !== 2) throw this.err(`mma.${e.op} operands must be 2-D (got [${a.shape.join(', ')}] and [${b.shape.join(', ')}])`, e, ctx);
    const { M, N, K, K2 } = mmaDims(e.op, a, b);
    if (K !== K2) throw this.err(`mma.${e.op}: the operands disagree on K ([${a.shape.join(', ')}] and [${b.shape.join(', ')}])`, e, ctx);
    if (acc.size === 1 && (M > 1 || N > 1)) {
      const init = readElement(acc, acc.off);
      const grown = viewOf(newBuffer(acc.buf.name, 'local', acc.dtype, [M, N]), acc.dtype, [M, N]);
      this.fill(grown, init);
      if (e.args[0].kind === 'id') this.store(e.args[0], grown, ctx);
      acc = grown;
    }
    if (acc.size !== M * N) throw this.err(`mma.${e.op}: accumulator [${acc.shape.join(', ')}] for an [${M}, ${N}] product`, e, ctx);
    return { acc, a, b };
  }

  /** Statements whose MMA may take time on the device (wait for it, or issue it asynchronously). */
  protected *execMmaStmt(s: Extract<CoStmt, { kind: 'assign' | 'decl' | 'expr' }>, ctx: Ctx): Generator<void, Flow, void> {
    const d = ctx.dev;
    const e = (s.kind === 'assign' ? s.value : s.kind === 'decl' ? s.init : s.expr) as Extract<CoExpr, { kind: 'mma' }>;
    if (!d) return this.execLight(s, ctx);
    const era = d.launch.era;
    const { m, t } = d;
    const exec = e.op === 'row.row' || e.op === 'row.col' || e.op === 'col.row' || e.op === 'col.col';
    if (exec) {
      if (s.kind === 'decl') return this.execLight(s, ctx);
      const ops = this.mmaOperands(e, ctx);
      const label = `mma.${e.op} at line ${this.line(e.span) + 1}`;
      const op = m.asyncIssue(t, 'mma', label, m.lat.mma, (mm) => {
        for (const x of [ops.a, ops.b]) if (x.buf.space === 'shared') for (const [o, n] of runsOf(x)) mm.accessAsync(op, x.buf, o, n, false, 'generic');
        mmaCompute(e.op, ops.acc, ops.a, ops.b);
      });
      if (e.async) {
        if (s.kind !== 'assign') throw this.err(`mma.${e.op}.async needs a future name (q = mma.${e.op}.async …)`, s, ctx);
        const f = new Future(`${this.text(s.target)} (${label})`, op, undefined, 0);
        f.line = this.line(e.span);
        this.store(s.target, f, ctx);
        return Flow.Normal;
      }
      if (era === 'C') {
        // Current era: the compiler commits and waits every plain MMA.
        m.asyncCommit(t, 'mma');
        while (!m.asyncWait(t, op, label)) yield;
        if (m.yieldNow) yield;
      }
      return Flow.Normal;
    }
    if (e.op === 'commit') {
      if (this.o.currentEraSyntax && !acceptedIn('mma.commit', 'C')) {
        throw this.err('mma.commit in a kernel written with current-era events (= ready, .at(order), trigger … after): the current compiler removed mma.commit and rejects the file, so its tutorial-era meaning does not apply', s, ctx);
      }
      m.asyncCommit(t, 'mma');
      while (!m.asyncWaitGroups(t, 'mma', 0, 'mma.commit (WGMMA batch)')) yield;
      if (m.yieldNow) yield;
      return Flow.Normal;
    }
    if (e.op === 'wait') {
      const n = Number(e.typeArgs?.[0] ?? 0);
      m.asyncCommit(t, 'mma');
      while (!m.asyncWaitGroups(t, 'mma', n, `mma.wait<${n}>`)) yield;
      if (m.yieldNow) yield;
      return Flow.Normal;
    }
    if (e.op === 'store' && era !== 'C') {
      // Tutorial era: mma.store finalises the MMAs still in flight.
      while (!m.asyncWaitAll(t, 'mma', 'mma.store (WGMMA finalize)')) yield;
      if (m.yieldNow) yield;
    }
    return this.execLight(s, ctx);
  }

  // ------------------------------------------------------------------ swap / rotate

  swapStmt(e: Extract<CoExpr, { kind: 'call' }>, ctx: Ctx): void {
    const names = e.args.map((a) => {
      if (a.kind !== 'id') throw this.err(`${e.callee} takes variable names`, a, ctx);
      return a.name;
    });
    if (e.callee === 'swap' && names.length !== 2) throw this.err("Builtin function 'swap' accept exact two parameters.", e, ctx);
    if (names.length < 2) throw this.err("Builtin function 'rotate' accept two or more parameters.", e, ctx);
    const vals = names.map((n) => this.lookup(n, e, ctx));
    const put = (n: string, v: Value) => (ctx.env.owner(n) ?? ctx.env).vars.set(n, v);
    // rotate(a, b, c): a <- c, b <- a, c <- b (co-mock); swap is the two-name case.
    put(names[0], vals[vals.length - 1]);
    for (let i = 1; i < names.length; i++) put(names[i], vals[i - 1]);
  }

  /** Runs one statement that cannot block, implemented by the statement layer. */
  protected abstract execLight(s: CoStmt, ctx: Ctx): Flow;
}

export function mmaDims(op: string, a: View, b: View): { M: number; N: number; K: number; K2: number } {
  switch (op) {
    case 'row.row':
      return { M: a.shape[0], K: a.shape[1], N: b.shape[0], K2: b.shape[1] };
    case 'row.col':
      return { M: a.shape[0], K: a.shape[1], N: b.shape[1], K2: b.shape[0] };
    case 'col.row':
      return { M: a.shape[1], K: a.shape[0], N: b.shape[0], K2: b.shape[1] };
    default:
      return { M: a.shape[1], K: a.shape[0], N: b.shape[1], K2: b.shape[0] };
  }
}

/**
 * acc[m, n] += Σ_k A[m, k]·B[k, n] with the operand layouts of `op` (row.row: B is [N, K]; row.col: B is
 * [K, N]; col.*: A is [K, M]). Products are summed exactly in f64 per MMA and rounded once to the
 * accumulator's type, like co-mock's reference GEMM.
 */
export function mmaCompute(op: string, acc: View, a: View, b: View): void {
  const { M, N, K } = mmaDims(op, a, b);
  const A = readAll(a);
  const B = readAll(b);
  const C = readAll(acc);
  const aRow = op.startsWith('row');
  const bRow = op.endsWith('row'); // B stored [N, K]
  const at = new Float64Array(M * K);
  for (let m = 0; m < M; m++) for (let k = 0; k < K; k++) at[m * K + k] = aRow ? A[m * K + k] : A[k * M + m];
  const bt = new Float64Array(N * K);
  for (let n = 0; n < N; n++) for (let k = 0; k < K; k++) bt[n * K + k] = bRow ? B[n * K + k] : B[k * N + n];
  for (let m = 0; m < M; m++) {
    const ao = m * K;
    let n = 0;
    // Four outputs per pass share the loads of A's row; each sum still runs over k in order.
    for (; n + 4 <= N; n += 4) {
      const b0 = n * K;
      const b1 = b0 + K;
      const b2 = b1 + K;
      const b3 = b2 + K;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let k = 0; k < K; k++) {
        const x = at[ao + k];
        s0 += x * bt[b0 + k];
        s1 += x * bt[b1 + k];
        s2 += x * bt[b2 + k];
        s3 += x * bt[b3 + k];
      }
      const c = m * N + n;
      C[c] += s0;
      C[c + 1] += s1;
      C[c + 2] += s2;
      C[c + 3] += s3;
    }
    for (; n < N; n++) {
      const bo = n * K;
      let s = 0;
      for (let k = 0; k < K; k++) s += at[ao + k] * bt[bo + k];
      C[m * N + n] += s;
    }
  }
  writeAll(acc, C);
}
