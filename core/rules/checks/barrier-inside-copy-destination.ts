// PF309: an mbarrier whose 8 bytes lie inside the shared-memory destination of a bulk/TMA copy.
import type { Range } from '../../api';
import type { Expr, Stmt } from '../../ir/types';
import type { KernelFacts } from '../../analysis/facts';
import { visitStmts } from '../../ir/visit';
import { exprKey, walkExpr } from '../../ir/expr';
import type { RuleDef } from '../types';
import { barrierName, line1 } from '../naming';

/** A byte offset as a constant plus non-negative-atom terms (`hidden_bytes`, a kernel parameter); atoms are sizes. */
interface Linear {
  c: number;
  terms: Map<string, number>;
}

function combine(a: Linear, b: Linear, k: number): Linear {
  const terms = new Map(a.terms);
  for (const [n, v] of b.terms) {
    const s = (terms.get(n) ?? 0) + k * v;
    if (s === 0) terms.delete(n);
    else terms.set(n, s);
  }
  return { c: a.c + k * b.c, terms };
}

function scale(a: Linear, k: number): Linear {
  return { c: a.c * k, terms: new Map([...a.terms].filter(([, v]) => v * k !== 0).map(([n, v]) => [n, v * k])) };
}

/** Names whose value never changes after their declaration (so one name is one value everywhere in the kernel). */
function stableNames(facts: KernelFacts): (name: string) => boolean {
  const changed = new Set<string>();
  const declared = new Set<string>();
  visitStmts(facts.kernel.body, (s) => {
    if (s.kind !== 'assign' || s.op === 'call-arg') return;
    if (s.declared && s.op === '=' && !declared.has(s.target)) declared.add(s.target);
    else changed.add(s.target);
  });
  return (name) => !changed.has(name);
}

function linear(e: Expr, env: (n: string) => number | undefined, stable: (n: string) => boolean): Linear | undefined {
  switch (e.kind) {
    case 'num':
      return Number.isInteger(e.value) ? { c: e.value, terms: new Map() } : undefined;
    case 'var': {
      const v = env(e.name);
      if (v !== undefined) return { c: v, terms: new Map() };
      return stable(e.name) ? { c: 0, terms: new Map([[e.name, 1]]) } : undefined;
    }
    case 'member': {
      // `blockIdx.y`, `params.hidden`: one value per thread when its root never changes.
      let root: Expr = e;
      while (root.kind === 'member') root = root.object;
      const builtin = root.kind === 'var' && /^(threadIdx|blockIdx|blockDim|gridDim)$/.test(root.name);
      return builtin || (root.kind === 'var' && stable(root.name)) ? { c: 0, terms: new Map([[e.text.replace(/\s+/g, ''), 1]]) } : undefined;
    }
    case 'binary': {
      const l = linear(e.left, env, stable);
      const r = linear(e.right, env, stable);
      if (!l || !r) return undefined;
      if (e.op === '+') return combine(l, r, 1);
      if (e.op === '-') return combine(l, r, -1);
      if (e.op === '*' && r.terms.size === 0) return scale(l, r.c);
      if (e.op === '*' && l.terms.size === 0) return scale(r, l.c);
      if (e.op === '<<' && r.terms.size === 0 && r.c >= 0 && r.c < 31) return scale(l, 2 ** r.c);
      // Anything else over stable names (`warp / 2`, `a * b`) is one value: an atom of its own, keyed by its text.
      return atom(e, stable);
    }
    case 'call':
    case 'unary':
    case 'cond':
      return atom(e, stable);
    default:
      return undefined;
  }
}

/** A sub-expression whose names never change, as one non-negative atom (the same text is the same value). */
function atom(e: Expr, stable: (n: string) => boolean): Linear | undefined {
  let ok = true;
  walkExpr(e, (x) => {
    if (x.kind === 'var' && !/^(threadIdx|blockIdx|blockDim|gridDim)$/.test(x.name) && !stable(x.name)) ok = false;
    if (x.kind === 'index' || (x.kind === 'call' && !/^(min|max|std::min|std::max)$/.test(x.callee))) ok = false;
  });
  return ok ? { c: 0, terms: new Map([[exprKey(e), 1]]) } : undefined;
}

/** The least value a linear form takes when its atoms are non-negative; undefined when it has no least value. */
function least(a: Linear): number | undefined {
  return [...a.terms.values()].every((v) => v > 0) ? a.c : undefined;
}

const BARRIER_BYTES = 8;

