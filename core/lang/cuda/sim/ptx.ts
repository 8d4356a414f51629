// Inline PTX (`asm volatile("..." : outputs : inputs)`) for the CUDA executor: the asm text is
// parsed once into small instruction closures over a register file whose first entries are the
// bound operands (%0..%n, %[name]); the block runs as one statement and, when an instruction in it
// blocks (try_wait, bar.sync, wait_group), resumes at that instruction when the thread wakes.
// Covers the mbarrier family, bulk and non-bulk cp.async, named barriers and fences; tcgen05 is in
// ptx-tcgen05.ts, wgmma, ldmatrix and stmatrix in ptx-wgmma.ts, the cluster forms in ptx-cluster.ts.
// Anything else stops with "not supported by the simulator: PTX instruction …".
import type { SyntaxNode } from '../parser';
import { CUDA_CATALOGUE, type PtxEntry, ptxKey } from '../catalogue';
import { asmStringText, type PtxLine, readPtxLines } from '../ptx';
import { SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { barrierAt, bulkCopy, markProducer, threadArrive, waitParity, waitToken, type WaitMode } from './barrier-runtime';
import type { CompilerContext as Compiler, Ex, FnCx, LV } from './context';
import { tensorPtxOp } from './ptx-tensor';
import type { PInstr, PtxInstrSite, Regs } from './ptx-site';
import { asmRow, type RowPInstr } from './asm-rows';
import { tcgen05PtxOp } from './ptx-tcgen05';
import { bulkReducePtxOp } from './ptx-bulk-reduce';
import { electSync, fenceProxyAsync, griddepcontrol, nanosleep, setmaxnreg, timerRegister } from './ptx-misc';
import { asmRegisterUse, ldmatrix, type PtxSite, stmatrix, wgmmaCommit, wgmmaFence, wgmmaMmaAsync, wgmmaWait } from './ptx-wgmma';
import { clusterPtx, clusterRegister } from './ptx-cluster';
import { fail, named, unsupported, requiredField } from './syntax';
import { type BlockCtx, type Frame, fromGenericAddress, loader, storer, toSharedPointer } from './runtime';
import { convFn, type CType, isNum, sizeOfType, VOID } from './types';

/** Result of one PTX instruction: next index, or BLOCK. */
const BLOCK = -1;

interface Operand {
  constraint: string;
  ex: Ex;
  out: boolean;
  inout: boolean;
  name?: string;
  /** The C variable behind the operand, inputs included (wgmma tracks the registers an MMA owns). */
  lv?: LV;
  text: string;
}

export function compileAsm(c: Compiler, cx: FnCx, n: SyntaxNode): Ex {
  const code = n.childForFieldName('assembly_code');
  if (!code) fail('asm without a string', n);
  const text = asmStringText(code);
  const ops: Operand[] = [];
  const outs = n.childForFieldName('output_operands');
  const ins = n.childForFieldName('input_operands');
  for (const o of outs ? named(outs).filter((x) => x.type === 'gnu_asm_output_operand') : []) {
    const cons = requiredField(o, 'constraint').text.replace(/"/g, '');
    const ex = c.expr(cx, requiredField(o, 'value'));
    if (!ex.lv) fail(`asm output '${o.text}' is not assignable`, o);
    ops.push({ constraint: cons, ex, out: true, inout: cons.startsWith('+'), name: o.childForFieldName('symbol')?.text, lv: ex.lv, text: requiredField(o, 'value').text });
  }
  for (const o of ins ? named(ins).filter((x) => x.type === 'gnu_asm_input_operand') : []) {
    const cons = requiredField(o, 'constraint').text.replace(/"/g, '');
    const value = c.expr(cx, requiredField(o, 'value'));
    const ex = c.rv(value);
    ops.push({ constraint: cons, ex, out: false, inout: false, name: o.childForFieldName('symbol')?.text, lv: value.lv, text: requiredField(o, 'value').text });
  }
  // Inputs evaluated into temps first: a blocked asm re-runs without re-evaluating side effects. Their
  // loads are the asm's register transfers (ThreadCtx.asmTag), which wgmma's register ownership tells apart.
  const registerUse = asmRegisterUse(readPtxLines(text).map((l) => l.mnemonic));
  const transfer = (e: Ex): Ex => (registerUse === undefined ? e : { ...e, ev: (f) => withAsmTag(f, registerUse, e.ev), vec: undefined });
  const inputs = ops.map((o) => (o.out && !o.inout ? undefined : c.toTemp(cx, n, transfer(o.out ? { ...o.ex, lv: undefined } : o.ex))));
  const prog = parsePtx(text, ops, n, cx);
  const nregs = prog.nregs;
  const outStores = ops.map((o) => (o.out ? { st: c.storeFn(o.ex.lv!, o.ex.t), t: o.ex.t } : undefined));
  const key = {};
  const instrs = prog.instrs;
  const count = instrs.length;
  // A converged warp runs a block whose one effect is an mbarrier arrival or wait as one row (asm-rows.ts);
  // not where the block's registers are an MMA's, or an output is stored to memory (which may fault).
  const row =
    registerUse === undefined && ops.every((o) => !o.out || o.ex.lv?.k === 'slot')
      ? asmRow({ instrs, mnemonics: readPtxLines(text).map((l) => l.mnemonic), nregs, key, inputs, outStores: ops.map((o, i) => (o.out ? { st: outStores[i]!.st, toValue: (v: unknown) => toType(v, o.ex.t) } : undefined)) })
      : undefined;
  return c.emitBlocking(cx, n, VOID, (f) => withAsmTag(f, registerUse, runAsm), row);

  function runAsm(f: Frame): number | undefined {
    const ts = f.ts;
    let regs: Regs;
    let pc = 0;
    if (ts.asmResume && ts.asmResume.key === key) {
      regs = ts.asmResume.regs;
      pc = ts.asmResume.pc;
      ts.asmResume = undefined;
    } else {
      regs = new Array(nregs);
      for (let i = 0; i < inputs.length; i++) {
        const inp = inputs[i];
        if (inp) regs[i] = inp.ev(f);
      }
    }
    let guard = 0;
    while (pc < count) {
      const next = instrs[pc](f, regs, pc);
      if (next === BLOCK) {
        ts.asmResume = { key, pc, regs };
        return undefined;
      }
      pc = next;
      if (++guard > 1_000_000) throw new SimError('inline asm loops without end');
    }
    for (let i = 0; i < outStores.length; i++) {
      const o = outStores[i];
      if (o) o.st(f, toType(regs[i], o.t));
    }
    return 0;
  }
}

function withAsmTag<T>(f: Frame, tag: string | undefined, run: (f: Frame) => T): T {
  const ts = f.ts;
  const prev = ts.asmTag;
  ts.asmTag = tag;
  try {
    return run(f);
  } finally {
    ts.asmTag = prev;
  }
}

function toType(v: unknown, t: CType): unknown {
  if (isNum(t) && typeof v === 'number') {
    const c = convFn(t.dt === 'f32' || t.dt === 'f64' ? t.dt : 'u64', t.dt);
    return c ? c(v) : v;
  }
  return v;
}

function parsePtx(text: string, ops: Operand[], n: SyntaxNode, cx: FnCx): { instrs: PInstr[]; nregs: number } {
  const lines = readPtxLines(text);
  const regIdx = new Map<string, number>();
  let nregs = ops.length;
  ops.forEach((o, i) => {
    if (o.name) regIdx.set(`%[${o.name}]`, i);
  });
  const reg = (name: string): number => {
    const m = /^%(\d+)$/.exec(name);
    if (m) {
      const i = Number(m[1]);
      if (i >= ops.length) fail(`asm operand %${i} does not exist (${ops.length} operand(s))`, n);
      return i;
    }
    const have = regIdx.get(name);
    if (have !== undefined) return have;
    regIdx.set(name, nregs);
    return nregs++;
  };
  const labels = new Map<string, number>();
  lines.forEach((l, i) => {
    for (const label of l.labels) labels.set(label, i);
  });
  // Probes retried by a backward `@!p bra` block until done instead of spinning.
  const retried = new Set<number>();
  lines.forEach((l, i) => {
    if (!l.mnemonic.startsWith('bra') || !l.pred) return;
    const target = labels.get(l.operands[0]);
    if (target === undefined || target > i) return;
    for (let j = target; j < i; j++) if (/^mbarrier\.(try|test)_wait/.test(lines[j].mnemonic) && lines[j].operands[0] === l.pred.reg) retried.add(j);
  });
  const instrs: PInstr[] = lines.map((l, i) => compileLine(l, i, reg, labels, retried.has(i), ops, n, cx));
  return { instrs, nregs };
}

/** Operand accessor: register, immediate, or special register. */
function valueOf(s: string, reg: (n: string) => number): (r: Regs, f: Frame) => any {
  // In an asm statement with operands, `%%` is a literal `%` (`%%clock64`, `%%cluster_ctarank`).
  const t = s.trim().replace(/^%%/, '%');
  if (/^-?\d+$/.test(t) || /^0[xX][0-9a-fA-F]+$/.test(t)) {
    const v = Number(t);
    return () => v;
  }
  if (/^0[fF][0-9a-fA-F]{8}$/.test(t)) {
    const dv = new DataView(new ArrayBuffer(4));
    dv.setUint32(0, parseInt(t.slice(2), 16));
    const v = dv.getFloat32(0);
    return () => v;
  }
  const timer = timerRegister(t);
  if (timer) return timer;
  switch (t) {
    case '%laneid':
      return (_r, f) => f.ts.t.lane;
    case '%warpid':
      return (_r, f) => f.ts.t.warp;
    case '%tid.x':
      return (_r, f) => f.ts.t.threadIdx[0];
    case '%tid.y':
      return (_r, f) => f.ts.t.threadIdx[1];
    case '%tid.z':
      return (_r, f) => f.ts.t.threadIdx[2];
    case '%ctaid.x':
      return (_r, f) => f.ts.t.blockIdx[0];
    case '%clock':
    case '%clock64':
      return (_r, f) => f.ts.t.time;
    case '%lanemask_lt':
      return (_r, f) => ((1 << f.ts.t.lane) - 1) >>> 0;
  }
  const cluster = clusterRegister(t);
  if (cluster) return cluster;
  const i = reg(t);
  return (r) => r[i];
}

/** `[x]`, `[x+8]`: base accessor and byte offset. */
function addrOf(s: string, reg: (n: string) => number, n: SyntaxNode): { base: (r: Regs, f: Frame) => any; off: number } {
  const m = /^\[\s*([^\]+\s]+)\s*(?:\+\s*(-?\w+))?\s*\]$/.exec(s.trim());
  if (!m) fail(`PTX address operand '${s}'`, n);
  return { base: valueOf(m[1], reg), off: m[2] ? Number(m[2]) : 0 };
}

function sharedPtr(blk: BlockCtx, v: unknown, off: number): Pointer {
  const p = toSharedPointer(blk, v);
  return off ? { buf: p.buf, offset: p.offset + off } : p;
}

function globalPtr(f: Frame, v: unknown, off: number): Pointer {
  let p: Pointer | null;
  if (v && typeof v === 'object') p = v as Pointer;
  else if (typeof v === 'number') p = fromGenericAddress(f.ts.ex, v);
  else p = null;
  if (!p) throw new SimError('PTX: null global address');
  return off ? { buf: p.buf, offset: p.offset + off } : p;
}

function compileLine(l: PtxLine, idx: number, reg: (n: string) => number, labels: Map<string, number>, retried: boolean, ops: Operand[], n: SyntaxNode, cx: FnCx): PInstr {
  const next = idx + 1;
  const body = compileOp(l, reg, labels, retried, ops, n, cx);
  if (!l.pred) return body;
  const p = reg(l.pred.reg);
  const neg = l.pred.neg;
  return (f, r, pc) => (!!r[p] !== neg ? body(f, r, pc) : next);
}

function compileOp(l: PtxLine, reg: (n: string) => number, labels: Map<string, number>, retried: boolean, ops: Operand[], n: SyntaxNode, cx: FnCx): PInstr {
  const next = (_f: Frame, _r: Regs, pc: number) => pc + 1;
  const mn = l.mnemonic;
  const o = l.operands;
  if (!mn) return next;
  const parts = mn.split('.');
  const head = parts[0];
  const has = (s: string) => parts.includes(s) || mn.includes(s);
  const V = (i: number) => valueOf(o[i], reg);
  const W = (i: number) => {
    const t = o[i].trim();
    if (t === '_') return -1;
    return reg(t);
  };
  const unsup = (): never => unsupported(`PTX instruction '${mn}'`, n);
  const site: Site = { mn, parts, o, reg, retried, n, cx, value: (s) => valueOf(s, reg), operands: ops };
  // Cluster forms (mapa, .shared::cluster operands, multicast, barrier.cluster) live in ptx-cluster.ts.
  const cluster = clusterPtx(instrSite(site));
  if (cluster) return cluster;
  // An instruction the catalogue knows goes to its handler; the catalogue says why the others are refused.
  const key = ptxKey(mn);
  if (key !== undefined) {
    const handler = SIM_PTX_HANDLERS[key];
    if (handler) return handler(site);
    const note = (CUDA_CATALOGUE[key] as PtxEntry).simNote;
    unsupported(`PTX instruction '${mn}'${note ? ` (${note})` : ''}`, n);
  }

  switch (head) {
    case 'bra': {
      const target = labels.get(o[0]);
      if (target === undefined) fail(`PTX branch to unknown label '${o[0]}'`, n);
      return () => target;
    }
    case 'ret':
    case 'exit':
      return unsup();
    case 'fence':
    case 'membar':
    case 'griddepcontrol':
    case 'setmaxnreg':
    case 'prefetch':
    case 'prefetchu':
      return next;
    case 'mov':
    case 'cvta': {
      const d = W(0);
      const a = V(1);
      if (head === 'cvta') {
        if (!mn.includes('to.shared')) return unsup();
        return (f, r, pc) => {
          const v = a(r, f);
          r[d] = v && typeof v === 'object' ? v : v;
          return pc + 1;
        };
      }
      return (f, r, pc) => ((r[d] = a(r, f)), pc + 1);
    }
    case 'setp': {
      const cmp = parts[1];
      const d = W(0);
      const a = V(1);
      const b = V(2);
      const fn: (x: number, y: number) => boolean =
        cmp === 'eq' ? (x, y) => x === y : cmp === 'ne' ? (x, y) => x !== y : cmp === 'lt' || cmp === 'lo' ? (x, y) => x < y : cmp === 'le' || cmp === 'ls' ? (x, y) => x <= y : cmp === 'gt' || cmp === 'hi' ? (x, y) => x > y : (x, y) => x >= y;
      return (f, r, pc) => ((r[d] = fn(Number(a(r, f)), Number(b(r, f))) ? 1 : 0), pc + 1);
    }
    case 'selp': {
      const d = W(0);
      const a = V(1);
      const b = V(2);
      const p = V(3);
      return (f, r, pc) => ((r[d] = p(r, f) ? a(r, f) : b(r, f)), pc + 1);
    }
    case 'add':
    case 'sub':
    case 'mul':
    case 'and':
    case 'or':
    case 'xor':
    case 'shl':
    case 'shr': {
      const d = W(0);
      const a = V(1);
      const b = V(2);
      const ty = parts[parts.length - 1];
      const signed = ty.startsWith('s');
      const wide = ty.endsWith('64');
      if (wide && head !== 'add' && head !== 'sub') return unsup();
      const wrap = wide ? (x: number) => x : signed ? (x: number) => x | 0 : (x: number) => x >>> 0;
      const fn: (x: number, y: number) => number =
        head === 'add'
          ? (x, y) => x + y
          : head === 'sub'
            ? (x, y) => x - y
            : head === 'mul'
              ? (x, y) => Math.imul(x, y)
              : head === 'and'
                ? (x, y) => x & y
                : head === 'or'
                  ? (x, y) => x | y
                  : head === 'xor'
                    ? (x, y) => x ^ y
                    : head === 'shl'
                      ? (x, y) => (y >= 32 ? 0 : x << y)
                      : signed
                        ? (x, y) => x >> Math.min(y, 31)
                        : (x, y) => (y >= 32 ? 0 : x >>> y);
      return (f, r, pc) => ((r[d] = wrap(fn(Number(a(r, f)), Number(b(r, f))))), pc + 1);
    }
    case 'elect':
      return electSync(site.o[0], valueOf(site.o[1], reg), reg);
    case 'ld':
    case 'st': {
      if (parts.some((x) => /^v\d$/.test(x))) return unsup();
      const ty = parts[parts.length - 1];
      const dt = ({ u32: 'u32', s32: 's32', b32: 'u32', f32: 'f32', u64: 'u64', s64: 's64', b64: 'u64', f64: 'f64', u16: 'u16', s16: 's16', b16: 'u16', u8: 'u8', s8: 's8', b8: 'u8' } as const)[ty];
      if (!dt) return unsup();
      const shared = parts.includes('shared') || parts.some((x) => x.startsWith('shared::'));
      const size = sizeOfType({ k: 'num', dt });
      if (head === 'ld') {
        const d = W(0);
        const a = addrOf(o[1], reg, n);
        const ld = loader(dt);
        return (f, r, pc) => {
          const p = shared ? sharedPtr(f.ts.blk, a.base(r, f), a.off) : globalPtr(f, a.base(r, f), a.off);
          r[d] = ld(p.buf, p.offset);
          if (p.buf.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, p.buf, p.offset, size, false);
          return pc + 1;
        };
      }
      const a = addrOf(o[0], reg, n);
      const v = V(1);
      const st = storer(dt);
      return (f, r, pc) => {
        const p = shared ? sharedPtr(f.ts.blk, a.base(r, f), a.off) : globalPtr(f, a.base(r, f), a.off);
        st(p.buf, p.offset, Number(v(r, f)));
        if (p.buf.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, p.buf, p.offset, size, true);
        return pc + 1;
      };
    }
    case 'bar':
    case 'barrier':
      return barOp(site);
    case 'cp':
      return cpOp(parts, mn, o, reg, n);
    case 'tcgen05':
      return tcgen05(site);
  }
  void has;
  return unsup();
}

/** One instruction as a handler compiles it. */
interface Site extends PtxSite {
  /** A try_wait/test_wait that a backward `@!p bra` retries until done. */
  retried: boolean;
}

type Handler = (s: Site) => PInstr;

const nextInstr: PInstr = (_f, _r, pc) => pc + 1;

function barOp(s: Site): PInstr {
  const { parts, o, reg } = s;
  const V = (i: number) => valueOf(o[i], reg);
  const unsup = (): never => unsupported(`PTX instruction '${s.mn}'`, s.n);
  const op = parts[1] === 'sync' || parts[1] === 'arrive' || parts[1] === 'red' ? parts[1] : parts.length === 1 || parts[1] === 'aligned' ? 'sync' : parts[1];
  if (op === 'red') return unsup();
  const id = o[0] ? V(0) : () => 0;
  const cnt = o[1] ? V(1) : undefined;
  if (op === 'arrive')
    return (f, r, pc) => {
      if (!cnt) throw new SimError('bar.arrive needs a thread count');
      f.ts.m.arriveBlock(f.ts.t, Number(id(r, f)), Number(cnt(r, f)));
      return pc + 1;
    };
  return (f, r, pc) => {
    const m = f.ts.m;
    const count = cnt ? Number(cnt(r, f)) : m.blockSize;
    if (count % 32 !== 0 || count > m.blockSize) throw new SimError(`bar.sync thread count ${count} must be a multiple of 32 and at most the block size (${m.blockSize})`);
    return m.syncBlock(f.ts.t, Number(id(r, f)), count) ? pc + 1 : BLOCK;
  };
}

/** What the handler modules (ptx-site.ts) read of an instruction: its words and operand readers. */
function instrSite(s: Site): PtxInstrSite {
  const { reg, n } = s;
  return { mn: s.mn, parts: s.parts, o: s.o, n, value: (x) => valueOf(x, reg), address: (x) => addrOf(x, reg, n), dest: (x) => (x.trim() === '_' ? -1 : reg(x.trim())) };
}

/** mapa and barrier.cluster: always cluster forms (compileOp sends them to ptx-cluster.ts first). */
const clusterOp: Handler = (s) => clusterPtx(instrSite(s)) ?? unsupported(`PTX instruction '${s.mn}'`, s.n);
const mbarrier: Handler = (s) => mbarrierOp(s.parts, s.o, s.reg, s.retried, s.n);
const cp: Handler = (s) => cpOp(s.parts, s.mn, s.o, s.reg, s.n);
const tcgen05: Handler = (s) => tcgen05PtxOp(instrSite(s));
const noop: Handler = () => nextInstr;
const tensor: Handler = (s) => tensorPtxOp(instrSite(s));
const bulkReduce: Handler = (s) => bulkReducePtxOp(instrSite(s));

/**
 * The PTX the simulator executes, by catalogue key (catalogue.ts): compileOp sends every instruction
 * the catalogue knows here, and the catalogue parity test checks these keys against the entries
 * marked simulated.
 */
export const SIM_PTX_HANDLERS: Readonly<Record<string, Handler>> = {
  'mbarrier.init': mbarrier,
  'mbarrier.inval': mbarrier,
  'mbarrier.arrive': mbarrier,
  'mbarrier.arrive.noComplete': mbarrier,
  'mbarrier.arrive.expect_tx': mbarrier,
  'mbarrier.arrive_drop': mbarrier,
  'mbarrier.arrive_drop.expect_tx': mbarrier,
  'mbarrier.expect_tx': mbarrier,
  'mbarrier.complete_tx': mbarrier,
  'mbarrier.try_wait': mbarrier,
  'mbarrier.try_wait.parity': mbarrier,
  'mbarrier.test_wait': mbarrier,
  'mbarrier.test_wait.parity': mbarrier,
  'cp.async.bulk': cp,
  'cp.async.bulk.global.shared::cta': cp,
  'cp.async.bulk.commit_group': cp,
  'cp.async.bulk.wait_group': cp,
  'cp.async.bulk.prefetch': cp,
  'cp.async.bulk.tensor': tensor,
  'cp.async.bulk.tensor.global.shared::cta': tensor,
  'cp.reduce.async.bulk.tensor': tensor,
  'cp.reduce.async.bulk.tensor.global.shared::cta': tensor,
  'cp.reduce.async.bulk': bulkReduce,
  'cp.reduce.async.bulk.global.shared::cta': bulkReduce,
  'cp.async.bulk.prefetch.tensor': tensor,
  'prefetch.tensormap': tensor,
  'fence.proxy.tensormap::generic': tensor,
  'cp.async.mbarrier.arrive': cp,
  'cp.async.mbarrier.arrive.noinc': cp,
  'cp.async.ca': cp,
  'cp.async.cg': cp,
  'cp.async.commit_group': cp,
  'cp.async.wait_group': cp,
  'cp.async.wait_all': cp,
  'tcgen05.mma': tcgen05,
  'tcgen05.commit': tcgen05,
  'tcgen05.alloc': tcgen05,
  'tcgen05.dealloc': tcgen05,
  'tcgen05.relinquish_alloc_permit': tcgen05,
  'tcgen05.ld': tcgen05,
  'tcgen05.st': tcgen05,
  'tcgen05.cp': tcgen05,
  'tcgen05.wait::ld': tcgen05,
  'tcgen05.wait::st': tcgen05,
  'tcgen05.fence::before_thread_sync': tcgen05,
  'tcgen05.fence::after_thread_sync': tcgen05,
  'wgmma.fence': wgmmaFence,
  'wgmma.commit_group': wgmmaCommit,
  'wgmma.wait_group': wgmmaWait,
  'wgmma.mma_async': wgmmaMmaAsync,
  ldmatrix: ldmatrix,
  stmatrix: stmatrix,
  'fence.mbarrier_init': noop,
  'fence.proxy.async': () => fenceProxyAsync,
  'barrier.cluster.arrive': clusterOp,
  'barrier.cluster.wait': clusterOp,
  mapa: clusterOp,
  'bar.sync': barOp,
  'barrier.sync': barOp,
  'bar.arrive': barOp,
  'barrier.arrive': barOp,
  'elect.sync': (s) => electSync(s.o[0], valueOf(s.o[1], s.reg), s.reg),
  nanosleep: (s) => nanosleep(valueOf(s.o[0], s.reg)),
  'griddepcontrol.launch_dependents': () => griddepcontrol,
  'griddepcontrol.wait': () => griddepcontrol,
  setmaxnreg: (s) => setmaxnreg(s.mn, s.o[0] ?? ''),
};

function mbarrierOp(parts: string[], o: string[], reg: (n: string) => number, retried: boolean, n: SyntaxNode): PInstr {
  const op = parts[1];
  const mn = parts.join('.');
  const V = (i: number) => valueOf(o[i], reg);
  const W = (s: string) => (s.trim() === '_' ? -1 : reg(s.trim()));
  const bar = (s: string) => {
    const a = addrOf(s, reg, n);
    return (f: Frame, r: Regs) => barrierAt(f.ts.m, sharedPtr(f.ts.blk, a.base(r, f), a.off), mn);
  };
  switch (op) {
    case 'init': {
      const b = bar(o[0]);
      const cnt = V(1);
      return (f, r, pc) => (f.ts.m.mbInit(f.ts.t, b(f, r), Number(cnt(r, f))), pc + 1);
    }
    case 'inval': {
      const b = bar(o[0]);
      return (f, r, pc) => (b(f, r).mb.inval(), pc + 1);
    }
    case 'arrive':
    case 'arrive_drop': {
      const expectTx = parts.includes('expect_tx');
      const drop = op === 'arrive_drop';
      const noComplete = parts.includes('noComplete');
      void noComplete;
      const d = W(o[0]);
      const b = bar(o[1]);
      // arrive [.expect_tx] state, [addr] {, count | , txCount}
      const tx = expectTx ? V(2) : () => 0;
      const cnt = expectTx ? (o[3] ? V(3) : () => 1) : o[2] ? V(2) : () => 1;
      const run: RowPInstr = (f, r, pc) => {
        const bb = b(f, r);
        if (expectTx) markProducer(f.ts.t, bb);
        const tok = threadArrive(f, bb, Number(cnt(r, f)), Number(tx(r, f)), drop);
        if (d >= 0) r[d] = tok;
        return pc + 1;
      };
      // A plain arrival with a constant count has a warp-lockstep row (asm-rows.ts).
      const fixed = o[2] === undefined ? 1 : /^\d+$/.test(o[2].trim()) ? Number(o[2].trim()) : 0;
      if (!expectTx && !drop && fixed > 0) run.rowOp = { kind: 'arrive', bar: b, dst: d, count: fixed };
      return run;
    }
    case 'expect_tx':
    case 'complete_tx': {
      const b = bar(o[0]);
      const tx = V(1);
      if (op === 'complete_tx') return (f, r, pc) => (f.ts.m.mbCompleteTx(b(f, r), Number(tx(r, f))), pc + 1);
      return (f, r, pc) => {
        const bb = b(f, r);
        markProducer(f.ts.t, bb);
        f.ts.m.mbExpectTx(f.ts.t, bb, Number(tx(r, f)));
        return pc + 1;
      };
    }
    case 'try_wait':
    case 'test_wait': {
      const parity = parts.includes('parity');
      const d = W(o[0]);
      const b = bar(o[1]);
      const v = V(2);
      const hint = o[3] ? V(3) : undefined;
      const key = {};
      // try_wait without a time limit, or any probe retried by a branch, waits until done.
      const blocks = retried || (op === 'try_wait' && !hint);
      const mode = (f: Frame, r: Regs): WaitMode => (blocks ? 'block' : op === 'test_wait' ? 'probe' : Math.max(1, Number(hint!(r, f))));
      const run: RowPInstr = (f, r, pc) => {
        const md = mode(f, r);
        const res = parity ? waitParity(f, key, b(f, r), Number(v(r, f)), md) : waitToken(f, key, b(f, r), Number(v(r, f)), md);
        if (res === undefined) return BLOCK;
        if (d >= 0) r[d] = res;
        return pc + 1;
      };
      // A wait that blocks until done has a warp-lockstep row (asm-rows.ts).
      if (blocks) run.rowOp = { kind: 'wait', bar: b, value: v, parity, dst: d };
      return run;
    }
  }
  unsupported(`PTX instruction '${mn}'`, n);
}

function cpOp(parts: string[], mn: string, o: string[], reg: (n: string) => number, n: SyntaxNode): PInstr {
  const V = (i: number) => valueOf(o[i], reg);
  if (parts[1] !== 'async') unsupported(`PTX instruction '${mn}'`, n);
  if (parts[2] === 'bulk') {
    if (parts[3] === 'commit_group') return (f, _r, pc) => (f.ts.m.asyncCommit(f.ts.t, 'cp.async'), pc + 1);
    if (parts[3] === 'wait_group') {
      const k = V(0);
      return (f, r, pc) => (f.ts.m.asyncWaitGroups(f.ts.t, 'cp.async', Number(k(r, f))) ? pc + 1 : BLOCK);
    }
    if (parts[3] === 'prefetch') return (_f, _r, pc) => pc + 1;
    const dst = addrOf(o[0], reg, n);
    const src = addrOf(o[1], reg, n);
    const size = V(2);
    const toShared = parts[3].startsWith('shared');
    const withBar = mn.includes('mbarrier::complete_tx');
    const bar = withBar ? addrOf(o[3], reg, n) : undefined;
    return (f, r, pc) => {
      const blk = f.ts.blk;
      const d = toShared ? sharedPtr(blk, dst.base(r, f), dst.off) : globalPtr(f, dst.base(r, f), dst.off);
      const sv = src.base(r, f);
      const s = toShared ? globalPtr(f, sv, src.off) : sharedPtr(blk, sv, src.off);
      const b = bar ? barrierAt(f.ts.m, sharedPtr(blk, bar.base(r, f), bar.off), mn) : undefined;
      bulkCopy(f.ts, d, s, Number(size(r, f)), b, 'cp.async.bulk', b ? undefined : f.ts.m.lat.bulkCopy);
      return pc + 1;
    };
  }
  switch (parts[2]) {
    case 'ca':
    case 'cg': {
      const dst = addrOf(o[0], reg, n);
      const src = addrOf(o[1], reg, n);
      const size = V(2);
      const srcSize = o[3] ? V(3) : undefined;
      return (f, r, pc) => {
        const d = sharedPtr(f.ts.blk, dst.base(r, f), dst.off);
        const s = globalPtr(f, src.base(r, f), src.off);
        const nb = Number(size(r, f));
        const ns = srcSize ? Number(srcSize(r, f)) : nb;
        if (![4, 8, 16].includes(nb)) throw new SimError(`cp.async size ${nb} must be 4, 8 or 16`);
        if (ns < nb) {
          // Zero-fill the tail (src-size < cp-size).
          d.buf.bytes.fill(0, d.offset + ns, d.offset + nb);
        }
        bulkCopy(f.ts, d, s, Math.min(ns, nb), undefined, 'cp.async', f.ts.m.lat.cpAsync);
        return pc + 1;
      };
    }
    case 'commit_group':
      return (f, _r, pc) => (f.ts.m.asyncCommit(f.ts.t, 'cp.async'), pc + 1);
    case 'wait_group': {
      const k = V(0);
      return (f, r, pc) => (f.ts.m.asyncWaitGroups(f.ts.t, 'cp.async', Number(k(r, f))) ? pc + 1 : BLOCK);
    }
    case 'wait_all':
      return (f, _r, pc) => (f.ts.m.asyncWaitAll(f.ts.t, 'cp.async') ? pc + 1 : BLOCK);
    case 'mbarrier': {
      // cp.async.mbarrier.arrive[.noinc].shared.b64 [addr]
      const noinc = parts.includes('noinc');
      const a = addrOf(o[0], reg, n);
      return (f, r, pc) => {
        const { m, t } = f.ts;
        const b = barrierAt(m, sharedPtr(f.ts.blk, a.base(r, f), a.off), mn);
        if (!noinc) b.mb.state.pending++;
        const op = m.asyncAfterAll(t, 'cp.async', `cp.async.mbarrier.arrive → ${b.label}`, (mm) => {
          mm.mbArrive(undefined, b, 1);
        });
        m.asyncEffects(op, { signals: [b] });
        return pc + 1;
      };
    }
  }
  unsupported(`PTX instruction '${mn}'`, n);
}
