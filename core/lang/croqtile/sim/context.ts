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

/**
 * A scope's variables, with the part of a Map's interface the interpreter and the debugger use. Scopes hold a
 * handful of names, so two arrays scanned by name are faster than hashing (variable lookups are the
 * interpreter's most frequent operation); a scope that grows past INDEXED_FROM names also keeps a Map index.
 * Insertion order is kept, as a Map keeps it (the debugger lists locals in it).
 */
export class Vars {
  // Names and values interleaved in one array (one backing store per scope); the first `count` pairs are
  // the variables. The array keeps its length when cleared, so a loop scope emptied at every iteration reuses it.
  // Between two clears a scope only grows and its entries never move: the inline caches of ./expressions.ts
  // rely on it (a value's position stays valid while `gen` is unchanged; no name was added while `count` is).
  readonly kv: (string | Value | undefined)[] = [];
  count = 0;
  /** Incremented by clear(). */
  gen = 0;
  private index: Map<string, number> | undefined = undefined;

  get size(): number {
    return this.count;
  }

  /** Position of `name`'s value in kv, or -1. */
  find(name: string): number {
    if (this.index !== undefined) return this.index.get(name) ?? -1;
    const kv = this.kv;
    const end = 2 * this.count;
    for (let i = 0; i < end; i += 2) if (kv[i] === name) return i + 1;
    return -1;
  }

  get(name: string): Value | undefined {
    if (this.index !== undefined) {
      const i = this.index.get(name);
      return i === undefined ? undefined : (this.kv[i] as Value);
    }
    const kv = this.kv;
    const end = 2 * this.count;
    for (let i = 0; i < end; i += 2) if (kv[i] === name) return kv[i + 1] as Value;
    return undefined;
  }

  has(name: string): boolean {
    return this.find(name) >= 0;
  }

  set(name: string, v: Value): this {
    const i = this.find(name);
    if (i >= 0) {
      this.kv[i] = v;
      return this;
    }
    const at = 2 * this.count++;
    if (at < this.kv.length) {
      this.kv[at] = name;
      this.kv[at + 1] = v;
    } else this.kv.push(name, v);
    if (this.index !== undefined) this.index.set(name, at + 1);
    else if (this.count > INDEXED_FROM) {
      this.index = new Map();
      for (let k = 0; k < 2 * this.count; k += 2) this.index.set(this.kv[k] as string, k + 1);
    }
    return this;
  }

  /** Adds `name, value, name, value, …` to an empty scope (a parallel instance's bindings, made once per instance). */
  setPairs(pairs: readonly (string | Value)[]): void {
    for (let i = 0; i < pairs.length; i += 2) this.set(pairs[i] as string, pairs[i + 1] as Value);
  }

  clear(): void {
    for (let i = 0; i < 2 * this.count; i++) this.kv[i] = undefined; // nothing stays reachable through a cleared scope
    this.count = 0;
    this.gen++;
    this.index = undefined;
  }

  keys(): IterableIterator<string> {
    const out: string[] = [];
    for (let i = 0; i < 2 * this.count; i += 2) out.push(this.kv[i] as string);
    return out.values();
  }

  *[Symbol.iterator](): IterableIterator<[string, Value]> {
    const pairs: [string, Value][] = [];
    for (let i = 0; i < 2 * this.count; i += 2) pairs.push([this.kv[i] as string, this.kv[i + 1] as Value]);
    yield* pairs;
  }
}

const INDEXED_FROM = 12;

export class Env {
  readonly vars = new Vars();
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