export const barrierInsideCopyDestination: RuleDef = {
  meta: {
    id: 'barrier-inside-copy-destination',
    code: 'PF309',
    family: 'commit',
    defaultSeverity: 'error',
    summary: "An mbarrier's storage lies inside the shared-memory destination of a bulk/TMA copy, which overwrites it.",
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Reports a `cp.async.bulk` copy into shared memory whose destination range `[dst, dst + bytes)` covers an mbarrier declared in the same buffer (`reinterpret_cast<uint64_t*>(buf + off)`). Both addresses are read as byte offsets from the same buffer, through local aliases and helper parameters (headers included); offsets and byte counts are folded from constants and template arguments, and names the kernel never reassigns cancel out (`buf + hidden_bytes` against a copy of `hidden_bytes + 16` bytes into `buf`). Sizes held in single-definition locals are read through them. When the bytes past the barrier\'s offset are a sum of sizes that may each be zero (`hidden_bytes + (scale_aligned ? scale_bytes : 0)` copied into a buffer whose barrier sits at `+ hidden_bytes`), the copy covers the barrier whenever one of them is not, and the message names them. When an offset or a size cannot be read, or the barrier may lie past the copy\'s end, the rule stays silent.',
    whyIsThisBad:
      "The copy writes its data over the barrier's 8 bytes while the barrier is counting the copy's transaction bytes: the arrival count, phase and tx-count become whatever the data says. The phase then never completes (the waiters hang) or completes at once (they read a half-written tile), and the next phases of the barrier are garbage. DeepEP shipped this twice (its dispatch and combine kernels put the TMA barrier at `tma_buffer + hidden_bytes` while the per-token copy spans more than `hidden_bytes`).",
    bad: `__global__ void k(const int4* src) {
  extern __shared__ __align__(1024) uint8_t smem[];
  auto bar = reinterpret_cast<uint64_t*>(smem + 512);
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  const uint32_t dst_addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar_addr));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(dst_addr), "l"(src), "r"(1024), "r"(bar_addr) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar_addr), "r"(1024) : "memory");
  }
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }" :: "r"(bar_addr), "r"(0) : "memory");
}`,
    good: `__global__ void k(const int4* src) {
  extern __shared__ __align__(1024) uint8_t smem[];
  auto bar = reinterpret_cast<uint64_t*>(smem + 1024);
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  const uint32_t dst_addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar_addr));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(dst_addr), "l"(src), "r"(1024), "r"(bar_addr) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar_addr), "r"(1024) : "memory");
  }
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }" :: "r"(bar_addr), "r"(0) : "memory");
}`,
    references: ['PTX ISA, cp.async.bulk (destination operand) and mbarrier (object contents are opaque; modifying them other than through mbarrier instructions is undefined)', 'DeepEP commits 24324cc and 0970c4c (barrier moved past num_bytes_per_token)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const consts = new Map(k.kernel.constants ?? k.module.constants);
      for (const t of k.kernel.launchShape?.templateArgs ?? []) consts.set(t.name, t.value);
      const env = (n: string): number | undefined => consts.get(n);
      const stable = stableNames(k);
      // One storage per barrier identity (base and slot): the first op that says where it lives.
      const barriers = new Map<string, (typeof k.sites)[number]>();
      for (const s of k.sites) {
        const st = s.op.barrier?.storage;
        if (!st || !st.via.every(stable)) continue;
        const key = `${s.op.barrier!.base}|${s.op.barrier!.index?.text ?? ''}`;
        if (!barriers.has(key)) barriers.set(key, s);
      }
      for (const copy of k.sites) {
        const dst = copy.op.dst;
        if (copy.op.kind !== 'bulk-copy' || !dst || !copy.op.bytes || !dst.via.every(stable)) continue;
        // Offsets and the byte count are read through single-definition locals (`tma_load_bytes = hidden_bytes +
        // (aligned ? scale_bytes : 0)`), all of them alike, so that the same size cancels out.
        const d = linear(k.resolve(dst.offset), env, stable);
        const n = linear(k.resolve(copy.op.bytes), env, stable);
        const bytes = n ? least(n) : undefined;
        if (!d || !n || bytes === undefined) continue;
        for (const bar of barriers.values()) {
          const st = bar.op.barrier!.storage!;
          if (st.base !== dst.base) continue;
          const b = linear(k.resolve(st.offset), env, stable);
          if (!b) continue;
          // The barrier's offset from the copy's start: a number, or a sum of sizes (`hidden_bytes`), so never negative.
          const delta = combine(b, d, -1);
          if (delta.terms.size && least(delta) === undefined) continue;
          // Overlap of [delta, delta + 8) with [0, bytes): bytes is at least `least(n - delta)` above delta.
          const rest = combine(n, delta, -1);
          const after = least(rest);
          if (delta.c <= -BARRIER_BYTES || after === undefined) continue;
          // The bytes past the barrier's offset are a sum of sizes that may be zero (`hidden + (aligned ? scales : 0)`
          // against a barrier at `+ hidden`): the copy covers the barrier whenever one of them is not.
          const whenever = after <= 0 && rest.c === 0 && rest.terms.size > 0 && delta.c >= 0 ? [...rest.terms.keys()] : undefined;
          if (after <= 0 && !whenever) continue;
          const init = k.sites.find((s) => s.op.kind === 'init' && s.op.barrier?.base === bar.op.barrier!.base) ?? bar;
          const sizes = [...delta.terms].map(([t, v]) => (v === 1 ? t : `${v} * ${t}`));
          const offset = delta.terms.size ? `\`${sizes.join(' + ')}${delta.c ? ` + ${delta.c}` : ''}\`` : `${delta.c}`;
          ctx.report({
            range: copy.op.range,
            message: `This bulk copy writes ${copy.op.bytes.text} bytes into \`${dst.text}\`, and that range holds the mbarrier \`${barrierName(bar.op)}\` (${offset} bytes past the copy's start${whenever ? `, covered whenever \`${whenever.join(' + ')}\` is not zero` : ''}; initialised at line ${line1(init.op.range)}): the copy overwrites the barrier's state while it counts the copy's transaction bytes, so its phase never completes (waiters hang) or completes early (they read a half-written buffer). Place the barrier past the copy's last byte.`,
            related: [{ range: init.op.range, message: `mbarrier \`${barrierName(bar.op)}\` lives inside the copy's destination` }],
          });
        }
      }
      // Plain stores through a pointer onto a barrier's 8 bytes while the barrier is still used afterwards.
      const stores: { stmt: Extract<Stmt, { kind: 'access' }>; loops: Stmt[] }[] = [];
      const walk = (list: Stmt[], loops: Stmt[]): void => {
        for (const s of list) {
          if (s.kind === 'access' && s.write && s.address && s.address.via.every(stable)) stores.push({ stmt: s, loops });
          else if (s.kind === 'if') {
            walk(s.then, loops);
            walk(s.else, loops);
          } else if (s.kind === 'loop') walk(s.body, [...loops, s]);
        }
      };
      walk(k.kernel.body, []);
      const reported = new Set<string>();
      for (const { stmt, loops } of stores) {
        const at = linear(stmt.address!.offset, env, stable);
        if (!at) continue;
        for (const [key, bar] of barriers) {
          const st = bar.op.barrier!.storage!;
          const b = st.base === stmt.address!.base ? linear(st.offset, env, stable) : undefined;
          if (!b || reported.has(key)) continue;
          const delta = combine(at, b, -1);
          // The store starts inside the barrier's 8 bytes (its own size is not needed to know it overwrites them).
          if (delta.terms.size || delta.c < 0 || delta.c >= BARRIER_BYTES) continue;
          const uses = k.sites.filter((u) => u.op.barrier?.base === bar.op.barrier!.base && u.op.kind !== 'init');
          const later = uses.find((u) => after(u.op.range, stmt.range) || loops.some((l) => k.loops(u).includes(l as never)));
          const init = k.sites.find((u) => u.op.kind === 'init' && u.op.barrier?.base === bar.op.barrier!.base);
          if (!later || !init || !after(stmt.range, init.op.range)) continue;
          reported.add(key);
          ctx.report({
            range: init.op.range,
            message: `The mbarrier \`${bar.op.barrier!.base.replace(/#\d+$/, '')}\` initialised here lives inside \`${st.base}\`, but the store at line ${line1(stmt.range)} writes to the same address while the barrier is still in use (line ${line1(later.op.range)}): the store overwrites its phase and pending counts, so its waits never complete (hang) or pass early. Give the barrier its own bytes, past everything the buffer holds.`,
            related: [
              { range: stmt.range, message: 'the store over the barrier' },
              { range: later.op.range, message: 'a later use of the barrier' },
            ],
          });
        }
      }
    }
  },
};

/** Whether `a` starts after `b` starts (same file). */
function after(a: Range, b: Range): boolean {
  return a.file === b.file && (a.start.line > b.start.line || (a.start.line === b.start.line && a.start.character > b.start.character));
}
