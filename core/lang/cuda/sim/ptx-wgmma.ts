// Inline-PTX handlers for Hopper's warpgroup MMA and the warp matrix loads/stores: wgmma.mma_async
// (A from a shared-memory descriptor or from registers, B from a descriptor), wgmma.fence /
// commit_group / wait_group, ldmatrix and stmatrix (.m8n8 .b16). The math is core/sim/wgmma.ts and
// core/sim/ldmatrix.ts; here are the operands, the collective exchanges and the ISA's rules:
// - a warpgroup's wgmma is ONE asynchronous op (every thread of the warpgroup joins the op its first
//   thread issued), whose shared-memory reads the race detector sees as async-proxy reads;
// - until wgmma.wait_group retires its group, the MMA owns its accumulator (and A) registers: a thread
//   that reads or writes them is racing with it (except the same-shape MMA chain the ISA allows);
// - wgmma.fence must come before a warpgroup's first wgmma.mma_async and between a thread's access
//   of registers and an mma_async using them; its absence is reported as misuse.
// Each thread computes its own accumulator fragment when it issues the instruction (the result is
// the same as at completion for any program without a race, and a race is reported).
import type { SyntaxNode } from '../parser';
import { type Machine, SimError, type SourceLoc } from '../../../sim/machine';
import type { AsyncOp } from '../../../sim/machine-types';
import type { Buffer } from '../../../sim/memory';
import { lineOf } from '../../../sim/reports';
import { fromHalfBits, toHalfBits } from '../../../sim/dtypes';
import { elementHolder, fragmentElement, MATRIX_COUNTS, rowAddressLane } from '../../../sim/ldmatrix';
import {
  accumulateF32,
  accumulateS32,
  accumulatorCell,
  aFragmentCell,
  canTranspose,
  decodeDescriptor,
  decodeInput,
  elementAddress,
  exponentOf,
  INPUT_BYTES,
  K_OF,
  type MatrixDescriptor,
  perRegister,
  shapeError,
  type WgmmaAccumulator,
  type WgmmaInput,
  type WgmmaShape,
} from '../../../sim/wgmma';
import type { FnCx, LV } from './context';
import { type BlockCtx, BLOCKED, type Frame, fromSharedAddress, loader, sharedAddress, storer, type ThreadCtx, toSharedPointer } from './runtime';
import { fail, unsupported } from './syntax';
import type { PInstr, Regs } from './ptx-site';

type Accessor = (r: Regs, f: Frame) => any;

/** An asm operand as the handlers see it: its C lvalue (outputs, and inputs that are lvalues) and its text. */
export interface AsmOperandInfo {
  lv?: LV;
  text: string;
  /** `"+f"`, `"r"`, `"l"` …: a 32-bit register operand bound with "f" holds a float, with "r" its bits. */
  constraint: string;
}

/** One PTX instruction of an asm statement, as ptx.ts hands it over. */
export interface PtxSite {
  mn: string;
  parts: string[];
  o: string[];
  reg: (name: string) => number;
  /** Operand accessor: register, immediate or special register. */
  value: (text: string) => Accessor;
  operands: readonly AsmOperandInfo[];
  n: SyntaxNode;
  cx: FnCx;
}


/** `{%0, %1}` → register indices. */
function registerList(s: PtxSite, text: string, what: string): number[] {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) fail(`${s.mn}: ${what} must be a register list {…}, got '${text}'`, s.n);
  return t
    .slice(1, -1)
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x)
    .map((x) => s.reg(x));
}

// ------------------------------------------------------------------ register ownership

/** One register (4 bytes of a local variable) that wgmma.mma_async instructions used. */
interface OwnedRegister {
  name: string;
  /** MMAs not yet retired by wgmma.wait_group that own it. */
  pending: number;
  /** Shape tag of the last MMA (a same-shape MMA may chain on it while pending). */
  tag: string;
  issuedAt: SourceLoc;
  /** Where the thread accessed it after its MMA retired, with no wgmma.fence since. */
  touchedAt?: SourceLoc;
}

