// The Variables view of a stopped kernel: scopes (Locals, Barriers, Async operations, Shared memory,
// Globals, Futures) and their variables, rendered from the debug runtime's plain-data views. DAP
// variable references are handles into `VariableStore`, valid until the next resume (DAP's rule).
// Everything here reads the runtime; nothing changes it.
import { Handles } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { BarrierView, BufferView, DebugRuntime, LocalInfo, SharedBufferView } from '../core/index';

/** What a variables reference points at. */
export type VarRef =
  | { kind: 'locals'; thread: number; frame: number }
  | { kind: 'lanes'; thread: number; frame: number; name: string }
  | { kind: 'barriers'; block: number }
  | { kind: 'barrier'; block: number; label: string }
  /** The barriers living in a shared buffer (and its raw elements when it holds more than barriers). */
  | { kind: 'barrier-buffer'; block: number; key: string }
  | { kind: 'waiting'; block: number; label: string }
  | { kind: 'async' }
  | { kind: 'shared'; block: number }
  | { kind: 'globals' }
  | { kind: 'elements'; key: string }
  | { kind: 'futures' }
  | { kind: 'object'; value: Record<string, unknown> };

/** The pseudo-variable in Locals that chooses the displayed lane (settable). */
export const LANE_VARIABLE = 'lane (shown)';

export class VariableStore {
  private readonly handles = new Handles<VarRef>();

  constructor(private readonly rt: () => DebugRuntime | undefined) {}

  /** Forgets every reference (on resume). */
  reset(): void {
    this.handles.reset();
  }

  ref(r: VarRef): number {
    return this.handles.create(r);
  }

  get(ref: number): VarRef | undefined {
    return this.handles.get(ref);
  }

  scopes(thread: number, frame: number): DebugProtocol.Scope[] {
    const rt = this.rt();
    if (!rt) return [];
    const block = rt.thread(thread)?.block ?? 0;
    const multiBlock = rt.numBlocks > 1;
    const scope = (name: string, r: VarRef, expensive = false, presentationHint?: string): DebugProtocol.Scope => ({ name, variablesReference: this.ref(r), expensive, presentationHint });
    const out = [
      scope('Locals', { kind: 'locals', thread, frame }, false, 'locals'),
      scope(multiBlock ? `Barriers (block ${block})` : 'Barriers', { kind: 'barriers', block }),
      scope('Async operations', { kind: 'async' }),
      scope(multiBlock ? `Shared memory (block ${block})` : 'Shared memory', { kind: 'shared', block }),
      scope('Globals', { kind: 'globals' }),
    ];
    if (rt.hasFutures) out.push(scope('Futures', { kind: 'futures' }));
    return out;
  }

  variables(ref: VarRef, args: Pick<DebugProtocol.VariablesArguments, 'filter' | 'start' | 'count'>): DebugProtocol.Variable[] {
    const rt = this.rt();
    if (!rt) return [];
    switch (ref.kind) {
      case 'locals':
        return this.locals(rt, ref.thread, ref.frame);
      case 'lanes':
        return rt.laneValues(ref.thread, ref.name, ref.frame).map((l) => ({ name: `lane ${l.lane}`, value: l.value, variablesReference: 0 }));
      case 'barriers':
        return rt
          .barriers()
          .filter((b) => b.block === ref.block)
          .map((b) => this.barrierVariable(b));
      case 'barrier': {
        const b = findBarrier(rt, ref.block, ref.label);
        return b ? this.barrierChildren(b) : [];
      }
      case 'waiting': {
        const b = findBarrier(rt, ref.block, ref.label);
        return (b?.waiting ?? []).map((w) => ({
          name: w.label,
          value: `${w.lanes} lane${w.lanes === 1 ? '' : 's'} wait${w.lanes === 1 ? 's' : ''} for ${w.token !== undefined ? `token ${w.token}` : `parity ${w.parity}`}`,
          variablesReference: 0,
        }));
      }
      case 'async':
        return rt.asyncOps().map((op) => ({
          name: `#${op.id} ${op.engine}`,
          value: `${op.label} · issued by ${op.issuer} at cycle ${op.issuedAt} (line ${op.line + 1}) · completes at cycle ${op.doneAt}`,
          variablesReference: 0,
        }));
      case 'shared':
        return rt
          .sharedMemory(ref.block)
          .filter((b) => b.bytes > 0)
          .map((b) => this.sharedVariable(b));
      case 'globals':
        return rt.globals().map((b) => this.bufferVariable(b));
      case 'barrier-buffer': {
        const buf = rt.sharedMemory(ref.block).find((b) => b.key === ref.key);
        if (!buf?.barriers) return [];
        const out = buf.barriers.map((b) => this.barrierVariable(b));
        // Data beside the barriers (a struct holding both): its bytes stay reachable.
        if (buf.bytes > 8 * buf.barriers.length) out.push({ ...this.bufferVariable(buf), name: 'raw' });
        return out;
      }
      case 'elements':
        return rt.bufferElements(ref.key, args.start ?? 0, args.count).map((e) => ({ name: `[${e.index}]`, value: e.value, variablesReference: 0 }));
      case 'futures': {
        const multiBlock = rt.numBlocks > 1;
        return rt.futures().map((f) => ({
          name: f.name,
          value: `${f.state} · ${f.what} (line ${f.line + 1}${multiBlock ? `, block ${f.block}` : ''})`,
          variablesReference: 0,
        }));
      }
      case 'object':
        return Object.entries(ref.value).map(([k, v]) => this.objectVariable(k, v));
    }
  }

