// The one inline-PTX reader: the text of an `asm("...")` string split into lines (labels, `@p`/`@!p`
// predicates, mnemonic, operands), shared by the front end and the simulator's PTX compiler. The front
// end's view, `parsePtxAsm`, turns those lines into barrier-relevant instructions with their operand
// references (%0, %[name], literals), classified through the catalogue. It knows mnemonics, not C++.
import type { OpKind } from '../../ir/types';
import { ptxEntry, type PtxEntry, type PtxRole } from './catalogue';
import type { SyntaxNode } from './parser';

/** One line of PTX as written. */
export interface PtxLine {
  /** Labels in front of the instruction (`LAB_WAIT:`), in order. */
  labels: string[];
  /** Guard predicate (`@p`, `@!p`). */
  pred?: { neg: boolean; reg: string };
  /** Empty for a line that holds only labels. */
  mnemonic: string;
  operands: string[];
}

/** The string of an asm statement: literal pieces (and concatenations) joined, escapes decoded. */
export function asmStringText(code: SyntaxNode): string {
  let out = '';
  const visit = (n: SyntaxNode): void => {
    if (n.type === 'string_content') out += n.text;
    else if (n.type === 'escape_sequence') out += n.text === '\\n' ? '\n' : n.text === '\\t' ? '\t' : n.text.slice(1);
    else for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(code);
  return out;
}

/** Whether an asm string is literal text only (no macro or other name spliced into a concatenation). */
export function asmStringIsLiteral(code: SyntaxNode): boolean {
  if (code.type === 'string_literal' || code.type === 'raw_string_literal') return true;
  return code.type === 'concatenated_string' && code.namedChildren.every((c) => c?.type === 'string_literal' || c?.type === 'raw_string_literal');
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

/**
 * Reads PTX text into lines. Comments go; braces that open or close a scope go (PTX scopes registers,
 * one flat namespace is enough for both readers) while braces inside operands (`{%0, %1}`) stay;
 * declarations (`.reg`, `.pragma`, `.shared`, `.local`) are dropped, keeping their labels.
 */
const count = (s: string, ch: string): number => s.split(ch).length - 1;

export function readPtxLines(text: string): PtxLine[] {
  const cleaned = text.replace(/\/\/[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
  const out: PtxLine[] = [];
  for (let raw of cleaned.split(/;|\n/)) {
    // One scope brace at either end goes, unless it closes a register list (`stmatrix [a], {%1, %2}`).
    // Trimmed by hand: `/\s*[{}]\s*$/` retries its blank run from every position of a long blank line
    // (quadratic time).
    raw = raw.trim();
    if (raw.startsWith('{') || raw.startsWith('}')) raw = raw.slice(1);
    if (raw.endsWith('{') || (raw.endsWith('}') && count(raw, '}') > count(raw, '{'))) raw = raw.slice(0, -1);
    raw = raw.trim();
    while (raw.startsWith('{') || raw.startsWith('}')) raw = raw.slice(1).trim();
    if (!raw) continue;
    const labels: string[] = [];
    for (;;) {
      const lab = /^([A-Za-z_$][\w$]*)\s*:\s*/.exec(raw);
      if (!lab) break;
      labels.push(lab[1]);
      raw = raw.slice(lab[0].length).trim();
    }
    let pred: PtxLine['pred'];
    const pm = /^@(!?)\s*(%?[\w$]+)\s+/.exec(raw);
    if (pm) {
      pred = { neg: pm[1] === '!', reg: pm[2] };
      raw = raw.slice(pm[0].length);
    }
    if (!raw || raw.startsWith('.reg') || raw.startsWith('.pragma') || raw.startsWith('.shared') || raw.startsWith('.local')) {
      if (labels.length) out.push({ labels, mnemonic: '', operands: [] });
      continue;
    }
    const sp = raw.search(/\s/);
    const mnemonic = sp < 0 ? raw : raw.slice(0, sp);
    const operands = sp < 0 ? [] : splitOperands(raw.slice(sp + 1));
    out.push({ labels, pred, mnemonic, operands });
  }
  return out;
}

// ------------------------------------------------------------------ the front end's view

export interface PtxInstr {
  mnemonic: string;
  op?: OpKind;
  sync?: 'block' | 'named' | 'cluster-arrive' | 'cluster-wait' | 'warp' | 'cluster';
  /** Operand references as written (`%0`, `%[bar]`, `_`, `p`, literals). */
  barrier?: string;
  /** A copy's shared-memory destination operand (`[%0]` read as `%0`). */
  dst?: string;
  /** A bulk store's shared-memory source operand. */
  src?: string;
  count?: string;
  bytes?: string;
  /** A multicast copy's CTA mask (`.multicast::cluster`): which CTAs of the cluster receive it. */
  mask?: string;
  parity?: string;
  token?: string;
  /** Destination of a returned state/predicate. */
  result?: string;
  /** `mapa dest, src, cta`: dest addresses the same barrier as src, in another CTA. */
  mapa?: { dest: string; src: string };
  /** The instruction sits in a retry loop inside the asm block itself. */
  loops?: boolean;
  remote?: boolean;
  /** `bar.sync a, b` / `bar.arrive a, b`: the barrier id and thread count operands as written. */
  named?: { id?: string; threads?: string; arrive: boolean };
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
  const out: PtxInstr[] = [];
  const labels = new Map<string, number>();
  const branches: { target: string; at: number }[] = [];
  // `selp.u32 %0, 1, 0, p` copies a try_wait predicate into an output operand.
  const selects: { dest: string; pred: string }[] = [];
  for (const line of readPtxLines(text)) {
    for (const l of line.labels) labels.set(l, out.length);
    const { mnemonic, operands } = line;
    if (!mnemonic) continue;
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

/** The barrier-relevant reading of one instruction, from its catalogue entry. */
function classify(written: string, ops: string[]): PtxInstr | undefined {
  // `barrier.cta.sync` is `barrier.sync` (`.cta` is the default scope).
  const m = written.replace(/^(bar|barrier)\.cta\./, '$1.');
  const e = ptxEntry(m);
  if (!e) return undefined;
  if (e.mapa) return { mnemonic: m, mapa: { dest: ops[0], src: ops[1] } };
  if (e.sync) {
    // `bar.sync 0` (or no thread count) is the CTA-wide barrier __syncthreads compiles to.
    const cta = e.ctaWideWhenIdZero && ops.length <= 1 && (ops[0] === '0' || ops[0] === undefined);
    const ins: PtxInstr = { mnemonic: m, sync: cta ? 'block' : (e.sync as PtxInstr['sync']) };
    const kind = m.split('.')[1];
    if (!cta && (kind === 'sync' || kind === 'arrive')) ins.named = { id: ops[0], threads: ops[1], arrive: kind === 'arrive' };
    return ins;
  }
  if (!e.op || (e.requires && !m.includes(e.requires))) return undefined;
  const ins: PtxInstr = { mnemonic: m, op: e.op };
  readOperands(e, ops, ins);
  if (e.remoteIf) ins.remote = m.includes(e.remoteIf);
  return ins;
}

function readOperands(e: PtxEntry, ops: string[], ins: PtxInstr): void {
  (e.operands ?? []).forEach((role: PtxRole, i) => {
    if (role === 'barrier') ins.barrier = addr(ops[i]);
    else if (role === 'dst') ins.dst = addr(ops[i]);
    else if (role === 'src') ins.src = addr(ops[i]);
    else if (role !== '-') ins[role] = ops[i];
  });
  if (e.defaults?.count !== undefined && ins.count === undefined) ins.count = e.defaults.count;
  if (e.fixed?.count !== undefined) ins.count = e.fixed.count;
}