/** Per thread: fence and commit-group state of its wgmma instructions. */
interface WgmmaThread {
  fenced: boolean;
  issued: number;
  open: OwnedRegister[][];
  committed: OwnedRegister[][][];
  registers: Set<OwnedRegister>;
}

const threads = new WeakMap<ThreadCtx, WgmmaThread>();
const stateOf = (ts: ThreadCtx): WgmmaThread => {
  let s = threads.get(ts);
  if (!s) threads.set(ts, (s = { fenced: false, issued: 0, open: [], committed: [], registers: new Set() }));
  return s;
};

/** Owned registers by buffer, keyed by byte offset (4-byte registers). */
const owned = new WeakMap<Buffer, Map<number, OwnedRegister>>();

/** The watch hook on a buffer holding owned registers (memory.ts Buffer.watch). */
function watchAccess(buf: Buffer, accessor: object, offset: number, size: number, write: boolean): void {
  const regs = owned.get(buf);
  const ts = accessor as ThreadCtx;
  const tag = ts.asmTag;
  if (!regs || tag === NO_REGISTER_USE) return;
  for (let o = offset & ~3; o < offset + size; o += 4) {
    const reg = regs.get(o);
    if (!reg) continue;
    if (reg.pending > 0) {
      if (tag === reg.tag) continue; // the ISA's exception: same-shape MMAs chain on the accumulators
      const t = ts.t;
      ts.m.raise({
        kind: 'race',
        message:
          `data race on register '${reg.name}': ${write ? 'write' : 'read'} by ${t.label} at ${lineOf(t.loc)} while the wgmma.mma_async at ${lineOf(reg.issuedAt)} still owns it ` +
          `(its accumulator and A registers belong to the asynchronous MMA until a wgmma.wait_group retires its group)`,
        loc: t.loc,
        threads: [t.index],
        other: { thread: t.index, loc: reg.issuedAt, write: true },
      });
      return;
    }
    if (tag === undefined && !reg.touchedAt) {
      reg.touchedAt = ts.t.loc;
      stateOf(ts).registers.add(reg);
    }
  }
}

/** The local registers behind a list of asm register indices (operands whose C variable lives in memory). */
function registersOf(s: PtxSite, indices: readonly number[]): ((f: Frame) => { buf: Buffer; offset: number; name: string } | undefined)[] {
  return indices.map((i) => {
    const info = s.operands[i];
    const lv = info?.lv;
    if (!lv || lv.k !== 'mem') return () => undefined; // a PTX-local register or a scalar held in a slot
    return (f) => {
      const buf = lv.buf(f) as Buffer;
      return buf.space === 'local' ? { buf, offset: lv.off(f) as number, name: info.text } : undefined;
    };
  });
}

/**
 * The fence rules at an mma_async: wgmma.fence before the thread's first one, and between an access of
 * a register and an MMA using it. Returns false (after reporting) when one is broken.
 */
function checkFence(f: Frame, st: WgmmaThread, regs: { buf: Buffer; offset: number; name: string }[]): boolean {
  const { m, t } = f.ts;
  if (!st.fenced) {
    m.raise({
      kind: 'misuse',
      message: `wgmma.mma_async by ${t.label} at ${lineOf(t.loc)} without a wgmma.fence before it: the PTX ISA requires wgmma.fence before the first wgmma.mma_async of a warpgroup (and between register accesses and an MMA using those registers)`,
      loc: t.loc,
      threads: [t.index],
    });
    return false;
  }
  for (const r of regs) {
    const reg = owned.get(r.buf)?.get(r.offset);
    if (reg?.touchedAt) {
      m.raise({
        kind: 'misuse',
        message: `wgmma.mma_async by ${t.label} at ${lineOf(t.loc)} uses register '${r.name}', which the thread accessed at ${lineOf(reg.touchedAt)} with no wgmma.fence in between (the PTX ISA requires wgmma.fence between a register access and a wgmma.mma_async that accesses the same register)`,
        loc: t.loc,
        threads: [t.index],
        other: { thread: t.index, loc: reg.touchedAt, write: true },
      });
      return false;
    }
  }
  return true;
}