  private locals(rt: DebugRuntime, thread: number, frame: number): DebugProtocol.Variable[] {
    const t = rt.thread(thread);
    // Croqtile threads are whole thread groups with one value per variable: no lanes to choose.
    const lanes = (t?.lanes ?? rt.lanesPerThread) > 1;
    const out: DebugProtocol.Variable[] = [];
    if (t && lanes) out.push({ name: LANE_VARIABLE, value: String(t.lane), type: 'lane 0..31', variablesReference: 0, presentationHint: { kind: 'virtual' } });
    // Later locals shadow earlier ones (inner scopes): show each name once, the visible binding.
    const shown = new Map<string, LocalInfo>();
    for (const l of rt.locals(thread, frame)) shown.set(l.name, l);
    for (const l of shown.values()) {
      out.push({ name: l.name, value: l.value, type: l.type, evaluateName: l.name, variablesReference: lanes ? this.ref({ kind: 'lanes', thread, frame, name: l.name }) : 0, namedVariables: lanes ? (t?.lanes ?? 32) : undefined });
    }
    return out;
  }

  barrierVariable(b: BarrierView): DebugProtocol.Variable {
    return { name: b.label, value: barrierSummary(b), evaluateName: b.label, variablesReference: this.ref({ kind: 'barrier', block: b.block, label: b.label }), namedVariables: 7 };
  }

  private barrierChildren(b: BarrierView): DebugProtocol.Variable[] {
    const v = (name: string, value: string | number) => ({ name, value: String(value), variablesReference: 0 });
    const waiting = b.waiting.length
      ? { name: 'waiting', value: b.waiting.map((w) => `${w.label} (${w.token !== undefined ? `token ${w.token}` : `parity ${w.parity}`})`).join('; '), variablesReference: this.ref({ kind: 'waiting', block: b.block, label: b.label }) }
      : v('waiting', 'nobody');
    return [v('initialized', String(b.initialized)), v('phase', b.phase), v('parity', b.parity), v('pending', b.pending), v('expected', b.expected), v('tx-count', b.tx), waiting, v('block', b.block)];
  }

  /**
   * A shared buffer: barriers show as their states (the Barriers view's), never as the raw words the
   * simulator does not keep the state in; other buffers as their first elements.
   */
  sharedVariable(b: SharedBufferView): DebugProtocol.Variable {
    if (!b.barriers?.length) return this.bufferVariable(b, b.preview);
    const one = b.barriers.length === 1 && b.bytes <= 8;
    const value = one ? barrierSummary(b.barriers[0]) : `[${b.barriers.map(barrierSummary).join(', ')}]`;
    return { name: b.name, value, type: `${b.barriers.length} barrier${b.barriers.length === 1 ? '' : 's'}`, evaluateName: b.name, variablesReference: this.ref({ kind: 'barrier-buffer', block: b.block, key: b.key }), namedVariables: b.barriers.length };
  }

  /** A buffer with its first elements (or `preview`), expandable to all of them. */
  bufferVariable(b: BufferView, preview?: string): DebugProtocol.Variable {
    return {
      name: b.name,
      value: preview ?? b.elements,
      type: b.type,
      evaluateName: b.name,
      variablesReference: b.count ? this.ref({ kind: 'elements', key: b.key }) : 0,
      indexedVariables: b.count,
    };
  }

  private objectVariable(name: string, value: unknown): DebugProtocol.Variable {
    if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const summary = Object.entries(record)
        .filter(([, v]) => v === null || typeof v !== 'object')
        .map(([k, v]) => `${k} ${String(v)}`)
        .join(' · ');
      return { name, value: summary || '{…}', variablesReference: this.ref({ kind: 'object', value: record }) };
    }
    return { name, value: String(value), variablesReference: 0 };
  }
}

/** `phase 3 · pending 1/2 · tx 0` (pending arrivals of the expected count). */
export function barrierSummary(b: BarrierView): string {
  if (!b.initialized) return 'not initialised';
  const waiting = b.waiting.length ? ` · ${b.waiting.reduce((n, w) => n + w.lanes, 0)} waiting` : '';
  return `phase ${b.phase} · pending ${b.pending}/${b.expected} · tx ${b.tx}${waiting}`;
}

/** The barrier a data breakpoint or an expression names: `${block}:${label}` or a label in `block`. */
export function findBarrier(rt: DebugRuntime, block: number, label: string): BarrierView | undefined {
  return rt.barriers().find((b) => b.block === block && b.label === label);
}
