// The one catalogue of Croqtile's synchronisation and asynchronous constructs: for each, its kind, whether it can
// block the thread that runs it, the compiler eras that accept it, the era its use marks a file as, and the
// kernel-IR operations the front end lowers it to. Its `id` is also the keyword of its hover doc (api-docs.ts).
// Read by the front end (lower.ts: era detection, which operations it may emit), the simulator (sim/async-ops.ts:
// era availability) and hovers (api-docs.ts: which dotted forms are looked up as chains). A parity test
// (test/core/croqtile/sync-catalogue.test.ts) fails when one of them knows a construct the catalogue lacks.
import type { OpKind } from '../../ir/types';

export type Era = 'A' | 'B' | 'C';

export interface SyncConstruct {
  /** The spelling, and the keyword of its hover doc. */
  id: string;
  kind: 'event' | 'event-op' | 'copy' | 'future' | 'mma' | 'barrier';
  /** Whether it can block the thread that runs it (the simulator suspends it; the linter treats it as a wait). */
  blocks: boolean;
  /** Compiler eras that accept it (A: tutorial era, B: `mma.wait` era, C: HEAD). */
  eras: readonly Era[];
  /** Using it puts a file in this era (`detectEra`). */
  marksEra?: Era;
  /** Kernel-IR lowering: operation kinds and `api` labels (`sync` for block/warp/named syncs). */
  lowersTo: readonly { op: OpKind | 'sync'; api: string }[];
  /** Constructs the current compiler removed are tagged in the IR with the era that had them. */
  legacy?: 'A' | 'B';
}

const ALL: readonly Era[] = ['A', 'B', 'C'];

export const SYNC_CONSTRUCTS: readonly SyncConstruct[] = [
  // Events
  { id: 'event', kind: 'event', blocks: false, eras: ALL, lowersTo: [{ op: 'init', api: 'event' }, { op: 'sync', api: 'event init' }] },
  { id: 'event<N>', kind: 'event', blocks: false, eras: ALL, marksEra: 'C', lowersTo: [{ op: 'init', api: 'event' }] },
  { id: 'ready', kind: 'event', blocks: false, eras: ['C'], marksEra: 'C', lowersTo: [{ op: 'init', api: 'event' }] },
  {
    id: 'wait',
    kind: 'event-op',
    blocks: true,
    eras: ALL,
    lowersTo: [
      { op: 'wait-parity', api: 'wait' },
      { op: 'arrive', api: 'wait (arrives)' },
      { op: 'wait-token', api: 'wait' },
      { op: 'future-wait', api: 'wait' },
    ],
  },
  { id: 'trigger', kind: 'event-op', blocks: false, eras: ALL, lowersTo: [{ op: 'arrive', api: 'trigger' }] },
  {
    id: 'trigger.cluster',
    kind: 'event-op',
    blocks: false,
    eras: ALL,
    lowersTo: [{ op: 'arrive', api: 'trigger.cluster' }, { op: 'arrive-expect-tx', api: 'trigger.cluster' }],
  },
  {
    id: 'after',
    kind: 'event-op',
    blocks: false,
    eras: ALL,
    marksEra: 'C',
    lowersTo: [{ op: 'arrive-expect-tx', api: 'trigger' }, { op: 'future-wait', api: 'trigger … after' }],
  },
  { id: '.at', kind: 'event-op', blocks: false, eras: ALL, marksEra: 'C', lowersTo: [{ op: 'wait-parity', api: 'wait' }, { op: 'arrive', api: 'trigger' }] },
  // Copies (a `.async` copy is a future; a plain one completes before the statement ends)
  { id: 'dma.copy.async', kind: 'copy', blocks: false, eras: ALL, lowersTo: [{ op: 'future-issue', api: 'dma.copy.async' }] },
  { id: 'tma.copy.async', kind: 'copy', blocks: false, eras: ALL, lowersTo: [{ op: 'future-issue', api: 'tma.copy.async' }] },
  { id: 'tma.load.async', kind: 'copy', blocks: false, eras: ['C'], lowersTo: [{ op: 'future-issue', api: 'tma.load.async' }] },
  { id: 'dma.any', kind: 'future', blocks: false, eras: ALL, lowersTo: [{ op: 'future-issue', api: 'dma.any' }] },
  {
    id: 'tma.copy.async<ev>',
    kind: 'copy',
    blocks: false,
    eras: ['A', 'B'],
    marksEra: 'A',
    legacy: 'A',
    lowersTo: [{ op: 'bulk-copy', api: 'tma.copy.async<event>' }, { op: 'future-issue', api: 'tma.copy.async' }],
  },
  // Futures
  { id: 'swap', kind: 'future', blocks: false, eras: ALL, lowersTo: [{ op: 'future-rotate', api: 'swap' }] },
  { id: 'rotate', kind: 'future', blocks: false, eras: ALL, lowersTo: [{ op: 'future-rotate', api: 'rotate' }] },
  { id: 'select', kind: 'future', blocks: false, eras: ALL, lowersTo: [{ op: 'future-use', api: 'select' }] },
  { id: '.data', kind: 'future', blocks: false, eras: ALL, lowersTo: [{ op: 'future-use', api: '.data' }, { op: 'future-use', api: '.mdata' }] },
  { id: '.span', kind: 'future', blocks: false, eras: ALL, lowersTo: [{ op: 'future-use', api: '.span' }] },
  // MMA (every layout lowers like row.row: `mma.row.col` and the others are aliases of its doc)
  { id: 'mma.row.row', kind: 'mma', blocks: true, eras: ALL, lowersTo: [{ op: 'mma', api: 'mma.row.row' }] },
  {
    id: 'mma.row.row.async',
    kind: 'mma',
    blocks: false,
    eras: ['C'],
    lowersTo: [{ op: 'mma', api: 'mma.row.row' }, { op: 'future-issue', api: 'mma.row.row.async' }],
  },
  { id: 'mma.commit', kind: 'mma', blocks: true, eras: ['A'], marksEra: 'A', legacy: 'A', lowersTo: [{ op: 'mma-fence', api: 'mma.commit' }] },
  { id: 'mma.wait<N>', kind: 'mma', blocks: true, eras: ['B'], marksEra: 'B', legacy: 'B', lowersTo: [{ op: 'mma-fence', api: 'mma.wait' }] },
  // Barriers
  { id: 'sync.barrier', kind: 'barrier', blocks: true, eras: ALL, lowersTo: [{ op: 'sync', api: 'sync.barrier' }] },
  { id: 'sync.shared', kind: 'barrier', blocks: true, eras: ALL, lowersTo: [{ op: 'sync', api: 'sync.shared' }] },
  { id: 'sync.fence', kind: 'barrier', blocks: false, eras: ALL, lowersTo: [{ op: 'sync', api: 'sync.fence' }] },
  { id: 'inthreads', kind: 'barrier', blocks: true, eras: ALL, lowersTo: [{ op: 'sync', api: 'inthreads' }] },
];