/** Marks the MMA's registers as owned until its group retires. */
function own(f: Frame, st: WgmmaThread, regs: { buf: Buffer; offset: number; name: string }[], tag: string): OwnedRegister[] {
  const out: OwnedRegister[] = [];
  for (const r of regs) {
    let map = owned.get(r.buf);
    if (!map) {
      owned.set(r.buf, (map = new Map()));
      const buf = r.buf;
      buf.watch = (a, o, size, w) => watchAccess(buf, a, o, size, w);
    }
    let reg = map.get(r.offset);
    if (!reg) map.set(r.offset, (reg = { name: r.name, pending: 0, tag, issuedAt: f.ts.t.loc }));
    reg.pending++;
    reg.tag = tag;
    reg.name = r.name;
    reg.issuedAt = f.ts.t.loc;
    st.registers.add(reg);
    out.push(reg);
  }
  return out;
}

// ------------------------------------------------------------------ the asm statement's register use

/** ThreadCtx.asmTag of an asm statement without instructions: its operands are not register accesses. */
export const NO_REGISTER_USE = 'none';

/**
 * How an asm statement uses its register operands, for ThreadCtx.asmTag: NO_REGISTER_USE when it
 * has no instructions (a compiler fence), the shape tag when it issues a wgmma.mma_async, else undefined.
 */
export function asmRegisterUse(mnemonics: readonly string[]): string | undefined {
  const real = mnemonics.filter((m) => m);
  if (!real.length) return NO_REGISTER_USE;
  const mma = real.find((m) => m.startsWith('wgmma.mma_async'));
  return mma ? shapeTag(mma) : undefined;
}

const shapeTag = (mn: string): string => `wgmma ${mn.split('.').filter((p) => /^m\d+n\d+k\d+$/.test(p) || /^(f16|bf16|tf32|e4m3|e5m2|s8|u8|f32|s32)$/.test(p)).join('.')}`;

// ------------------------------------------------------------------ wgmma.fence / commit_group / wait_group

export function wgmmaFence(_s: PtxSite): PInstr {
  return (f, _r, pc) => {
    const st = stateOf(f.ts);
    st.fenced = true;
    // Registers no MMA owns any more leave the set; a later access re-enters them (watchAccess).
    for (const reg of st.registers) {
      reg.touchedAt = undefined;
      if (reg.pending === 0) st.registers.delete(reg);
    }
    return pc + 1;
  };
}

export function wgmmaCommit(_s: PtxSite): PInstr {
  return (f, _r, pc) => {
    f.ts.m.asyncCommit(f.ts.t, 'wgmma');
    const st = stateOf(f.ts);
    st.committed.push(st.open);
    st.open = [];
    return pc + 1;
  };
}

export function wgmmaWait(s: PtxSite): PInstr {
  const k = s.value(s.o[0] ?? '0');
  return (f, r, pc) => {
    const n = Number(k(r, f));
    if (!f.ts.m.asyncWaitGroups(f.ts.t, 'wgmma', n)) return BLOCKED;
    const st = stateOf(f.ts);
    const retired = st.committed.splice(0, Math.max(0, st.committed.length - Math.max(0, n)));
    for (const group of retired) for (const mma of group) for (const reg of mma) reg.pending--;
    return pc + 1;
  };
}

// ------------------------------------------------------------------ wgmma.mma_async

const INPUTS = new Set<string>(['f16', 'bf16', 'tf32', 'e4m3', 'e5m2', 's8', 'u8']);
const ACCUMULATORS = new Set<string>(['f32', 'f16', 's32']);

/** One warpgroup-wide MMA in flight: the op its first thread issued, and how many threads joined. */
interface CollectiveMma {
  op: AsyncOp;
  joined: number;
}
const collectives = new WeakMap<BlockCtx, Map<string, CollectiveMma>>();

