// Warp-lockstep rows for inline asm whose one effect is an mbarrier arrival or a blocking wait
// (`mbarrier.arrive.shared::cta.b64 _, [%0];`, ThunderKittens' and CuTe's try_wait.parity loops):
// a converged warp's lanes arrive in one update or wait in one call (barrier-runtime.ts arriveRow,
// MbarrierServices.mbWaitLanes) instead of running the asm block lane by lane. Everything else in
// the block must only move registers (branches, mov, setp, selp, integer arithmetic), so a lane's
// instructions before and after the effect can run apart from its warp-mates' without changing
// what anyone observes; what the effect gives each lane (a wait passes or blocks, an arrival's
// token) is known before it happens, so a lane whose rest would reach another effect declines the
// row before anything is done.
import type { SimBarrier, SimThread } from '../../../sim/machine';
import { arriveRow, markWaiter, NO_THREAD } from './barrier-runtime';
import type { Ex } from './context';
import type { Operand, PInstr, Regs } from './ptx-site';
import type { Frame, RowFx } from './runtime';

/** What a row needs of an mbarrier instruction (ptx.ts attaches it to the instruction it compiles). */
export type MbarrierRowOp =
  | { kind: 'arrive'; bar: (f: Frame, r: Regs) => SimBarrier; dst: number; count: number }
  | { kind: 'wait'; bar: (f: Frame, r: Regs) => SimBarrier; value: Operand; parity: boolean; dst: number };

export type RowPInstr = PInstr & { rowOp?: MbarrierRowOp };

/** Instructions that only read and write the block's registers. */
const REGISTER_ONLY = new Set(['', 'bra', 'mov', 'setp', 'selp', 'add', 'sub', 'mul', 'and', 'or', 'xor', 'shl', 'shr']);

/** Steps a lane may take through register-only instructions before the row gives up (a loop). */
const MAX_PURE_STEPS = 1000;

export interface AsmBlock {
  instrs: RowPInstr[];
  mnemonics: string[];
  nregs: number;
  /** The asm statement's identity in ThreadCtx.asmResume. */
  key: object;
  inputs: (Ex | undefined)[];
  /** Output operands: where each goes (register variables only: their stores cannot fault). */
  outStores: ({ st: (f: Frame, v: unknown) => void; toValue: (v: unknown) => unknown } | undefined)[];
}

/** The row form of `block`, when it has exactly one effect and that effect has a row; else undefined. */
export function asmRow(block: AsmBlock): RowFx | undefined {
  const { instrs, nregs, key, inputs, outStores } = block;
  const effects = block.mnemonics.flatMap((mn, i) => (REGISTER_ONLY.has(mn.split('.')[0]) ? [] : [i]));
  if (effects.length !== 1) return undefined;
  const eff = effects[0];
  const op = instrs[eff].rowOp;
  if (!op) return undefined;
  const count = instrs.length;
  const regs: Regs[] = [];
  const after: Regs[] = [];
  const resumed: boolean[] = [];
  const lanes: SimThread[] = [];
  const values: number[] = [];
  const passes: boolean[] = [];
  const tokens: unknown[] = [];
  // The barrier the current row's lanes arrive on, for the arrival row made once here.
  let rowBarrier: SimBarrier | undefined;
  const arrive = op.kind === 'arrive' ? arriveRow(() => rowBarrier, op.count) : undefined;

  /** Runs register-only instructions of lane `f` from `pc` until `stop` (or the end when stop < 0); false when it would go elsewhere. */
  const runPure = (f: Frame, r: Regs, pc: number, stop: number): boolean => {
    for (let steps = 0; pc !== stop; steps++) {
      if (pc >= count) return stop < 0;
      if (pc === eff || steps > MAX_PURE_STEPS) return false;
      pc = instrs[pc](f, r, pc);
      if (pc < 0) return false;
    }
    return true;
  };

  // A compiled kernel outlives its run (compile-cache.ts): the scratch keeps nothing of it between rows.
  const forget = (n: number): void => {
    regs.fill(NONE, 0, n);
    after.fill(NONE, 0, n);
    lanes.fill(NO_THREAD, 0, n);
    rowBarrier = undefined;
  };
  const run = (fs: readonly Frame[], n: number, out: unknown[]): boolean => {
    let b: SimBarrier | undefined;
    try {
      for (let j = 0; j < n; j++) {
        const f = fs[j];
        const res = f.ts.asmResume;
        let r: Regs;
        let pc = 0;
        if (res && res.key === key) {
          r = res.regs;
          pc = res.pc;
          resumed[j] = true;
        } else {
          r = new Array(nregs);
          for (let i = 0; i < inputs.length; i++) {
            const inp = inputs[i];
            if (inp) r[i] = inp.ev(f);
          }
          resumed[j] = false;
        }
        if (pc !== eff && !runPure(f, r, pc, eff)) return false;
        regs[j] = r;
        lanes[j] = f.ts.t;
        const bj = op.bar(f, r);
        if (j === 0) b = bj;
        else if (bj !== b) return false;
      }
      if (!b || (op.kind === 'arrive' && b.onComplete)) return false;
      // What the effect will give each lane, then the rest of its block on a copy of its registers.
      const mb = b.mb;
      for (let j = 0; j < n; j++) {
        const f = fs[j];
        let give: unknown;
        if (op.kind === 'wait') {
          const v = Number(op.value(regs[j], f));
          values[j] = v;
          passes[j] = mb.waitDone(op.parity, v);
          give = 1;
        } else {
          passes[j] = true;
          give = mb.state.phase;
        }
        if (!passes[j]) continue;
        const r = regs[j].slice();
        if (op.dst >= 0) r[op.dst] = give;
        if (!runPure(f, r, eff + 1, -1)) return false;
        after[j] = r;
      }
    } catch {
      return false; // the lanes run one by one, and the one that faults reports
    }
    // The effect, for all lanes at once (or nothing, when a lane would report).
    if (op.kind === 'wait') {
      if (!fs[0].ts.m.mbarriers.mbWaitLanes(lanes, n, b, values, op.parity, tokens)) return false;
      for (let j = 0; j < n; j++) markWaiter(lanes[j], b);
    } else {
      rowBarrier = b;
      if (!arrive!(fs, n, tokens)) return false;
    }
    for (let j = 0; j < n; j++) {
      const f = fs[j];
      const ts = f.ts;
      if (op.kind === 'wait' && tokens[j] === undefined) {
        ts.asmResume = { key, pc: eff, regs: regs[j] };
        out[j] = undefined;
        continue;
      }
      if (resumed[j]) ts.asmResume = undefined;
      const r = after[j];
      for (let i = 0; i < outStores.length; i++) {
        const o = outStores[i];
        if (o) o.st(f, o.toValue(r[i]));
      }
      out[j] = 0;
    }
    return true;
  };
  return (fs, n, out) => {
    try {
      return run(fs, n, out);
    } finally {
      forget(n);
    }
  };
}

const NONE: Regs = [];