const byId = new Map(SYNC_CONSTRUCTS.map((c) => [c.id, c]));

/** The catalogue entry of `id`; throws for a construct the catalogue does not know (a programming error). */
export function syncConstruct(id: string): SyncConstruct {
  const c = byId.get(id);
  if (!c) throw new Error(`'${id}' is not in the Croqtile sync catalogue`);
  return c;
}

/** Whether compilers of `era` accept the construct. */
export function acceptedIn(id: string, era: Era): boolean {
  return syncConstruct(id).eras.includes(era);
}

/** The era a file using `id` is in, if its use decides it. */
export function eraMarkedBy(id: string): Era | undefined {
  return syncConstruct(id).marksEra;
}

/** The head word of every dotted or templated construct (`mma` of `mma.commit`, `event` of `event<N>`). */
export function syncChainHeads(): string[] {
  const heads = new Set<string>();
  for (const c of SYNC_CONSTRUCTS) {
    const m = /^([A-Za-z_]\w*)[.<]/.exec(c.id);
    if (m) heads.add(m[1]!);
  }
  return [...heads];
}

/** Layout spellings of an MMA reduce to `row.row`, the entry that documents them all. */
function canonicalApi(api: string): string {
  return api.replace(/^mma\.(?:row|col)\.(?:row|col)/, 'mma.row.row');
}

/** The constructs that lower to operation `op` with label `api` (how the parity test maps IR back to the catalogue). */
export function constructsLoweringTo(op: OpKind | 'sync', api: string): SyncConstruct[] {
  const a = canonicalApi(api);
  return SYNC_CONSTRUCTS.filter((c) => c.lowersTo.some((l) => l.op === op && l.api === a));
}