export function wgmmaMmaAsync(s: PtxSite): PInstr {
  const { mn, parts, o, n } = s;
  if (parts[1] !== 'mma_async') unsupported(`PTX instruction '${mn}'`, n);
  if (parts.includes('sp')) unsupported(`PTX instruction '${mn}' (sparse wgmma)`, n);
  const si = parts.findIndex((p) => /^m\d+n\d+k\d+$/.test(p));
  if (si < 0) fail(`${mn}: no .m64nNkK shape`, n);
  const [, M, N, K] = /^m(\d+)n(\d+)k(\d+)$/.exec(parts[si])!.map(Number);
  const [d, a, b] = parts.slice(si + 1, si + 4);
  if (M !== 64) fail(`${mn}: wgmma's M is 64, not ${M}`, n);
  if (!ACCUMULATORS.has(d) || !INPUTS.has(a) || !INPUTS.has(b)) fail(`${mn}: expected .dtype.atype.btype after the shape (dtype f32/f16/s32; atype, btype f16/bf16/tf32/e4m3/e5m2/s8/u8)`, n);
  const shape: WgmmaShape = { n: N, k: K, d: d as WgmmaAccumulator, a: a as WgmmaInput, b: b as WgmmaInput };
  const bad = shapeError(shape);
  if (bad) fail(`${mn}: ${bad}`, n);
  const satfinite = parts.includes('satfinite');
  const aFromRegs = (o[1] ?? '').trim().startsWith('{');
  const integer = shape.a === 's8' || shape.a === 'u8';
  const transposable = canTranspose(shape.a);
  // Operands after d, a, b-desc, scale-d: imm-scale-a/b (not for integers), imm-trans-a (descriptor A) and imm-trans-b (f16/bf16 only).
  const extra = integer ? 0 : 2 + (transposable ? (aFromRegs ? 1 : 2) : 0);
  if (o.length !== 4 + extra) {
    const form = integer ? 'd, a, b-desc, scale-d' : transposable ? (aFromRegs ? 'd, a, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b' : 'd, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b') : 'd, a, b-desc, scale-d, imm-scale-a, imm-scale-b';
    fail(`${mn}: expected operands ${form} (${o.length} given)`, n);
  }
  const nAcc = shape.d === 'f16' ? N / 4 : N / 2;
  const dRegs = registerList(s, o[0], 'the accumulator d');
  if (dRegs.length !== nAcc) fail(`${mn}: ${dRegs.length} accumulator registers for m64n${N} .${d} (each thread holds ${nAcc})`, n);
  const aRegs = aFromRegs ? registerList(s, o[1], 'A') : [];
  if (aFromRegs && aRegs.length !== 4) fail(`${mn}: A from registers takes 4 registers per thread, got ${aRegs.length}`, n);
  const aDesc = aFromRegs ? undefined : s.value(o[1]);
  const bDesc = s.value(o[2]);
  const scaleD = s.value(o[3]);
  const imm = (i: number, what: string, allowed: number[]): ((r: Regs, f: Frame) => number) => {
    if (i >= o.length) return () => allowed[0];
    const v = s.value(o[i]);
    return (r, f) => {
      const x = Number(v(r, f));
      if (!allowed.includes(x)) throw new SimError(`${mn}: ${what} is ${x}; it must be ${allowed.join(' or ')}`);
      return x;
    };
  };
  const scaleA = integer ? () => 1 : imm(4, 'imm-scale-a', [1, -1]);
  const scaleB = integer ? () => 1 : imm(5, 'imm-scale-b', [1, -1]);
  const transA = transposable && !aFromRegs ? imm(6, 'imm-trans-a', [0, 1]) : () => 0;
  const transB = transposable ? imm(aFromRegs ? 6 : 7, 'imm-trans-b', [0, 1]) : () => 0;
  // A 32-bit operand bound with "f" holds a float; the instruction's .b32 registers hold its bits.
  const isFloat = (i: number) => /f/.test(s.operands[i]?.constraint ?? '');
  const dAsBits = dRegs.map((i) => shape.d === 'f32' && !isFloat(i) && i < s.operands.length);
  const aAsFloat = aRegs.map(isFloat);
  const dLocal = registersOf(s, dRegs);
  const aLocal = registersOf(s, aRegs);
  const tag = shapeTag(mn);
  const label = `wgmma.mma_async m64n${N}k${K}.${d}.${a}.${b}`;
  const bytesA = INPUT_BYTES[shape.a];
  const bytesB = INPUT_BYTES[shape.b];

  return (f, r, pc) => {
    const ts = f.ts;
    const { m, t, blk } = ts;
    const first = (t.warp & ~3) * 32;
    if (m.blockSize < first + 128) throw new SimError(`${mn}: a wgmma needs a whole warpgroup of 128 threads (warps ${t.warp & ~3}..${(t.warp & ~3) + 3}); the block has ${m.blockSize} threads`);
    // A from registers: the warp's 32 lanes exchange their fragments (each row's K values are spread over 4 lanes).
    let aLanes: number[][] | undefined;
    if (aFromRegs) {
      const mine = aRegs.map((i, j) => (aAsFloat[j] ? floatBits(Number(r[i])) : Number(r[i]) >>> 0));
      const all = m.warpExchange(t, 0xffffffff, mine as unknown as number) as unknown as (number[] | undefined)[] | undefined;
      if (!all) return BLOCKED;
      if (all.some((x) => !x)) throw new SimError(`${mn}: every lane of warp ${t.warp} must execute it (.sync.aligned)`);
      aLanes = all as number[][];
    }
    const tid = ((t.warp & 3) << 5) | t.lane;
    const ta = Number(transA(r, f));
    const tb = Number(transB(r, f));
    const sa = Number(scaleA(r, f));
    const sb = Number(scaleB(r, f));
    const accumulate = !!Number(scaleD(r, f));
    const A = aDesc ? descriptorOf(aDesc(r, f), 'A', mn) : undefined;
    const B = descriptorOf(bDesc(r, f), 'B', mn);

    // The operand values this thread's fragment depends on.
    const rowsOf = [16 * (tid >> 5) + ((tid & 31) >> 2), 16 * (tid >> 5) + ((tid & 31) >> 2) + 8];
    // Each row of A and column of B once, with its values' exponents for the adder.
    const vector = (read: (k: number) => number): { v: Float64Array; e: Int32Array } => {
      const v = new Float64Array(K);
      const e = new Int32Array(K);
      for (let k = 0; k < K; k++) {
        v[k] = read(k);
        e[k] = v[k] !== 0 && Number.isFinite(v[k]) ? exponentOf(v[k]) : 0;
      }
      return { v, e };
    };
    const aRow = new Map<number, { v: Float64Array; e: Int32Array }>();
    for (const row of rowsOf) aRow.set(row, vector((k) => sa * (A ? readElement(blk, A, ta === 0, shape.a, bytesA, row, k, 'A', mn) : aFromLanes(shape.a, aLanes!, row, k))));
    const bCol = new Map<number, { v: Float64Array; e: Int32Array }>();
    const acc = new Array<number>(N / 2);
    for (let i = 0; i < N / 2; i++) {
      const [row, col] = accumulatorCell(tid, i);
      let bv = bCol.get(col);
      if (!bv) bCol.set(col, (bv = vector((k) => sb * readElement(blk, B, tb === 0, shape.b, bytesB, col, k, 'B', mn))));
      const av = aRow.get(row)!;
      if (shape.d === 's32') acc[i] = accumulateS32(accumulate ? Number(r[dRegs[i]]) | 0 : undefined, av.v, bv.v, satfinite);
      else if (shape.d === 'f32') acc[i] = accumulateF32(accumulate ? (dAsBits[i] ? bitsFloat(Number(r[dRegs[i]])) : Number(r[dRegs[i]])) : undefined, av.v, bv.v, av.e, bv.e);
      else {
        const prev = accumulate ? fromHalfBits((Number(r[dRegs[i >> 1]]) >>> (16 * (i & 1))) & 0xffff) : undefined;
        acc[i] = toHalfBits(accumulateF32(prev, av.v, bv.v, av.e, bv.e));
      }
    }

    // The fence rules, then ownership of the registers until the group retires.
    const st = stateOf(ts);
    const locals = [...dLocal, ...aLocal].map((g) => g(f)).filter((x): x is { buf: Buffer; offset: number; name: string } => !!x);
    if (!checkFence(f, st, locals)) return pc + 1;
    if (shape.d === 'f16') for (let j = 0; j < nAcc; j++) r[dRegs[j]] = (acc[2 * j] | (acc[2 * j + 1] << 16)) >>> 0;
    else for (let i = 0; i < nAcc; i++) r[dRegs[i]] = dAsBits[i] ? floatBits(acc[i]) : acc[i];
    st.open.push(own(f, st, locals, tag));

    // One async op per warpgroup instruction: its shared-memory reads, seen by the race detector when it completes.
    let table = collectives.get(blk);
    if (!table) collectives.set(blk, (table = new Map()));
    const key = `${t.warp >> 2}:${st.issued++}`;
    const joined = table.get(key);
    if (joined) {
      m.asyncJoin(t, joined.op);
      if (++joined.joined === 128) table.delete(key);
    } else {
      const reads = operandChunks(blk, A, ta === 0, shape.a, B, tb === 0, shape.b, N, K);
      const op = m.asyncIssue(t, 'wgmma', label, m.lat.mma, (mm: Machine) => {
        for (const x of reads) mm.accessAsync(op, x.buf, x.offset, x.size, false);
      });
      table.set(key, { op, joined: 1 });
    }
    return pc + 1;
  };
}

