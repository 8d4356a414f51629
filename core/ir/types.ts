// The kernel IR: what the front ends (CUDA, Croqtile, tilus) lower to and what rules, hovers and the simulator
// read. It keeps only what matters for barrier protocols: barrier operations with their operands,
// structured control flow with its conditions (who executes what), assignments to locals (parity,
// stage and token data flow) and block/warp/cluster syncs. Every node carries its source range, and
// statements and operations also where they sit on their lines, so that quick fixes need no source text.
import type { Range } from '../api';

export type Expr =
  | { kind: 'num'; value: number; text: string; range: Range }
  | { kind: 'var'; name: string; text: string; range: Range }
  | { kind: 'member'; object: Expr; field: string; text: string; range: Range }
  | { kind: 'index'; object: Expr; index: Expr; text: string; range: Range }
  | { kind: 'unary'; op: string; arg: Expr; text: string; range: Range }
  | { kind: 'binary'; op: string; left: Expr; right: Expr; text: string; range: Range }
  | { kind: 'cond'; test: Expr; then: Expr; else: Expr; text: string; range: Range }
  | { kind: 'call'; callee: string; args: Expr[]; text: string; range: Range }
  | { kind: 'opaque'; text: string; range: Range };

export type OpKind =
  | 'init'
  | 'inval'
  | 'arrive'
  | 'arrive-expect-tx'
  | 'expect-tx'
  | 'complete-tx'
  | 'arrive-drop'
  | 'wait-token'
  | 'wait-parity'
  | 'arrive-and-wait'
  | 'bulk-copy'
  /**
   * A bulk or TMA copy from shared to global memory (`cp.async.bulk[.tensor].global.shared::cta`): the async proxy
   * reads its shared-memory source (`src`) after the instruction issues; no barrier is involved.
   */
  | 'bulk-store'
  /**
   * Waits for the issuing thread's own bulk async-groups (`cp.async.bulk.wait_group[.read] N`, CuTe
   * `tma_store_wait<N>()`): all but the N most recent; `count` carries N. Other threads' groups are not waited.
   */
  | 'bulk-wait'
  | 'cp-async'
  | 'cp-async-arrive'
  | 'cp-async-arrive-noinc'
  | 'cp-async-wait'
  /**
   * Closes the thread's uncommitted cp.async copies into one group (`cp.async.commit_group`, `__pipeline_commit`,
   * CuTe `cp_async_fence`); `cp-async-wait` then carries its N in `count` (`cp.async.wait_all` has none: it
   * commits and waits for everything).
   */
  | 'cp-async-commit'
  | 'memcpy-async'
  | 'mma'
  | 'mma-commit-arrive'
  | 'fence-init'
  | 'fence-proxy-async'
  /** Completes this thread's outstanding MMA work without a barrier (Croqtile `mma.commit`, `mma.wait<N>`). */
  | 'mma-fence'
  /** A future (asynchronous copy or MMA handle) is started, waited, read, or renamed (swap/rotate/select). */
  | 'future-issue'
  | 'future-wait'
  | 'future-use'
  | 'future-rotate'
  /**
   * Blackwell tensor memory (tcgen05): allocation and release of TMEM columns, an access that reads or writes
   * TMEM from the issuing thread (tcgen05.ld/st/cp/shift; tcgen05.mma stays `mma`), the wait for this thread's
   * tcgen05.ld/st, and the two fences that order tcgen05 operations against thread synchronisation.
   */
  | 'tmem-alloc'
  | 'tmem-dealloc'
  | 'tmem-access'
  | 'tmem-wait'
  | 'tcgen05-fence-before'
  | 'tcgen05-fence-after';

/** A reference to one barrier (or one slot of a barrier array), after aliases and helpers are resolved. */
export interface BarrierRef {
  /** The declared variable the address derives from, in the kernel's own names. */
  base: string;
  /** Slot index into `base` (offset arithmetic folded in), absent for a scalar barrier. */
  index?: Expr;
  /** The operand as the user wrote it at the outermost call site. */
  text: string;
  /** The local address variable the operand was resolved through (`bar` in `uint64_t* bar = &full[s]`), if any. */
  through?: string;
  /** Where the barrier's 8 bytes lie: a byte offset from a buffer variable, when the front end could read it. */
  storage?: ByteAddress;
}

