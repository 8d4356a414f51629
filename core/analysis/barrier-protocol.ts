// The protocol of one barrier as a hover shows it: its declaration, init count, and every operation on
// it with who executes it (from the protocol replay). Language-neutral: it reads only the kernel IR.
import type { Position, Range } from '../api';
import type { BarrierOp, KernelModule } from '../ir/types';
import { KernelFacts } from './facts';
import type { RunResult } from './protocol-run';

const OP_WORDS: Record<BarrierOp['kind'], string> = {
  init: 'init',
  inval: 'invalidate',
  arrive: 'arrive',
  'arrive-expect-tx': 'arrive + expect_tx',
  'expect-tx': 'expect_tx (no arrival)',
  'complete-tx': 'complete_tx',
  'arrive-drop': 'arrive_and_drop',
  'wait-token': 'wait (token)',
  'wait-parity': 'wait (parity)',
  'arrive-and-wait': 'arrive_and_wait',
  'bulk-copy': 'bulk/TMA copy completes tx',
  'bulk-store': 'bulk/TMA store reads shared memory',
  'bulk-wait': 'cp.async.bulk.wait_group (own bulk groups)',
  'cp-async': 'cp.async',
  'cp-async-arrive': 'cp.async.mbarrier.arrive',
  'cp-async-arrive-noinc': 'cp.async.mbarrier.arrive.noinc',
  'cp-async-wait': 'cp.async.wait_group',
  'cp-async-commit': 'cp.async.commit_group',
  'memcpy-async': 'memcpy_async',
  mma: 'tcgen05.mma',
  'mma-commit-arrive': 'tcgen05.commit arrive',
  'fence-init': 'fence.mbarrier_init',
  'fence-proxy-async': 'fence.proxy.async',
  'mma-fence': 'mma.commit / mma.wait',
  'future-issue': 'async copy (future)',
  'future-wait': 'wait (future)',
  'future-use': 'future data read',
  'future-rotate': 'swap/rotate futures',
  'tmem-alloc': 'tcgen05.alloc',
  'tmem-dealloc': 'tcgen05.dealloc',
  'tmem-access': 'tcgen05.ld/st/cp',
  'tmem-wait': 'tcgen05.wait',
  'tcgen05-fence-before': 'tcgen05.fence::before_thread_sync',
  'tcgen05-fence-after': 'tcgen05.fence::after_thread_sync',
};

/** Where an op is written: `line N` in the document, `file.cuh:N` in a header of its translation unit. */
function where(r: Range): string {
  return r.file ? `${r.file.split(/[\\/]/).pop()}:${r.start.line + 1}` : `line ${r.start.line + 1}`;
}

/**
 * Markdown describing how a barrier is used, or null when the name is not a barrier here: its declaration
 * and ring size, its init, then per role (the threads the replay finds executing the ops) what that role
 * does to it, in program order, with the slot and parity schedule each wait uses and the ops that act on
 * a peer CTA's copy; then the slots and parities the replay's first waits asked for, per role, and the cluster
 * whose CTAs each hold a copy. Ops written in headers name their file.
 */
