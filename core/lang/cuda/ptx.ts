// Inline-PTX reader: turns the text of an `asm("...")` statement into barrier-relevant instructions
// with their operand references (%0, %[name], literals). It knows mnemonics, not C++.
import type { OpKind } from '../../ir/types';

export interface PtxInstr {
  mnemonic: string;
  op?: OpKind;
  sync?: 'block' | 'named' | 'cluster-arrive' | 'cluster-wait' | 'warp';
  /** Operand references as written (`%0`, `%[bar]`, `_`, `p`, literals). */
  barrier?: string;
  count?: string;
  bytes?: string;
  parity?: string;
  token?: string;
  /** Destination of a returned state/predicate. */
  result?: string;
  /** `mapa dest, src, cta`: dest addresses the same barrier as src, in another CTA. */
  mapa?: { dest: string; src: string };
  /** The instruction sits in a retry loop inside the asm block itself. */
  loops?: boolean;
  remote?: boolean;
}

/** Splits operands at top-level commas, respecting [] and {}. */
export function splitOperands(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '[' || ch === '{') depth++;
    if (ch === ']' || ch === '}') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** `[%0]` / `[%0+8]` / `[%[bar]]` -> `%0` / `%[bar]`. */
function addr(op: string | undefined): string | undefined {
  if (!op) return undefined;
  const m = /^\[\s*(%\[\w+\]|%\w+|[A-Za-z_]\w*)/.exec(op);
  return m ? m[1] : op;
}

export const KNOWN_PTX_PREFIXES = [
  'mbarrier.', 'cp.async', 'tcgen05.', 'fence.', 'bar.', 'barrier.', 'wgmma.', 'elect.', 'mapa', 'setmaxnreg', 'membar', 'st.', 'ld.', 'mov', 'selp', 'bra', 'and', 'or', 'add', 'sub', 'mul', 'shl', 'shr', 'cvt', 'setp', 'nanosleep', 'ret', 'exit',
];

export function parsePtxAsm(text: string): PtxInstr[] {
  const cleaned = text.replace(/\/\/[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
  const pieces = cleaned.split(/[;\n]/).map((p) => p.replace(/[{}]/g, ' ').trim()).filter(Boolean);
  const out: PtxInstr[] = [];
  const labels = new Map<string, number>();
  const branches: { target: string; at: number }[] = [];
  // `selp.u32 %0, 1, 0, p` copies a try_wait predicate into an output operand.
  const selects: { dest: string; pred: string }[] = [];
  for (let raw of pieces) {
    for (;;) {
      const lab = /^([A-Za-z_$][\w$]*)\s*:\s*/.exec(raw);
      if (!lab) break;
      labels.set(lab[1], out.length);
      raw = raw.slice(lab[0].length);
    }
    raw = raw.replace(/^@!?\s*[%\w]+\s+/, '');
    if (!raw || raw.startsWith('.reg') || raw.startsWith('.pragma')) continue;
    const sp = raw.search(/\s/);
    const mnemonic = sp < 0 ? raw : raw.slice(0, sp);
    const operands = sp < 0 ? [] : splitOperands(raw.slice(sp + 1));
    if (mnemonic.startsWith('bra')) {
      branches.push({ target: operands[0] ?? '', at: out.length });
      continue;
    }
    if (mnemonic.startsWith('selp') && operands.length === 4) selects.push({ dest: operands[0], pred: operands[3] });
    const ins = classify(mnemonic, operands);
    if (ins) out.push(ins);
  }
  for (const ins of out) {
    if ((ins.op === 'wait-parity' || ins.op === 'wait-token') && ins.result && !ins.result.startsWith('%')) {
      const sel = selects.find((x) => x.pred === ins.result);
      if (sel) ins.result = sel.dest;
    }
  }
  // A try_wait followed by a backward branch to a label at or before it retries until success.
  for (const b of branches) {
    const target = labels.get(b.target);
    if (target === undefined) continue;
    for (let i = target; i < b.at; i++) {
      if (out[i]?.op === 'wait-parity' || out[i]?.op === 'wait-token') out[i].loops = true;
    }
  }
  return out;
}

function classify(m: string, ops: string[]): PtxInstr | undefined {
  const parts = m.split('.');
  const has = (q: string): boolean => m.includes(q);
  if (m.startsWith('mbarrier.')) {
    const verb = parts[1];
    const remote = /\.shared::cluster/.test(m);
    switch (verb) {
      case 'init':
        return { mnemonic: m, op: 'init', barrier: addr(ops[0]), count: ops[1] };
      case 'inval':
        return { mnemonic: m, op: 'inval', barrier: addr(ops[0]) };
      case 'arrive':
        if (has('.expect_tx')) return { mnemonic: m, op: 'arrive-expect-tx', result: ops[0], barrier: addr(ops[1]), bytes: ops[2], count: '1', remote };
        return { mnemonic: m, op: 'arrive', result: ops[0], barrier: addr(ops[1]), count: ops[2] ?? '1', remote };
      case 'arrive_drop':
        return { mnemonic: m, op: 'arrive-drop', result: ops[0], barrier: addr(ops[1]), count: ops[2] ?? '1', remote, ...(has('.expect_tx') ? { bytes: ops[2], count: '1' } : {}) };
      case 'expect_tx':
        return { mnemonic: m, op: 'expect-tx', barrier: addr(ops[0]), bytes: ops[1], remote };
      case 'complete_tx':
        return { mnemonic: m, op: 'complete-tx', barrier: addr(ops[0]), bytes: ops[1], remote };
      case 'try_wait':
      case 'test_wait':
        if (parts[2] === 'parity') return { mnemonic: m, op: 'wait-parity', result: ops[0], barrier: addr(ops[1]), parity: ops[2] };
        return { mnemonic: m, op: 'wait-token', result: ops[0], barrier: addr(ops[1]), token: ops[2] };
      default:
        return undefined;
    }
  }
  if (m.startsWith('cp.async.bulk')) {
    if (!has('mbarrier::complete_tx')) return undefined;
    const remote = has('.multicast::cluster');
    if (parts[3] === 'tensor' || parts[2] === 'tensor') return { mnemonic: m, op: 'bulk-copy', barrier: addr(ops[2]), remote };
    return { mnemonic: m, op: 'bulk-copy', barrier: addr(ops[3]), bytes: ops[2], remote };
  }
  if (m.startsWith('cp.async.mbarrier.arrive')) {
    return { mnemonic: m, op: has('.noinc') ? 'cp-async-arrive-noinc' : 'cp-async-arrive', barrier: addr(ops[0]) };
  }
  if (m.startsWith('cp.async.wait_group') || m.startsWith('cp.async.wait_all')) return { mnemonic: m, op: 'cp-async-wait' };
  if (m.startsWith('cp.async.ca') || m.startsWith('cp.async.cg')) return { mnemonic: m, op: 'cp-async', bytes: ops[2] };
  if (m.startsWith('tcgen05.mma')) return { mnemonic: m, op: 'mma' };
  if (m.startsWith('tcgen05.commit') && has('mbarrier::arrive')) {
    return { mnemonic: m, op: 'mma-commit-arrive', barrier: addr(ops[0]), remote: has('.multicast') };
  }
  if (m.startsWith('mapa')) return { mnemonic: m, mapa: { dest: ops[0], src: ops[1] } };
  if (m.startsWith('fence.mbarrier_init')) return { mnemonic: m, op: 'fence-init' };
  if (m.startsWith('fence.proxy.async')) return { mnemonic: m, op: 'fence-proxy-async' };
  if (m.startsWith('barrier.cluster.arrive')) return { mnemonic: m, sync: 'cluster-arrive' };
  if (m.startsWith('barrier.cluster.wait')) return { mnemonic: m, sync: 'cluster-wait' };
  if (/^(bar|barrier)\.(sync|red)/.test(m) || m === 'bar.sync' || m === 'barrier.sync') {
    // `bar.sync 0` (or no thread count) is the CTA-wide barrier __syncthreads compiles to.
    return { mnemonic: m, sync: ops.length <= 1 && (ops[0] === '0' || ops[0] === undefined) ? 'block' : 'named' };
  }
  if (/^(bar|barrier)\.arrive/.test(m)) return { mnemonic: m, sync: 'named' };
  return undefined;
}