/**
 * A shared-memory address as a byte offset from a declared buffer variable (`reinterpret_cast<uint64_t*>(buf +
 * hidden_bytes)` is `buf` + `hidden_bytes`), after local aliases are followed. `via` names the aliases followed,
 * so that a reader can check none of them is reassigned.
 */
export interface ByteAddress {
  base: string;
  /** Byte offset from `base` (element sizes folded in). */
  offset: Expr;
  via: string[];
}

/**
 * Where a node sits on its source lines: what a quick fix needs to insert a line next to it (with the
 * same indentation) or to replace its line. Filled in after lowering by `placeOnLines` (`source-lines.ts`).
 */
export interface LineSpan {
  /** Leading whitespace of the node's first line, which a line inserted next to the node copies. */
  indent: string;
  /** The node's first line, whole: column 0 to the line's end (line break excluded). */
  first: Range;
  /** The node's last line, whole. */
  last: Range;
  /** Text on the first line between the indentation and the node. */
  before: string;
  /** Text on the last line after the node. */
  after: string;
}

export interface BarrierOp {
  kind: OpKind;
  /** The API spelling that produced it, e.g. `cuda::ptx::mbarrier_arrive` or `asm mbarrier.arrive`. */
  api: string;
  barrier?: BarrierRef;
  /** Arrival count (init count for `init`, arrivals for arrive forms). */
  count?: Expr;
  /** Transaction bytes (expect_tx forms and copies). */
  bytes?: Expr;
  /** A copy's shared-memory destination, as a byte address, when the front end could read it. */
  dst?: ByteAddress & { text: string };
  /** A bulk store's shared-memory source, as a byte address, when the front end could read it. */
  src?: ByteAddress & { text: string };
  /** Parity operand of parity waits. */
  parity?: Expr;
  /** Token operand of token waits. */
  token?: Expr;
  /** Local variable that receives the token an arrive returns. */
  tokenOut?: string;
  /**
   * How a probe's (try_wait/test_wait) result is used: `blocking` when it is retried until success
   * (the op then behaves as a wait), `value` when the program inspects it, `discarded` otherwise.
   */
  result?: 'blocking' | 'value' | 'discarded';
  /** The barrier lives in another CTA of the cluster (mapa / .shared::cluster / multicast). */
  remote?: boolean;
  /** A multicast copy's CTA mask: bit i set when CTA i of the cluster receives the data and the complete_tx. */
  ctaMask?: Expr;
  /** Futures involved (future-* ops): the issued/waited/used handle, or the rotated handles in order. */
  futures?: string[];
  /** Synchronisation syntax of an older Croqtile era (A: tutorial, B: mma.wait), removed at HEAD. */
  legacy?: 'A' | 'B';
  /** Event slot written as `e.at(order)` (generation-tracked) rather than `e[i]`. */
  atOrder?: boolean;
  /** Where it is written: the outermost call site inside the kernel. */
  range: Range;
  /** Source range of the API call itself when it sits inside a helper (innermost first). */
  via: Range[];
  /** The source text at `range`, as written (a fix that wraps or repeats the call copies it). */
  text?: string;
  /** Where `range` sits on its lines. */
  lines?: LineSpan;
}

/** A statement of the IR: one of the kinds below, each placed on its source lines. */
export type Stmt = StmtNode & {
  /** Where `range` sits on its lines. */
  lines?: LineSpan;
};