const f32 = new DataView(new ArrayBuffer(4));
const floatBits = (x: number): number => (f32.setFloat32(0, x), f32.getUint32(0));
const bitsFloat = (b: number): number => (f32.setUint32(0, b >>> 0), f32.getFloat32(0));

function descriptorOf(v: unknown, which: string, mn: string): MatrixDescriptor {
  if (typeof v !== 'number' && typeof v !== 'bigint') throw new SimError(`${mn}: the ${which} descriptor must be a 64-bit integer`);
  const d = decodeDescriptor(v);
  if (d.baseOffset !== 0) throw new SimError(`${mn}: matrix base offset ${d.baseOffset} in the ${which} descriptor (swizzle patterns not aligned to their repeat) is not modelled`, undefined, 'unsupported');
  return d;
}

const load8 = loader('u8');
const load16 = loader('u16');
const load32 = loader('u32');

function readElement(blk: BlockCtx, d: MatrixDescriptor, kMajor: boolean, type: WgmmaInput, bytes: number, mn: number, k: number, which: string, name: string): number {
  const addr = elementAddress(d, kMajor, bytes, mn, k);
  let p;
  try {
    p = fromSharedAddress(blk, addr);
  } catch (e) {
    throw new SimError(`${name}: ${which}[${which === 'A' ? `${mn}][${k}` : `${k}][${mn}`}]: ${(e as Error).message} (descriptor start 0x${d.start.toString(16)}, LBO ${d.lbo}, SBO ${d.sbo}, swizzle ${d.swizzle})`);
  }
  if (p.offset + bytes > p.buf.size) throw new SimError(`${name}: ${which} element at shared address 0x${addr.toString(16)} runs past the end of '${p.buf.name}'`, undefined, 'oob');
  const bits = bytes === 1 ? load8(p.buf, p.offset) : bytes === 2 ? load16(p.buf, p.offset) : load32(p.buf, p.offset);
  return decodeInput(type, bits);
}

