// How a debug-runtime stop reads in DAP: the `stopped` event's reason, description, text and the
// breakpoints it hit, and the exceptionInfo of exception stops (deadlock, misuse, race, error, step
// limit, the phase-flip filter). Pure translation, no session state.
import type { DebugProtocol } from '@vscode/debugprotocol';
import { barrierNameMatches, type DebugStop, type ExceptionFilter } from '../core/index';

/** The exception breakpoint filters, as the Breakpoints view lists them. */
export const EXCEPTION_FILTERS: DebugProtocol.ExceptionBreakpointsFilter[] = [
  { filter: 'phase-flip', label: 'Any phase flip', description: 'Break whenever any barrier or event completes a phase (noisy: prefer a function breakpoint on one barrier, e.g. full[1]).', default: false },
  { filter: 'deadlock', label: 'Deadlock', description: 'Break when every live thread is blocked and no asynchronous copy is in flight.', default: true },
  { filter: 'misuse', label: 'Barrier misuse', description: 'Break on over-arrival, arrival on an uninitialised barrier, a tx-count underflow and other mbarrier misuse.', default: true },
  { filter: 'race', label: 'Data race', description: 'Break when two threads access the same shared or global element without a barrier ordering them.', default: true },
];

export const DEFAULT_FILTERS: ExceptionFilter[] = EXCEPTION_FILTERS.filter((f) => f.default).map((f) => f.filter as ExceptionFilter);

/** Stop reasons the session reports as `exception` (with exceptionInfo). */
const EXCEPTIONS: Record<string, string> = {
  'phase-flip': 'Phase flip',
  deadlock: 'Deadlock',
  misuse: 'Barrier misuse',
  race: 'Data race',
  error: 'Error',
  'step-limit': 'Step limit',
};

export interface BreakpointIds {
  /** Line breakpoints (zero-based line → id). */
  lines: { id: number; line: number }[];
  functions: { id: number; name: string }[];
  /** Data breakpoints on barriers (`${block}:${label}`). */
  data: { id: number; barrier: string }[];
}

export interface DapStop {
  reason: DebugProtocol.StoppedEvent['body']['reason'];
  description: string;
  text?: string;
  hitBreakpointIds?: number[];
}

/** `lanes`: whether a thread has lanes to count (CUDA warps), not one value per variable (Croqtile). */
export function toDapStop(stop: DebugStop, ids: BreakpointIds, lanes = true): DapStop {
  switch (stop.reason) {
    case 'entry':
      return { reason: 'entry', description: 'Stopped at the kernel entry (blocks launched, nothing run yet)' };
    case 'breakpoint': {
      const hit = ids.lines.filter((b) => b.line === stop.line).map((b) => b.id);
      return { reason: 'breakpoint', description: stop.description, hitBreakpointIds: hit.length ? hit : undefined };
    }
    case 'step':
      return { reason: 'step', description: stop.description };
    case 'pause':
      return { reason: 'pause', description: 'Paused' };
    case 'data':
      return dataStop(stop, ids);
    case 'phase-flip': {
      const hit = stop.hitBreakpoint;
      if (hit?.kind === 'data') return dataStop(stop, ids);
      const byName = ids.functions.filter((f) => (hit ? f.name.trim() === hit.name.trim() : stop.barrier !== undefined && barrierNameMatches(f.name, stop.barrier)));
      if (byName.length) return { reason: 'function breakpoint', description: stop.description, hitBreakpointIds: byName.map((f) => f.id) };
      return { reason: 'exception', description: stop.description, text: EXCEPTIONS['phase-flip'] };
    }
    case 'deadlock':
      return { reason: 'exception', description: deadlockSummary(stop, lanes), text: EXCEPTIONS.deadlock };
    default:
      return { reason: 'exception', description: `${stop.description.split('\n')[0]}${inHeader(stop)}`, text: EXCEPTIONS[stop.reason] ?? stop.reason };
  }
}

/** ` (in the header foo.cuh)` when the report points into a header of the translation unit. */
function inHeader(stop: Pick<DebugStop, 'report'>): string {
  const file = stop.report?.loc?.file;
  return file ? ` (in the header ${file.split(/[\\/]/).pop()}, ${file})` : '';
}

function dataStop(stop: DebugStop, ids: BreakpointIds): DapStop {
  const key = stop.barrier !== undefined ? `${stop.block ?? 0}:${stop.barrier}` : undefined;
  const hit = ids.data.filter((d) => d.barrier === key).map((d) => d.id);
  return { reason: 'data breakpoint', description: stop.description, hitBreakpointIds: hit.length ? hit : undefined };
}

/**
 * One line per blocked warp (or Croqtile thread, `lanes` false): who, what it waits on (barrier,
 * slot, parity), where (one-based line), and the arrivals its barrier still misses. Joined with `; `
 * (the call stack shows one line).
 */
export function deadlockSummary(stop: Pick<DebugStop, 'blocked' | 'report' | 'description'>, lanes = true): string {
  if (!stop.blocked?.length) return stop.description.split('\n')[0];
  const missing = new Map((stop.report?.missing ?? []).map((m) => [m.barrier, m]));
  const parts = stop.blocked.map((b) => {
    const m = b.barrier !== undefined ? missing.get(b.barrier) : undefined;
    const count = lanes ? ` (${b.lanes} lane${b.lanes === 1 ? '' : 's'})` : '';
    const needs = m ? `, ${m.pending} of ${m.expected} arrival${m.expected === 1 ? '' : 's'} missing${m.tx ? ` and ${m.tx} tx bytes` : ''}` : '';
    return `${b.label}${count} waits on ${b.waitsOn} at ${b.where ?? `line ${b.line + 1}`}${needs}`;
  });
  return `Deadlock: ${parts.join('; ')}`;
}

/** exceptionInfo for the stop, when it is an exception stop. */
export function exceptionInfo(stop: DebugStop | undefined, lanes = true): DebugProtocol.ExceptionInfoResponse['body'] | undefined {
  if (!stop || !(stop.reason in EXCEPTIONS)) return undefined;
  // A phase flip stops only under its filter; the rest stop unless their filter is off (deadlock,
  // misuse, race) or always (error, step limit).
  const breakMode: DebugProtocol.ExceptionBreakMode = stop.reason === 'error' || stop.reason === 'step-limit' ? 'always' : 'userUnhandled';
  const full = stop.report?.message ?? stop.description;
  return {
    exceptionId: stop.reason,
    description: stop.reason === 'deadlock' ? deadlockSummary(stop, lanes) : `${stop.description.split('\n')[0]}${inHeader(stop)}`,
    breakMode,
    details: { message: full, typeName: EXCEPTIONS[stop.reason], stackTrace: full },
  };
}