type StmtNode =
  | { kind: 'op'; op: BarrierOp; range: Range }
  | { kind: 'if'; cond: Expr; then: Stmt[]; else: Stmt[]; range: Range; elseRange?: Range }
  | {
      kind: 'loop';
      /** Induction variable of a canonical `for`, if any. */
      var?: string;
      init?: Expr;
      cond?: Expr;
      step?: Stmt[];
      body: Stmt[];
      range: Range;
      /** Range of the body's opening brace line, for inserting code at the top of the loop. */
      bodyRange: Range;
    }
  | {
      kind: 'assign';
      target: string;
      /** '=', '^=', '+=', '-=', '++', '--', '|=', '&=', '%=' … */
      op: string;
      value?: Expr;
      declared: boolean;
      /** The source read is a `std::move(x)` or the variable is otherwise consumed. */
      range: Range;
    }
  | { kind: 'return' | 'break' | 'continue'; range: Range }
  | {
      kind: 'sync';
      scope: 'block' | 'warp' | 'cluster' | 'cluster-arrive' | 'cluster-wait' | 'named';
      api: string;
      range: Range;
      /** A named barrier (`bar.sync`/`bar.arrive`, CUTLASS `NamedBarrier`): its operands, when the front end read them. */
      named?: NamedBarrierUse;
    }
  | {
      kind: 'access';
      array: string;
      index: Expr;
      write: boolean;
      range: Range;
      /** A store through a pointer (`*reinterpret_cast<T*>(buf + off) = v`): where it writes; `array` is then `*` + the base. */
      address?: ByteAddress;
    };

/** The operands of a named-barrier sync or arrive, as hardware sees them. */
export interface NamedBarrierUse {
  /** Hardware barrier id (0..15); a library's id offset is folded in. Absent when not written. */
  id?: Expr;
  /** Participating threads; absent when not written (then every thread of the block). */
  threads?: Expr;
  /** `bar.arrive`: counts toward the barrier without waiting. */
  arrive: boolean;
}

export interface BarrierDecl {
  name: string;
  /** Declared type as written, e.g. `cuda::barrier<cuda::thread_scope_block>`. */
  type: string;
  space: 'shared' | 'global' | 'local' | 'param' | 'unknown';
  /** Constant array length when known. */
  length?: number;
  lengthExpr?: Expr;
  range: Range;
  nameRange: Range;
  /** The initializer with its `=` and the blanks before it (` = ready`): deleting it leaves the bare declarator. */
  initializerRange?: Range;
}

/** Where a kernel's block size comes from (the hover says it); `setting`: `phaseflip.launch` or `--launch`. */
export type LaunchShapeSource = 'launch-site' | 'launch-bounds' | 'assert' | 'comment' | 'setting';

/** One launch of the kernel in its translation unit, with what of its shape folded to numbers. */
export interface KernelLaunchSite {
  /** Zero-based line of the launch. */
  line: number;
  /** `<<<>>>`, `cudaLaunchKernelEx`, `cudaLaunchKernel`, `cudaLaunchCooperativeKernel`. */
  api: string;
  block?: [number, number, number];
  grid?: [number, number, number];
  cluster?: [number, number, number];
  smem?: number;
  templateArgs?: string[];
}

/** How a kernel is launched, as far as the translation unit says. */
export interface LaunchShape {
  /** One-dimensional block sizes the kernel is analysed at (distinct, ascending); empty when none is known. */
  blocks: number[];
  /** Where `blocks` comes from; absent when nothing gives the block (the analysis then assumes sizes). */
  source?: LaunchShapeSource;
  /** A known block that is not one-dimensional (the replay models `threadIdx.x` only, so it is not analysed). */
  block3?: [number, number, number];
  grid?: [number, number, number];
  gridSource?: 'launch-site' | 'comment' | 'setting';
  cluster?: [number, number, number];
  clusterSource?: 'launch-site' | 'cluster-dims' | 'comment' | 'setting';
  /** Dynamic shared memory in bytes. */
  smem?: number;
  /** The launch setting that gave part of the shape: its key as written, and whether the editor's setting or `--launch`. */
  setting?: { key: string; origin: 'settings' | 'command line' | 'config file' };
  /** The launches of the kernel in the translation unit. */
  sites?: KernelLaunchSite[];
  /** Template parameters bound for the analysis (from the one launch or explicit instantiation). */
  templateArgs?: { name: string; value: number }[];
}