export function barrierProtocol(module: KernelModule, name: string, position: Position): string | null {
  const kernel =
    module.kernels.find((k) => k.range.start.line <= position.line && position.line <= k.range.end.line && !k.range.file) ??
    module.kernels.find((k) => [...k.decls.keys()].some((d) => d === name));
  if (!kernel) return null;
  const facts = new KernelFacts(kernel, module);
  const sites = facts.sites.filter((s) => s.op.barrier && (s.op.barrier.base === name || s.op.barrier.base.replace(/#\d+$/, '') === name));
  if (!sites.length) return null;
  const decl = kernel.decls.get(sites[0].op.barrier!.base);
  const runs = facts.runs();
  const run = runs?.[0];
  const lines: string[] = [];
  const len = facts.arrayLength(sites[0].op.barrier!.base);
  lines.push(`**${name}**${len ? `[${len}]` : ''} — ${decl ? `\`${decl.space === 'shared' ? '__shared__ ' : ''}${decl.type}\`` : 'barrier'} in \`${kernel.name}\`${len ? `: a ring of ${len} slots` : ''}`);
  const inits = sites.filter((s) => s.op.kind === 'init');
  for (const i of inits) lines.push(`- init on ${where(i.op.range)}: count \`${i.op.count?.text ?? '?'}\`${run ? `${countValue(run, i.op)} by ${who(run, i.op)}` : ''}`);
  if (!inits.length) lines.push('- no init in this kernel');
  const rest = sites.filter((s) => s.op.kind !== 'init');
  // One section per role: the threads that execute the op in the replay (or "not replayed").
  const roles = new Map<string, string[]>();
  let shown = 0;
  for (const s of rest) {
    if (shown++ >= 16) break;
    const what = OP_WORDS[s.op.kind] ?? s.op.kind;
    const detail = s.op.parity ? ` parity \`${s.op.parity.text}\`` : s.op.bytes ? ` ${s.op.bytes.text} bytes` : s.op.count && s.op.kind !== 'wait-token' && s.op.count.text !== '1' ? ` count \`${s.op.count.text}\`` : '';
    const slot = s.op.barrier?.index ? ` slot \`${s.op.barrier.index.text}\`` : '';
    const peer = s.op.remote ? ' (on a peer CTA of the cluster)' : '';
    const loop = facts.innermostLoop(s);
    const inLoop = loop ? `, in the loop on ${where(loop.range)}` : '';
    const role = run ? who(run, s.op) : 'who runs it is not replayed';
    roles.set(role, [...(roles.get(role) ?? []), `  - ${what}${detail}${slot}${peer} on ${where(s.op.range)}${inLoop}`]);
  }
  for (const [role, ops] of roles) lines.push(`- ${role}:`, ...ops);
  if (rest.length > 16) lines.push(`- … ${rest.length - 16} more`);
  // The phase schedule the replay found: which slot and parity each role's first waits ask for.
  const mine = new Set(sites.map((s) => s.op));
  const schedules = (run?.actors ?? [])
    .map((a) => ({ threads: a.threads, waits: a.events.filter((e): e is Extract<typeof e, { kind: 'wait' }> => e.kind === 'wait' && mine.has(e.op) && e.parity !== undefined) }))
    .filter((a) => a.waits.length > 0)
    .slice(0, 4);
  if (schedules.length) {
    lines.push('- phase schedule (the replay\'s first waits, `slot: parity`):');
    for (const a of schedules) lines.push(`  - ${describeThreads([...a.threads].sort((x, y) => x - y))}: ${a.waits.slice(0, 8).map((e) => `\`${e.key}: ${e.parity}\``).join(', ')}${a.waits.length > 8 ? ', …' : ''}`);
  }
  // Cluster peers: the cluster shape, and how many of the ops act on (or multicast to) other CTAs' copies.
  const cluster = kernel.launchShape?.cluster;
  const peerOps = sites.filter((s) => s.op.remote || s.op.ctaMask).length;
  if (cluster && cluster.some((d) => d > 1)) lines.push(`- cluster of ${cluster.join('×')} CTAs, each with its own copy${peerOps ? `; ${peerOps} of the operations reach a peer CTA's copy (remote arrive, multicast)` : '; no operation here reaches a peer CTA\'s copy'}`);
  if (runs && run) lines.push('', `_Who executes what is replayed for a block of ${run.blockSize} threads._`);
  return lines.join('\n');
}

function countValue(run: RunResult, op: BarrierOp): string {
  for (const [, init] of run.initializers) if (init.op === op && init.count !== undefined) return ` = ${init.count}`;
  return '';
}

/** "thread 0", "lane 0 of warps 1–4", "threads 32–159" for the threads that execute `op`. */
function who(run: RunResult, op: BarrierOp): string {
  const threads = new Set<number>();
  for (const a of run.actors) {
    if (a.events.some((e) => 'op' in e && e.op === op)) a.threads.forEach((t) => threads.add(t));
  }
  return describeThreads([...threads].sort((a, b) => a - b));
}

export function describeThreads(t: number[]): string {
  if (!t.length) return 'no thread';
  if (t.length === 1) return `thread ${t[0]}`;
  const contiguous = t[t.length - 1] - t[0] + 1 === t.length;
  if (contiguous) {
    if (t[0] % 32 === 0 && t.length % 32 === 0) {
      const w0 = t[0] / 32;
      const w1 = w0 + t.length / 32 - 1;
      return w0 === w1 ? `warp ${w0} (threads ${t[0]}–${t[t.length - 1]})` : `warps ${w0}–${w1} (threads ${t[0]}–${t[t.length - 1]})`;
    }
    return `threads ${t[0]}–${t[t.length - 1]}`;
  }
  if (t.every((x) => x % 32 === 0)) {
    const warps = t.map((x) => x / 32);
    const consecutive = warps[warps.length - 1] - warps[0] + 1 === warps.length;
    return consecutive ? `lane 0 of warps ${warps[0]}–${warps[warps.length - 1]}` : `lane 0 of warps ${warps.join(', ')}`;
  }
  return `${t.length} threads`;
}