/** A[row][k] from the warp's register fragments (lane l's 4 registers). */
function aFromLanes(type: WgmmaInput, lanes: number[][], row: number, k: number): number {
  const per = perRegister(type);
  const bits = 32 / per;
  // The inverse of aFragmentCell: which lane, register and part hold (row % 16, k).
  const r16 = row & 15;
  const g = r16 & 7;
  const reg = (r16 >> 3) | (Math.floor(k / (K_OF[type] / 2)) << 1);
  const kk = k % (K_OF[type] / 2);
  const lane = 4 * g + Math.floor(kk / per);
  const part = kk % per;
  const e = reg * per + part;
  const [cr, ck] = aFragmentCell(type, lane, e);
  if (cr !== r16 || ck !== k) throw new Error(`A fragment inverse: (${row}, ${k}) → lane ${lane} element ${e} → (${cr}, ${ck})`);
  const word = lanes[lane][reg];
  return decodeInput(type, bits === 32 ? word : (word >>> (bits * part)) & ((1 << bits) - 1));
}

/** The 16-byte chunks of shared memory one wgmma reads (A when from a descriptor, and B), coalesced. */
function operandChunks(blk: BlockCtx, A: MatrixDescriptor | undefined, aK: boolean, at: WgmmaInput, B: MatrixDescriptor, bK: boolean, bt: WgmmaInput, N: number, K: number): { buf: Buffer; offset: number; size: number }[] {
  const addresses: number[] = [];
  const add = (d: MatrixDescriptor, kMajor: boolean, t: WgmmaInput, rows: number) => {
    const bytes = INPUT_BYTES[t];
    for (let mn = 0; mn < rows; mn++) for (let k = 0; k < K; k++) addresses.push(elementAddress(d, kMajor, bytes, mn, k));
  };
  if (A) add(A, aK, at, 64);
  add(B, bK, bt, N);
  return sharedChunks(blk, addresses);
}

