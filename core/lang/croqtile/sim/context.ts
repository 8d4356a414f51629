// The Croqtile interpreter's context: scopes (`Env`), control flow out of a statement list (`Flow`), what a
// device thread carries (`Device`, its debugger frames), the launch services the interpreter calls
// (`LaunchHooks`), and tensor allocation. Shared by the expression, async and statement layers.
import type { CoFile, CoStmt } from '../ast';
import type { LineIndex } from '../positions';
import { type DType, sizeOf } from '../../../sim/dtypes';
import { type Machine, SimError, type SimThread, type SourceLoc } from '../../../sim/machine';
import { Buffer } from '../../../sim/memory';
import { contiguousStrides, type EventObj, type Future, type Value, View } from './values';

/** An expression compiled once into a closure (see ./expressions.ts). */
export type CompiledExpr = (ctx: Ctx) => Value;

/** Raised by host code that ran past the step budget. */
export class HostStepLimit extends Error {}

export class Env {
  readonly vars = new Map<string, Value>();
  constructor(
    readonly parent?: Env,
    /** Assignments from inner scopes do not write through a frozen scope (device threads see host values as copies). */
    readonly frozen = false,
  ) {}
  lookup(name: string): Value | undefined {
    for (let e: Env | undefined = this; e; e = e.parent) {
      const v = e.vars.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }
  /** The scope that owns `name` for an assignment (undefined: define it here). */
  owner(name: string): Env | undefined {
    for (let e: Env | undefined = this; e; e = e.parent) {
      if (e.frozen) return undefined;
      if (e.vars.has(name)) return e;
    }
    return undefined;
  }
}

/** Control flow out of a statement list. */
export const enum Flow {
  Normal = 0,
  Break = 1,
  Continue = 2,
  Return = 3,
  Exit = 4,
}

export interface ThreadRun {
  ran: number;
  budget: number;
  /** The line hook already stopped before the current statement. */
  hookStopped: boolean;
}

export interface SyncGroup {
  id: number;
  count: number;
}

/** What a device thread carries besides its variables. */
export interface Device {
  m: Machine;
  t: SimThread;
  run: ThreadRun;
  launch: LaunchHooks;
  blockState: Map<string, unknown>;
  /** Thread index within the instance of the innermost enclosing parallel (block level: tid). */
  local: number[];
  groups: SyncGroup[];
  /** Hardware threads this simulated thread stands for (a warpgroup collapsed into one = 128). */
  weight: number;
  /** Occurrence count per statement site (collective copies are matched by site and occurrence); made on first use. */
  sites: Map<number, number> | undefined;
  /** Scalar event phase bits (current era): per event object; made on first use. */
  phases: Map<EventObj, number> | undefined;
  /** The debugger's view: enclosing constructs (parallel, foreach, with, inthreads), outermost first. */
  frames: DeviceFrame[];
  /** The scope of the statement the thread is at (kept current at every statement, for the debugger). */
  env: Env;
}

/**
 * One construct a device thread is inside, for the debugger's call stack: its statement, the scope
 * that statement ran in (`outer`; the frame's own variables live below it) and, for loops and
 * parallels, the variables it binds. Kept cheap (a foreach pushes one per run): names and lines
 * are worked out only when a debugger asks.
 */
export interface DeviceFrame {
  node: Extract<CoStmt, { kind: 'parallel' | 'foreach' | 'with' | 'inthreads' }>;
  outer: Env;
  vars: string[];
}

/** Services of the launch the interpreter calls for device statements (implemented in ./launch.ts). */
export interface LaunchHooks {
  parallel(s: Extract<CoStmt, { kind: 'parallel' }>, ctx: Ctx): Generator<void, Flow, void>;
  eventDecl(s: Extract<CoStmt, { kind: 'event-decl' }>, ctx: Ctx): void;
  wait(target: Value, loc: SourceLoc, ctx: Ctx): Generator<void, void, void>;
  trigger(target: Value, after: Future[], loc: SourceLoc, ctx: Ctx): Generator<void, void, void>;
  sync(s: Extract<CoStmt, { kind: 'sync' }>, ctx: Ctx): Generator<void, void, void>;
  inthreadsEnd(ctx: Ctx, loc: SourceLoc): Generator<void, void, void>;
  era: 'A' | 'B' | 'C';
}

export interface Ctx {
  env: Env;
  dev?: Device;
  /** Induction values of the enclosing foreach loops, innermost last (legacy `e[i]` parity). */
  loops: number[];
  func: string;
  returned?: Value;
}

export interface InterpOptions {
  file: CoFile;
  text: string;
  lines: LineIndex;
  maxSteps: number;
  print: (text: string, t?: SimThread) => void;
  /** The file uses current-era event syntax (`= ready`, `.at(order)`, `trigger … after`). */
  currentEraSyntax?: boolean;
  /**
   * Launch hook for an outermost `parallel` in host code: it prepares the launch; the host code's
   * generator then yields (the only place host code yields) and is resumed once the launch completed.
   */
  launch: (s: Extract<CoStmt, { kind: 'parallel' }>, ctx: Ctx) => void;
}

let bufferIds = 1_000_000;

export function newBuffer(name: string, space: 'global' | 'shared' | 'local', dtype: DType, shape: number[], block?: number): Buffer {
  const n = shape.reduce((a, b) => a * b, 1);
  if (!Number.isFinite(n) || n < 0 || n * sizeOf(dtype) > 1 << 30) throw new SimError(`tensor '${name}' [${shape.join(', ')}] is too large for the simulator (1 GiB per buffer)`);
  return new Buffer(bufferIds++, name, space, n * sizeOf(dtype), block, dtype, shape);
}

export function viewOf(buf: Buffer, dtype: DType, shape: number[], declared?: string): View {
  return new View(buf, dtype, 0, shape, contiguousStrides(shape), declared);
}
