// tcgen05 inline PTX for the CUDA executor (ptx.ts dispatches here by catalogue key): tensor-memory
// allocation (alloc, dealloc, relinquish_alloc_permit), tcgen05.mma kind::f16 with K- or MN-major
// shared-memory descriptors in every swizzle, tcgen05.commit, tcgen05.ld / st in every shape and
// tcgen05.cp in the ISA's shapes, each with `.cta_group::1` or, on a CTA pair, `.cta_group::2`
// (tcgen05-pair.ts: the pair, the collective allocation, the MMA's split and accumulator layouts).
import type { SyntaxNode } from '../parser';
import { lineOf } from '../../../sim/reports';
import { type Machine, SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { decodeUmmaDescriptor, elementAddress, type MatrixDescriptor } from '../../../sim/wgmma';
import { TMEM_LDST_SHAPES, TMEM_REPEATS, tmemCell, tmemLanes, tmemRegisters } from '../../../sim/tmem-fragment';
import { barrierAt, markProducer } from './barrier-runtime';
import { clusterPointer } from './cluster-runtime';
import { tcgen05Dealloc } from './ptx-misc';
import { sharedChunks } from './ptx-wgmma';
import { type BlockCtx, type Frame, fromSharedAddress, liveMask, loader, storer, type ThreadCtx, toSharedPointer } from './runtime';
import type { Operand, PInstr, PtxInstrSite, Regs } from './ptx-site';
import { fail, unsupported } from './syntax';
import { accumulatorCell, type CtaPair, ctaPair, meetPair, mixedGroup } from './tcgen05-pair';

/** The PTX result for a blocked instruction (re-run when the thread wakes). */
const BLOCK = -1;

/** One tcgen05 instruction as ptx.ts hands it over: its words and how to read its operands. */

function sharedPtr(blk: BlockCtx, v: unknown, off: number): Pointer {
  const p = toSharedPointer(blk, v);
  return off ? { buf: p.buf, offset: p.offset + off } : p;
}

const TMEM_LANES = 128;
const TMEM_COLS = 512;

function tmemOf(blk: BlockCtx): Uint32Array {
  return (blk.tmem ??= new Uint32Array(TMEM_LANES * TMEM_COLS));
}

/** Compiles a tcgen05 instruction (the catalogue's tcgen05 keys map here). */
export function tcgen05PtxOp(s: PtxInstrSite): PInstr {
  const { parts, mn, o, n } = s;
  const V = (i: number) => s.value(o[i]);
  const what = parts[1].split('::')[0];
  // .cta_group::2 runs on the CTA pair (tcgen05-pair.ts); ld/st/wait/fence have no .cta_group.
  const group: 1 | 2 = parts.includes('cta_group::2') ? 2 : 1;
  switch (what) {
    case 'alloc': {
      const dst = s.address(o[0]);
      const ncols = V(1);
      // Per launch (the compiled instruction serves every launch of the kernel): each warp's columns.
      const launches = new WeakMap<object, Map<string, number>>();
      return (f, r, pc) => {
        const { t, blk } = f.ts;
        const cols = Number(ncols(r, f));
        if (cols < 32 || cols > TMEM_COLS || (cols & (cols - 1)) !== 0) throw new SimError(`tcgen05.alloc: ${cols} columns must be a power of two in 32..512`);
        // PTX ISA, tcgen05.relinquish_alloc_permit: a CTA may not allocate after one of its threads relinquished the permit.
        const gaveUp = blk.tmemRelinquished?.get(t.index);
        if (gaveUp) {
          f.ts.m.reportMisuse(t, `${mn}: this CTA already relinquished its tensor-memory allocation permit (tcgen05.relinquish_alloc_permit at ${lineOf(gaveUp)}); an allocation after that is illegal`);
          return pc + 1;
        }
        if (group === 2) {
          const pair = ctaPair(f.ts, mn, false);
          if (!pair) return pc + 1;
          const round = meetPair(f.ts, pair, 'alloc', cols, mn);
          if (!round) return BLOCK;
          if (round.result === undefined) {
            const [even, odd] = round.sides;
            if (even!.value !== odd!.value) {
              f.ts.m.reportMisuse(t, `${mn}: the two CTAs of the pair ask for different column counts (${even!.value} in the even CTA, ${odd!.value} in the odd one); a CTA-pair allocation takes the same columns in both`, { thread: t.index === even!.thread ? odd!.thread : even!.thread });
              return pc + 1;
            }
            // The same columns in both CTAs: the pair's MMA addresses both accumulators with one address.
            const [a, b] = pair.ctas.map((c) => c.blk);
            const base = Math.max(a.tmemNext, b.tmemNext);
            if (base + cols > TMEM_COLS) throw new SimError(`${mn}: out of tensor memory (${base} of ${TMEM_COLS} columns in use in the CTA pair)`);
            for (const c of [a, b]) {
              tmemOf(c);
              c.tmemNext = base + cols;
              (c.tmemAllocs ??= []).push({ col: base, cols, group: 2, loc: t.loc });
            }
            round.result = base;
          }
          // One lane of each side's warp writes the address into its CTA's shared memory.
          if (!round.written[pair.self]) {
            round.written[pair.self] = true;
            const p = sharedPtr(blk, dst.base(r, f), dst.off);
            storer('u32')(p.buf, p.offset, round.result);
            if (f.ts.race) f.ts.m.access(t, p.buf, p.offset, 4, true);
          }
          return pc + 1;
        }
        const key = `${t.block}:${t.warp}`;
        let allocs = launches.get(f.ts.m);
        if (!allocs) launches.set(f.ts.m, (allocs = new Map()));
        let base = allocs.get(key);
        if (base === undefined) {
          tmemOf(blk);
          base = blk.tmemNext;
          if (base + cols > TMEM_COLS) throw new SimError(`tcgen05.alloc: out of tensor memory (${base} of ${TMEM_COLS} columns in use)`);
          blk.tmemNext += cols;
          allocs.set(key, base);
          (blk.tmemAllocs ??= []).push({ col: base, cols, group: 1, loc: t.loc });
        }
        if (t.lane === 0 || !(liveMask(f.ts) & 1)) {
          const p = sharedPtr(blk, dst.base(r, f), dst.off);
          storer('u32')(p.buf, p.offset, base);
          if (f.ts.race) f.ts.m.access(t, p.buf, p.offset, 4, true);
        }
        return pc + 1;
      };
    }
    case 'dealloc':
    case 'relinquish_alloc_permit': {
      const taddr = what === 'dealloc' ? V(0) : undefined;
      return (f, r, pc) => {
        if (taddr && mixedGroup(f.ts, f.ts.blk, Number(taddr(r, f)) & 0xffff, group, mn)) return pc + 1;
        if (group === 2) {
          const pair = ctaPair(f.ts, mn, false);
          if (!pair) return pc + 1;
          if (!meetPair(f.ts, pair, what, 0, mn)) return BLOCK;
        }
        if (!taddr) {
          (f.ts.blk.tmemRelinquished ??= new Map()).set(f.ts.t.index, f.ts.t.loc);
          return pc + 1;
        }
        return tcgen05Dealloc(f, r, pc);
      };
    }
    case 'fence':
    case 'wait':
      return (_f, _r, pc) => pc + 1;
    case 'mma': {
      if (!parts.includes('kind::f16')) unsupported(`PTX instruction '${mn}' (only kind::f16 is modelled)`, n);
      if (mn.includes('.ws') || mn.includes('block_scale') || mn.includes('sp')) unsupported(`PTX instruction '${mn}'`, n);
      if (o[1]?.trim().startsWith('[')) unsupported(`PTX instruction '${mn}' (A from tensor memory; A from a shared-memory descriptor is modelled)`, n);
      const d = s.address(o[0]);
      const ad = V(1);
      const bd = V(2);
      const id = V(3);
      // [d], a-desc, b-desc, idesc{, disable-output-lane}, enable-input-d: CUTLASS passes the lane mask
      // ({4 registers} for ::1, {8} for ::2) before the predicate.
      const masked = o[4]?.trim().startsWith('{');
      const lanesOff = masked ? o[4].replace(/[{}]/g, '').split(',').map((x) => s.value(x.trim())) : [];
      if (masked && lanesOff.length !== 4 * group) fail(`${mn}: the disable-output-lane vector has ${lanesOff.length} registers; .cta_group::${group} takes ${4 * group}`, n);
      const accOp = o[masked ? 5 : 4];
      const acc = accOp ? s.value(accOp) : () => 1;
      return (f, r, pc) => {
        if (lanesOff.some((v) => Number(v(r, f)) !== 0)) throw new SimError(`${mn}: a non-zero disable-output-lane mask is not modelled`, undefined, 'unsupported');
        issueMma(f.ts, Number(d.base(r, f)) + d.off, ad(r, f), bd(r, f), Number(id(r, f)) >>> 0, !!acc(r, f), mn, group);
        return pc + 1;
      };
    }
    case 'commit': {
      if (!mn.includes('mbarrier::arrive::one')) unsupported(`PTX instruction '${mn}'`, n);
      if (mn.includes('multicast')) unsupported(`PTX instruction '${mn}' (multicast commit)`, n);
      const a = s.address(o[0]);
      return (f, r, pc) => {
        const { m, t } = f.ts;
        if (group === 2 && !ctaPair(f.ts, mn)) return pc + 1;
        // The operand is a .shared::cluster address: this CTA's barrier or, after mapa, the peer's.
        const b = barrierAt(m, clusterPointer(f.ts, a.base(r, f), a.off, mn), mn);
        const commit = m.asyncAfterAll(t, 'tcgen05', `tcgen05.commit → ${b.label}`, (mm, op) => {
          mm.checkCtaAlive(b.block, `its arrival on ${b.label}`, op.loc);
          mm.mbCompleteTx(b, 0, op); // orders the MMAs' shared reads before the arrival for race checks
          mm.mbArrive(undefined, b, 1);
        });
        m.asyncEffects(commit, { signals: [b] });
        return pc + 1;
      };
    }
    case 'ld':
    case 'st':
      return tmemLoadStore(s, what);
    case 'cp':
      return tmemCopy(s, group);
  }
  unsupported(`PTX instruction '${mn}'`, n);
}

/**
 * tcgen05.ld.sync.aligned.SHAPE.xN.b32 {r…}, [taddr][, immHalfSplitoff] and
 * tcgen05.st.sync.aligned.SHAPE.xN.b32 [taddr][, immHalfSplitoff], {r…}: each thread moves its registers
 * to or from the cells the ISA's fragment table gives it (core/sim/tmem-fragment.ts). Like the
 * hardware's, the move is complete by tcgen05.wait::ld / ::st; the simulator does it at once.
 */
function tmemLoadStore(s: PtxInstrSite, op: 'ld' | 'st'): PInstr {
  const { parts, mn, o, n } = s;
  const shape = TMEM_LDST_SHAPES.find((x) => parts.includes(x));
  if (!shape) unsupported(`PTX instruction '${mn}' (shape; the modelled ones are ${TMEM_LDST_SHAPES.map((x) => `.${x}`).join(' ')})`, n);
  if (parts.some((x) => x.startsWith('pack::') || x.startsWith('unpack::'))) unsupported(`PTX instruction '${mn}' (16-bit packing)`, n);
  if (parts.some((x) => x.startsWith('red') || x === 'min' || x === 'max')) unsupported(`PTX instruction '${mn}' (load with reduction)`, n);
  const num = Number(/^x(\d+)$/.exec(parts.find((x) => /^x\d+$/.test(x)) ?? '')?.[1]);
  if (!TMEM_REPEATS.includes(num as (typeof TMEM_REPEATS)[number])) fail(`${mn}: the repetition .x1 … .x128 is missing or invalid`, n);
  const split = shape === '16x32bx2';
  // ld: {regs}, [taddr][, imm]; st: [taddr][, imm], {regs}.
  const regsOp = op === 'ld' ? o[0] : o[o.length - 1];
  const addrOp = op === 'ld' ? o[1] : o[0];
  const immOp = split ? (op === 'ld' ? o[2] : o[1]) : undefined;
  if (!regsOp || !addrOp || (split && !immOp)) fail(`${mn}: expected ${op === 'ld' ? `{r…}, [taddr]${split ? ', immHalfSplitoff' : ''}` : `[taddr]${split ? ', immHalfSplitoff' : ''}, {r…}`}`, n);
  const regs = regsOp.replace(/[{}]/g, '').split(',').map((x) => x.trim());
  const count = tmemRegisters(shape, num);
  if (regs.length !== count) fail(`${mn}: ${regs.length} registers, the shape and .x${num} need ${count}`, n);
  const dsts = op === 'ld' ? regs.map((x) => s.dest(x)) : [];
  const srcs = op === 'st' ? regs.map((x) => s.value(x)) : [];
  const a = s.value(addrOp.replace(/[[\]]/g, ''));
  const imm = immOp ? s.value(immOp) : undefined;
  const lanes = tmemLanes(shape);
  /** The index in tensor memory of register `j` of thread `l`. */
  const cellOf = (warp: number, addr: number, half: number, l: number, j: number): number => {
    const lane0 = addr >>> 16;
    const slab = (warp % 4) * 32;
    if (lane0 < slab || lane0 + lanes > slab + 32) throw new SimError(`tcgen05.${op}: warp ${warp} may only access TMEM lanes ${slab}..${slab + 31}; .${shape} from lane ${lane0} reaches lane ${lane0 + lanes - 1}`);
    const c = tmemCell(shape, l, j, half);
    const ln = lane0 + c.lane;
    const col = (addr & 0xffff) + c.col;
    if (ln >= TMEM_LANES || col >= TMEM_COLS) throw new SimError(`tcgen05.${op}: lane ${ln}, column ${col} is outside tensor memory`, undefined, 'oob');
    return ln * TMEM_COLS + col;
  };
  if (op === 'ld')
    return (f, r, pc) => {
      const tm = tmemOf(f.ts.blk);
      const addr = Number(a(r, f)) >>> 0;
      const half = imm ? Number(imm(r, f)) : 0;
      for (let j = 0; j < count; j++) r[dsts[j]] = tm[cellOf(f.ts.t.warp, addr, half, f.ts.t.lane, j)];
      return pc + 1;
    };
  // A store is one warp-wide write (.sync.aligned): the lanes meet, and the one that completes the
  // meeting writes every lane's registers, so no lane reads tensor memory the others have not yet written.
  const written = new WeakSet<object>();
  return (f, r, pc) => {
    const { m, t } = f.ts;
    const mine = { addr: Number(a(r, f)) >>> 0, half: imm ? Number(imm(r, f)) : 0, regs: srcs.map((v) => Number(v(r, f)) >>> 0) };
    const all = m.warpExchange(t, 0xffffffff, mine as unknown as number) as unknown as (typeof mine | undefined)[] | undefined;
    if (!all) return BLOCK;
    if (!written.has(all)) {
      written.add(all);
      const tm = tmemOf(f.ts.blk);
      for (let l = 0; l < 32; l++) {
        const x = all[l];
        if (!x) throw new SimError(`tcgen05.st: lane ${l} of warp ${t.warp} did not execute it (.sync.aligned: every lane of the warp must)`);
        if (x.addr !== mine.addr || x.half !== mine.half) throw new SimError(`tcgen05.st: lanes of warp ${t.warp} give different addresses (0x${x.addr.toString(16)} at lane ${l}, 0x${mine.addr.toString(16)} at lane ${t.lane}); the address must be the same in every lane`);
        for (let j = 0; j < count; j++) tm[cellOf(t.warp, x.addr, x.half, l, j)] = x.regs[j];
      }
    }
    return pc + 1;
  };
}

/**
 * The source rows of a tcgen05.cp shape and the TMEM lanes (offsets from the address's lane) each one
 * lands in: the ISA's shapes as CUTLASS's SM100_UTCCP_* traits lay them out. `.warpx4` copies its
 * 32 rows into each warp's quarter of the lanes; `.warpx2::02_13` rows 0-31 into quarters 0 and 2 and
 * rows 32-63 into 1 and 3; `.warpx2::01_23` rows 0-31 into quarters 0 and 1, rows 32-63 into 2 and 3;
 * `.4x256b` its 4 rows into the first lane of each quarter (SM100_UTCCP_4dp256bit: row r at lane 32r).
 */
const TMEM_COPY_SHAPES: Record<string, { rows: number; bits: number; lanes: (row: number) => number[] }> = {
  '128x256b': { rows: 128, bits: 256, lanes: (r) => [r] },
  '128x128b': { rows: 128, bits: 128, lanes: (r) => [r] },
  '4x256b': { rows: 4, bits: 256, lanes: (r) => [32 * r] },
  '32x128b.warpx4': { rows: 32, bits: 128, lanes: (r) => [r, r + 32, r + 64, r + 96] },
  '64x128b.warpx2::02_13': { rows: 64, bits: 128, lanes: (r) => [r, r + 64] },
  '64x128b.warpx2::01_23': { rows: 64, bits: 128, lanes: (r) => [(r & 31) + 64 * (r >> 5), (r & 31) + 64 * (r >> 5) + 32] },
};

/**
 * tcgen05.cp.cta_group::N.SHAPE [taddr], s-desc: an asynchronous copy of a matrix in shared memory
 * (the descriptor's K-major canonical layout, row i of `bits` bits) into tensor memory, row i into the
 * lanes the shape names from the address's lane, 32 bits a column from its column. It runs in the
 * issuing thread's tcgen05 order, so an MMA issued after it reads what it wrote, and tcgen05.commit
 * tracks it like an MMA. With `.cta_group::2` one thread of the pair issues it and each CTA of the pair
 * copies its own shared memory at the descriptor's address into its own tensor memory
 * (CUTLASS's SM100_UTCCP_*_2cta: ThrID 2, the CTA mode of source and destination of stride 0).
 */
function tmemCopy(s: PtxInstrSite, group: 1 | 2): PInstr {
  const { parts, mn, o, n } = s;
  const at = parts.indexOf(`cta_group::${group}`);
  if (at < 0) fail(`${mn}: the .cta_group (::1 or ::2) is missing`, n);
  if (parts.some((x) => /^b\d+x16/.test(x))) unsupported(`PTX instruction '${mn}' (decompression of 4- and 6-bit source formats)`, n);
  const key = parts.slice(at + 1).join('.');
  const shape = TMEM_COPY_SHAPES[key];
  if (!shape) unsupported(`PTX instruction '${mn}' (the modelled shapes are ${Object.keys(TMEM_COPY_SHAPES).map((x) => `.${x}`).join(', ')})`, n);
  const a = s.value((o[0] ?? fail(`${mn}: expected [taddr], s-desc`, n)).replace(/[[\]]/g, ''));
  const desc = s.value(o[1] ?? fail(`${mn}: expected [taddr], s-desc`, n));
  const words = shape.bits / 32;
  return (f, r, pc) => {
    const { m, t, blk } = f.ts;
    const addr = Number(a(r, f)) >>> 0;
    const lane0 = addr >>> 16;
    const col0 = addr & 0xffff;
    const d = smemDesc(desc(r, f) as number | bigint, mn);
    const last = Math.max(...Array.from({ length: shape.rows }, (_, i) => Math.max(...shape.lanes(i))));
    if (lane0 + last >= TMEM_LANES || col0 + words > TMEM_COLS) throw new SimError(`${mn}: lanes ${lane0}..${lane0 + last}, columns ${col0}..${col0 + words - 1} are outside tensor memory`, undefined, 'oob');
    const pair = group === 2 ? ctaPair(f.ts, mn) : undefined;
    if (group === 2 && !pair) return pc + 1;
    if (mixedGroup(f.ts, blk, col0, group, mn)) return pc + 1;
    const ctas = pair ? pair.ctas : [{ index: t.block, blk }];
    markProducer(t);
    const op = m.asyncIssue(t, 'tcgen05', `tcgen05.cp${pair ? ' (CTA pair)' : ''} .${key}`, m.lat.tcgen05, (mm: Machine) => {
      for (const c of ctas) {
        const tm = tmemOf(c.blk);
        const read: number[] = [];
        for (let i = 0; i < shape.rows; i++)
          for (let w = 0; w < words; w++) {
            const sa = elementAddress(d, true, 4, i, w);
            const p = fromSharedAddress(c.blk, sa);
            read.push(sa);
            const v = loadU32(p.buf, p.offset);
            for (const ln of shape.lanes(i)) tm[(lane0 + ln) * TMEM_COLS + col0 + w] = v;
          }
        for (const x of sharedChunks(c.blk, read)) mm.accessAsync(op, x.buf, x.offset, x.size, false);
      }
    });
    m.asyncEffects(op, { writesTmem: true, tmemBlocks: pair ? ctas.map((c) => c.index) : undefined });
    return pc + 1;
  };
}

const loadU32 = loader('u32');

/** A tcgen05 operand descriptor (core/sim/wgmma.ts decodeUmmaDescriptor), refused with the instruction's name. */
function smemDesc(desc: number | bigint, what: string): MatrixDescriptor {
  let d: MatrixDescriptor;
  try {
    d = decodeUmmaDescriptor(desc);
  } catch (e) {
    throw new SimError(`${what}: ${(e as Error).message}`, undefined, 'unsupported');
  }
  if (d.baseOffset) throw new SimError(`${what}: matrix base offset ${d.baseOffset} is not modelled`, undefined, 'unsupported');
  return d;
}

/**
 * tcgen05.mma.cta_group::N.kind::f16: D (f32 in tensor memory) = A x B (+ D), K = 16. With
 * `.cta_group::2` one thread of the CTA pair issues it for both CTAs: A's rows and D's rows split
 * across the pair (first half in the even CTA), B's N columns likewise, every CTA's part at the same
 * descriptor and tensor-memory addresses (tcgen05-pair.ts).
 */
function issueMma(ts: ThreadCtx, dAddr: number, aDesc: number | bigint, bDesc: number | bigint, idesc: number, accumulate: boolean, mn: string, group: 1 | 2): void {
  const { m, t, blk } = ts;
  const dfmt = (idesc >>> 4) & 3;
  const afmt = (idesc >>> 7) & 7;
  const bfmt = (idesc >>> 10) & 7;
  const transA = (idesc >>> 15) & 1;
  const transB = (idesc >>> 16) & 1;
  const N = ((idesc >>> 17) & 0x3f) << 3;
  const M = ((idesc >>> 24) & 0x1f) << 4;
  if (dfmt !== 1) throw new SimError(`${mn}: only an f32 accumulator is modelled (instruction descriptor D format ${dfmt})`, undefined, 'unsupported');
  if (afmt > 1 || bfmt > 1) throw new SimError(`${mn}: operand formats ${afmt}/${bfmt} are not f16/bf16`, undefined, 'unsupported');
  // The ISA's shapes for kind::f16 (Table 39): ::1 M = 64 or 128, N = 8..256 in steps of 8; ::2 M = 128 or 256, N = 16..256 in steps of 16.
  const shapes = group === 1 ? [64, 128] : [128, 256];
  if (!shapes.includes(M)) throw new SimError(`${mn}: M = ${M} is not a .cta_group::${group} shape of kind::f16 (M = ${shapes.join(' or ')})`);
  if (N < 8 * group || N > 256 || N % (8 * group) !== 0) throw new SimError(`${mn}: N = ${N} is not a .cta_group::${group} shape of kind::f16 (N = ${8 * group}..256 in steps of ${8 * group})`);
  const A = smemDesc(aDesc, mn);
  const B = smemDesc(bDesc, mn);
  const K = 16;
  const dl = dAddr >>> 16;
  const dc = dAddr & 0xffff;
  const pair = group === 2 ? ctaPair(ts, mn) : undefined;
  if (group === 2 && !pair) return;
  const ctas = pair ? pair.ctas : [{ index: t.block, blk }];
  if (mixedGroup(ts, blk, dc, group, mn)) return;
  for (const corner of [accumulatorCell(group, M, N, dl, dc, 0, 0), accumulatorCell(group, M, N, dl, dc, M - 1, N - 1), accumulatorCell(group, M, N, dl, dc, M / group - 1, N - 1)])
    if (corner.lane >= TMEM_LANES || corner.col >= TMEM_COLS) throw new SimError(`${mn}: the ${M}x${N} accumulator at lane ${dl}, column ${dc} reaches lane ${corner.lane}, column ${corner.col}, outside tensor memory`, undefined, 'oob');
  if (pair) pairIssuedOnce(ts, pair, dAddr, mn);
  markProducer(t);
  t.role = t.role === 'producer' ? 'mma' : t.role;
  const ldA = loader(afmt === 1 ? 'bf16' : 'f16');
  const ldB = loader(bfmt === 1 ? 'bf16' : 'f16');
  const label = `tcgen05.mma${group === 2 ? ' (CTA pair)' : ''} ${M}x${N}x${K}`;
  const op = m.asyncIssue(t, 'tcgen05', label, m.lat.tcgen05, (mm: Machine) => {
    // Element (row, k) in the canonical layouts, K-major or (transposed) MN-major, with the descriptor's
    // swizzle; with a pair, row i of A (of B: column i) is row i mod rows/2 in CTA floor(i / (rows/2)).
    const aVals = new Float64Array(M * K);
    const bVals = new Float64Array(N * K);
    const reads: number[][] = ctas.map(() => []);
    const load = (d: MatrixDescriptor, mnMajor: number, ld: typeof ldA, rows: number, into: Float64Array) => {
      const per = rows / ctas.length;
      for (let i = 0; i < rows; i++) {
        const c = Math.floor(i / per);
        for (let k = 0; k < K; k++) {
          const addr = elementAddress(d, !mnMajor, 2, i - c * per, k);
          const p = fromSharedAddress(ctas[c].blk, addr);
          into[i * K + k] = ld(p.buf, p.offset);
          reads[c].push(addr);
        }
      }
    };
    load(A, transA, ldA, M, aVals);
    load(B, transB, ldB, N, bVals);
    ctas.forEach((c, i) => {
      for (const x of sharedChunks(c.blk, reads[i])) mm.accessAsync(op, x.buf, x.offset, x.size, false);
    });
    const tms = ctas.map((c) => tmemOf(c.blk));
    const dv = new DataView(new ArrayBuffer(4));
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        let s = 0;
        for (let k = 0; k < K; k++) s += aVals[i * K + k] * bVals[j * K + k];
        const at = accumulatorCell(group, M, N, dl, dc, i, j);
        const tm = tms[at.cta];
        const cell = at.lane * TMEM_COLS + at.col;
        dv.setUint32(0, tm[cell]);
        const prev = accumulate ? dv.getFloat32(0) : 0;
        dv.setFloat32(0, Math.fround(prev + s));
        tm[cell] = dv.getUint32(0);
      }
  });
  m.asyncEffects(op, { writesTmem: true, tmemBlocks: pair ? ctas.map((c) => c.index) : undefined });
  if (pair) (pair.ctas[0].blk.pairMmas ??= new Map()).set(dAddr, { rank: pair.rank, thread: t.index, loc: op.loc, op });
}

/**
 * One thread of the pair issues the pair's MMA for both CTAs (ISA 9.7.16.5, Table 46): a pair MMA on
 * the accumulator at `dAddr` while one the peer CTA issued on it is still in flight means both CTAs
 * issue it, and every product lands twice.
 */
function pairIssuedOnce(ts: ThreadCtx, pair: CtaPair, dAddr: number, mn: string): void {
  const last = pair.ctas[0].blk.pairMmas?.get(dAddr);
  if (!last || last.rank === pair.rank || last.op.done) return;
  ts.m.reportMisuse(
    ts.t,
    `${mn}: both CTAs of the pair issue the pair MMA on the accumulator at tensor-memory address 0x${dAddr.toString(16)} (CTA rank ${last.rank} at ${last.loc ? lineOf(last.loc) : 'an unknown line'}, still in flight, and CTA rank ${pair.rank} here); one thread of the CTA pair issues a .cta_group::2 MMA for both CTAs, so each product would be accumulated twice`,
    { thread: last.thread, loc: last.loc },
  );
}