/**
 * The 16-byte chunks of shared memory holding `addresses`, coalesced into runs per buffer: what an MMA's
 * operand reads touch (swizzled rows are permutations of whole chunks), for the race detector.
 */
export function sharedChunks(blk: BlockCtx, addresses: Iterable<number>): { buf: Buffer; offset: number; size: number }[] {
  const chunks = new Set<number>();
  for (const a of addresses) chunks.add(a & ~15);
  const out: { buf: Buffer; offset: number; size: number }[] = [];
  for (const c of [...chunks].sort((x, y) => x - y)) {
    const p = fromSharedAddress(blk, c);
    const last = out[out.length - 1];
    if (last && last.buf === p.buf && last.offset + last.size === p.offset) last.size = Math.min(last.size + 16, p.buf.size - last.offset);
    else out.push({ buf: p.buf, offset: p.offset, size: Math.min(16, p.buf.size - p.offset) });
  }
  return out;
}

// ------------------------------------------------------------------ ldmatrix / stmatrix

/** `.m8n8.xN{.trans}.shared{::cta}.b16`: N and .trans, or an error for the shapes not modelled. */
function matrixForm(s: PtxSite): { count: number; trans: boolean } {
  const { parts, mn, n } = s;
  if (!parts.includes('m8n8') || !parts.includes('b16')) unsupported(`PTX instruction '${mn}' (only the .m8n8 .b16 shape is modelled)`, n);
  if (!parts.some((p) => p === 'shared' || p === 'shared::cta')) fail(`${mn}: expected the .shared state space`, n);
  const x = parts.find((p) => /^x\d+$/.test(p));
  const count = x ? Number(x.slice(1)) : NaN;
  if (!MATRIX_COUNTS.includes(count)) fail(`${mn}: expected .x1, .x2 or .x4`, n);
  return { count, trans: parts.includes('trans') };
}

/** The shared-window address of a row operand, checked for the 16-byte alignment rows need. */
function rowAddress(blk: BlockCtx, v: unknown, mn: string, lane: number): number {
  const addr = typeof v === 'number' ? v : sharedAddress(blk, toSharedPointer(blk, v), mn);
  if (addr % 16 !== 0) throw new SimError(`${mn}: the row address of lane ${lane} (0x${addr.toString(16)}) is not 16-byte aligned`);
  return addr;
}