export interface Kernel {
  name: string;
  range: Range;
  nameRange: Range;
  params: string[];
  /** `__launch_bounds__(N)`: the block size the kernel is written for. */
  launchBounds?: number;
  /** Block sizes (one-dimensional, distinct, ascending) the file's own launches of the kernel use. */
  launchBlockSizes?: number[];
  /** The launch shape and where it comes from (CUDA); absent when nothing in the file says anything. */
  launchShape?: LaunchShape;
  body: Stmt[];
  /** Every variable declaration in the kernel (after inlining), by IR name. */
  decls: Map<string, BarrierDecl>;
  /** Names of the helper functions inlined into it (what its analysis depends on besides its text). */
  helpers?: string[];
  /** File constants plus the ones declared in the kernel and its helpers. */
  constants?: Map<string, number>;
  /**
   * Calls that may be barrier operations but that the front end could not resolve (a helper not
   * found, a method not inlined): `what` names the call and why, for an information note.
   */
  notUnderstood?: { what: string; range: Range }[];
  /**
   * Barrier-family instructions (mbarrier, cp.async, fence, tcgen05, barrier.cluster) of inline assembly whose
   * string is all literal text, as written, for checking their spelling against the PTX ISA; `range` is the
   * asm string's. Instructions of strings built from macros or other names are not here.
   */
  asmInstructions?: AsmInstruction[];
}

/** One instruction of an inline-assembly string, as written. */
export interface AsmInstruction {
  mnemonic: string;
  operands: string[];
  range: Range;
  /**
   * A probe (`mbarrier.try_wait`/`test_wait`) whose result register no later instruction of the same asm string
   * reads and that is no output operand: the string itself throws the answer away (a wrapper that cannot return it).
   */
  resultUnread?: true;
  /**
   * The asm statement's operands (outputs first, then inputs, numbered as `%0`, `%1`, …), when the instruction
   * names one: what the PTX of the string is bound to on the C++ side.
   */
  asmOperands?: AsmOperand[];
  /**
   * Not a barrier-family instruction: collected only because its first operand, where many instructions write,
   * names an input operand (rule asm-result-bound-to-input). Rules about barrier instructions skip it.
   */
  beyondBarrierFamily?: true;
}

/** One operand of an asm statement: `"=l"(state)` is constraint `=l`, value `state`. */
export interface AsmOperand {
  /** The constraint as written, modifiers included (`=r`, `+l`, `r`, `n`). */
  constraint: string;
  /** The symbolic name of `[name] "r"(x)`, referenced as `%[name]`. */
  name?: string;
  /** The C++ expression bound, as written. */
  value: string;
  output: boolean;
}

export interface KernelModule {
  language: 'cuda' | 'croqtile' | 'tilus';
  /** Croqtile synchronisation era the file is written in (A tutorial, B mma.wait, C current). */
  era?: 'A' | 'B' | 'C';
  kernels: Kernel[];
  /** Named compile-time constants (#define, constexpr) for evaluation. */
  constants: Map<string, number>;
  /**
   * Wall-clock deadline (ms since epoch) for the expensive protocol replay; past it, replay-based
   * rules stay silent for the remaining kernels and `truncated` is set. Keeps huge files responsive.
   */
  deadline?: number;
  truncated?: boolean;
  /**
   * Barrier-family asm instructions of the file's functions that no kernel reaches (helpers of a header, a
   * library's wrappers): checked like those of a kernel, since a wrapper nobody calls yet is still written wrong.
   */
  asmInstructions?: AsmInstruction[];
  /**
   * Classes of the file whose members initialise barriers that other members arrive on from another CTA, with no
   * fence after the initialisation (rule init-not-visible): read from the class alone.
   */
  classBarrierInits?: ClassBarrierInit[];
}

/** An initialising call in a member of a class whose barriers other members arrive on from another CTA. */
export interface ClassBarrierInit {
  className: string;
  /** The call in a member that reaches `mbarrier.init`. */
  init: Range;
  /** The member that arrives on the barriers of another CTA (`.shared::cluster`): its name's range, and its name. */
  use: Range;
  useName: string;
}