export function ldmatrix(s: PtxSite): PInstr {
  const { count, trans } = matrixForm(s);
  const dst = registerList(s, s.o[0], 'the destination');
  if (dst.length !== count) fail(`${s.mn}: ${dst.length} destination registers for .x${count}`, s.n);
  const m0 = /^\[\s*([^\]+\s]+)\s*(?:\+\s*(-?\w+))?\s*\]$/.exec((s.o[1] ?? '').trim());
  if (!m0) fail(`${s.mn}: expected a [address] operand`, s.n);
  const base = s.value(m0[1]);
  const off = m0[2] ? Number(m0[2]) : 0;
  return (f, r, pc) => {
    const { m, t, blk } = f.ts;
    const v = base(r, f);
    const mine = off ? (typeof v === 'number' ? v + off : { ...(v as object), offset: (v as { offset: number }).offset + off }) : v;
    const all = m.warpExchange(t, 0xffffffff, mine as number);
    if (!all) return BLOCKED;
    for (let j = 0; j < count; j++) {
      let word = 0;
      for (let h = 0; h < 2; h++) {
        const [row, col] = fragmentElement(t.lane, h, trans);
        const src = rowAddressLane(j, row);
        if (all[src] === undefined) throw new SimError(`${s.mn}: lane ${src} (the address of row ${row} of matrix ${j}) did not execute it (.sync.aligned)`);
        const p = fromSharedAddress(blk, rowAddress(blk, all[src], s.mn, src) + 2 * col);
        word |= load16(p.buf, p.offset) << (16 * h);
        if (f.ts.race) m.access(t, p.buf, p.offset, 2, false);
      }
      r[dst[j]] = word >>> 0;
    }
    return pc + 1;
  };
}

const store16 = storer('u16');

export function stmatrix(s: PtxSite): PInstr {
  const { count, trans } = matrixForm(s);
  const m0 = /^\[\s*([^\]+\s]+)\s*(?:\+\s*(-?\w+))?\s*\]$/.exec((s.o[0] ?? '').trim());
  if (!m0) fail(`${s.mn}: expected a [address] operand`, s.n);
  const base = s.value(m0[1]);
  const off = m0[2] ? Number(m0[2]) : 0;
  const src = registerList(s, s.o[1] ?? '', 'the source');
  if (src.length !== count) fail(`${s.mn}: ${src.length} source registers for .x${count}`, s.n);
  return (f, r, pc) => {
    const { m, t, blk } = f.ts;
    const v = base(r, f);
    const addr = off ? (typeof v === 'number' ? v + off : { ...(v as object), offset: (v as { offset: number }).offset + off }) : v;
    const all = m.warpExchange(t, 0xffffffff, { addr, regs: src.map((i) => Number(r[i]) >>> 0) } as unknown as number) as unknown as ({ addr: unknown; regs: number[] } | undefined)[] | undefined;
    if (!all) return BLOCKED;
    // The lane that supplied a row's address writes that row.
    if (t.lane < 8 * count) {
      const j = t.lane >> 3;
      const row = t.lane & 7;
      const base16 = rowAddress(blk, all[t.lane]!.addr, s.mn, t.lane);
      for (let col = 0; col < 8; col++) {
        const { lane, half } = elementHolder(row, col, trans);
        const holder = all[lane];
        if (!holder) throw new SimError(`${s.mn}: lane ${lane} (holding element (${row}, ${col}) of matrix ${j}) did not execute it (.sync.aligned)`);
        const p = fromSharedAddress(blk, base16 + 2 * col);
        store16(p.buf, p.offset, (holder.regs[j] >>> (16 * half)) & 0xffff);
        if (f.ts.race) m.access(t, p.buf, p.offset, 2, true);
      }
    }
    return pc + 1;
  };
}

